/**
 * The density benchmark's reading of `apiserver_request_duration_seconds` (test/bench/request-histograms.ts):
 * scrapes differenced per verb and resource, quantiles as Prometheus' histogram_quantile computes
 * them, and the SLO classes' worst p99.
 */
import { expect } from 'chai';
import { diffHistograms, onSharedBounds, parseHistograms, quantile, SLO_CLASSES, worstP99 } from '../../bench/request-histograms';

const line = (labels: string, le: string, n: number) =>
  `apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",${labels},version="v1",le="${le}"} ${n}`;
const series = (labels: string, counts: [string, number][]) => counts.map(([le, n]) => line(labels, le, n));
const POD_CREATE = 'resource="pods",scope="namespace",subresource="",verb="POST"';
const POD_STATUS = 'resource="pods",scope="resource",subresource="status",verb="PATCH"';

describe('request-duration histograms from /metrics', () => {
  const before = parseHistograms([
    '# TYPE apiserver_request_duration_seconds histogram',
    ...series(POD_CREATE, [['0.05', 10], ['0.1', 10], ['1', 10], ['+Inf', 10]]),
    'apiserver_request_duration_seconds_sum{verb="POST"} 0.1',
  ].join('\n'));
  const after = parseHistograms([
    ...series(POD_CREATE, [['0.05', 60], ['0.1', 100], ['1', 110], ['+Inf', 110]]),
    ...series(POD_STATUS, [['0.05', 0], ['0.1', 0], ['1', 1], ['+Inf', 2]]),
  ].join('\n'));
  const phase = diffHistograms(after, before);

  it('keys series by verb, resource/subresource and scope, and subtracts the earlier scrape', () => {
    expect([...phase.keys()].sort()).to.deep.equal(['PATCH pods/status (resource)', 'POST pods (namespace)']);
    expect(phase.get('POST pods (namespace)')!.counts).to.deep.equal([50, 90, 100, 100]);
  });

  it('interpolates within the bucket that holds the rank, as histogram_quantile', () => {
    const h = phase.get('POST pods (namespace)')!;
    expect(quantile(h, 0.5)).to.be.closeTo(0.05, 1e-9);
    expect(quantile(h, 0.7)).to.be.closeTo(0.05 + 0.05 * (20 / 40), 1e-9);
    expect(quantile(h, 0.99)).to.be.closeTo(0.1 + 0.9 * (9 / 10), 1e-9);
  });

  it('gives the highest finite bound for a rank in the +Inf bucket', () => {
    expect(quantile(phase.get('PATCH pods/status (resource)')!, 0.99)).to.equal(1);
  });

  it('compares two servers on the bounds both have', () => {
    const fine = { bounds: [0.005, 0.025, 0.05, 0.1, Infinity], counts: [5, 8, 9, 10, 10] };
    const coarse = { bounds: [0.05, 0.1, 0.15, Infinity], counts: [1, 1, 1, 1] };
    expect(onSharedBounds(fine, coarse)).to.deep.equal({ bounds: [0.05, 0.1, Infinity], counts: [9, 10, 10] });
  });

  it('finds the worst p99 of each SLO class', () => {
    const mutating = SLO_CLASSES.find((c) => c.name.startsWith('mutating'))!;
    expect(worstP99(phase, mutating)).to.deep.include({ key: 'PATCH pods/status (resource)', p99: 1, n: 2 });
    // Creates are labelled POST (the HTTP method), by kube-apiserver and this server alike.
    const creates = new Map([...phase].filter(([k]) => k.startsWith('POST ')));
    expect(worstP99(creates, mutating)?.key).to.equal('POST pods (namespace)');
    const clusterLists = SLO_CLASSES.find((c) => c.name === 'cluster lists')!;
    expect(worstP99(phase, clusterLists)).to.equal(undefined);
  });
});
