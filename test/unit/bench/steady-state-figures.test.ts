/**
 * The figures the steady-state benchmark reports (test/bench/steady-state.bench.ts): request rates
 * by verb and resource from two /metrics scrapes, and the least-squares slope of RSS samples. A
 * wrong sign or a series counted twice would pass a leak off as steady.
 */
import { expect } from 'chai';
import { parseExposition } from '../../helpers/prom-text';
import { requestRates } from '../../bench/server-metrics';
import { leastSquaresSlope } from '../../bench/steady-state.bench';

const scrape = (lines: string[]) => parseExposition(`# TYPE apiserver_request_total counter\n${lines.join('\n')}\n`);
const series = (verb: string, group: string, resource: string, subresource: string, code: string, n: number) =>
  `apiserver_request_total{verb="${verb}",dry_run="",group="${group}",version="v1",resource="${resource}",subresource="${subresource}",scope="resource",component="apiserver",code="${code}"} ${n}`;

describe('steady-state benchmark figures', () => {
  it('request rates are differences between scrapes, by verb and resource, codes summed, busiest first', () => {
    const before = scrape([
      series('PUT', 'coordination.k8s.io', 'leases', '', '200', 100),
      series('PATCH', '', 'nodes', 'status', '200', 10),
      series('GET', '', 'nodes', '', '200', 50),
    ]);
    const after = scrape([
      series('PUT', 'coordination.k8s.io', 'leases', '', '200', 160),
      series('PUT', 'coordination.k8s.io', 'leases', '', '409', 2),
      series('PATCH', '', 'nodes', 'status', '200', 16),
      series('GET', '', 'nodes', '', '200', 50),
      'apiserver_request_total{verb="GET",dry_run="",group="",version="",resource="",subresource="",scope="",component="apiserver",code="200"} 4',
    ]);
    const rates = requestRates(before, after, 20);
    expect(rates.map((r) => [r.key, r.count, r.perSecond, r.errors, r.errorCodes])).to.deep.equal([
      ['PUT coordination.k8s.io/leases', 62, 3.1, 2, '409 x 2'],
      ['PATCH nodes/status', 6, 0.3, 0, ''],
      ['GET (non-resource)', 4, 0.2, 0, ''],
    ]);
  });

  it('the slope of a line is its slope; flat noise has none', () => {
    expect(leastSquaresSlope([[0, 100], [0.25, 105], [0.5, 110], [1, 120]])).to.be.closeTo(20, 1e-9);
    expect(leastSquaresSlope([[0, 100], [1, 102], [2, 100], [3, 102], [4, 100], [5, 102], [6, 100], [7, 102]])).to.be.closeTo(0.095, 0.001);
    expect(leastSquaresSlope([[1, 5], [1, 6]])).to.be.NaN;
  });
});
