import { expect } from 'chai';
import client from 'prom-client';
import { FastCounter, FastHistogram } from '../../../lib/metrics/fast';

/** The same recordings through prom-client's own classes and ours render the same exposition. */
describe('FastCounter and FastHistogram: the exposition of prom-client, cheaper recording', () => {
  const BUCKETS = [0.005, 0.025, 0.1, 1, 10];

  function pair() {
    const theirs = new client.Registry();
    const ours = new client.Registry();
    const common = (registers: client.Registry[]) => ({ help: 'Help text.', labelNames: ['verb', 'code'] as const, registers });
    return {
      theirs, ours,
      pc: new client.Counter({ name: 'c_total', ...common([theirs]) }),
      ph: new client.Histogram({ name: 'h_seconds', buckets: BUCKETS, ...common([theirs]) }),
      fc: new FastCounter({ name: 'c_total', ...common([ours]) }),
      fh: new FastHistogram({ name: 'h_seconds', ...common([ours]) }, BUCKETS),
    };
  }

  it('renders counters and histograms with labels exactly as prom-client does', async () => {
    const { theirs, ours, pc, ph, fc, fh } = pair();
    const observations: Array<[string, string, number]> = [
      ['GET', '200', 0.001], ['GET', '200', 0.03], ['GET', '404', 0.005], ['LIST', '200', 2.5], ['GET', '200', 99], ['PUT', 'a"b\\c', 0.2],
    ];
    for (const [verb, code, v] of observations) {
      pc.labels(verb, code).inc();
      ph.labels(verb, code).observe(v);
      fc.labels(verb, code).inc();
      fh.labels(verb, code).observe(v);
    }
    pc.inc({ verb: 'POST' }, 4);
    fc.inc({ verb: 'POST' }, 4);
    ph.observe({ code: '500' }, 0.05);
    fh.observe({ code: '500' }, 0.05);
    expect(await ours.metrics()).to.equal(await theirs.metrics());
  });

  it('makes no sample for a child that was never recorded, as prom-client', async () => {
    const { theirs, ours, pc, ph, fc, fh } = pair();
    pc.labels('GET', '200');
    ph.labels('GET', '200');
    fc.labels('GET', '200');
    fh.labels('GET', '200');
    const text = await ours.metrics();
    expect(text).to.equal(await theirs.metrics());
    expect(text).not.to.match(/verb="GET"/);
  });

  it('refuses what prom-client refuses: a wrong label count, an unknown label, a negative increment, a non-finite observation', () => {
    const { fc, fh } = pair();
    expect(() => fc.labels('GET')).to.throw(/Invalid number of arguments/);
    expect(() => fc.inc({ nope: 'x' } as never)).to.throw(/not included in initial labelset/);
    expect(() => fc.labels('GET', '200').inc(-1)).to.throw(/non-negative/);
    expect(() => fh.labels('GET', '200').observe(Number.NaN)).to.throw(/not a valid number/);
    expect(() => new FastHistogram({ name: 'x', help: 'h', labelNames: ['le'], registers: [] }, [1])).to.throw(/reserved/);
  });
});
