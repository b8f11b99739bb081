/**
 * /metrics/slis's registry (lib/api/metrics/sli-metrics.ts): component-base's two STABLE health-check
 * indicators and the process start time, in the Prometheus text format.
 */
import { expect } from 'chai';
import { HealthcheckSlis } from '../../../../lib/api/metrics/sli-metrics';
import { parseExposition } from '../../../helpers/prom-text';

describe('health-check SLI metrics', () => {
  it('are kubernetes_healthcheck (last outcome) and kubernetes_healthchecks_total (by status), STABLE', async () => {
    const slis = new HealthcheckSlis({ startTimeSeconds: 1_700_000_000 });
    slis.observe('etcd', 'readyz', true);
    slis.observe('etcd', 'readyz', true);
    slis.observe('etcd', 'readyz', false);
    slis.observe('etcd', 'livez', true);
    const text = await slis.render();
    const e = parseExposition(text);
    expect(e.help.get('kubernetes_healthcheck')).to.equal('[STABLE] This metric records the result of a single healthcheck.');
    expect(e.types.get('kubernetes_healthcheck')).to.equal('gauge');
    expect(e.help.get('kubernetes_healthchecks_total')).to.equal('[STABLE] This metric records the results of all healthcheck.');
    expect(e.types.get('kubernetes_healthchecks_total')).to.equal('counter');
    expect(e.value('kubernetes_healthcheck', { name: 'etcd', type: 'readyz' })).to.equal(0);
    expect(e.value('kubernetes_healthcheck', { name: 'etcd', type: 'livez' })).to.equal(1);
    expect(e.value('kubernetes_healthchecks_total', { name: 'etcd', type: 'readyz', status: 'success' })).to.equal(2);
    expect(e.value('kubernetes_healthchecks_total', { name: 'etcd', type: 'readyz', status: 'error' })).to.equal(1);
    expect(e.has('kubernetes_healthchecks_total', { name: 'etcd', type: 'livez', status: 'error' })).to.equal(false);
    expect(e.help.get('process_start_time_seconds')).to.equal('[ALPHA] Start time of the process since unix epoch in seconds.');
    expect(e.value('process_start_time_seconds')).to.equal(1_700_000_000);
    // Nothing else: the request metrics are /metrics's.
    expect([...e.types.keys()].sort()).to.deep.equal(['kubernetes_healthcheck', 'kubernetes_healthchecks_total', 'process_start_time_seconds']);
  });

  it('disabled, records nothing and renders nothing', async () => {
    const slis = new HealthcheckSlis({ enabled: false });
    slis.observe('etcd', 'readyz', true);
    expect((await slis.render()).trim()).to.equal('');
  });
});
