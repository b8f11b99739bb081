/**
 * StatefulSet and the MaxUnavailableStatefulSet gate (alpha, off in 1.32): with the gate off a
 * new rollingUpdate.maxUnavailable is dropped on create and on an update that adds it, but kept
 * when the stored object already uses it; with `--feature-gates=MaxUnavailableStatefulSet=true`
 * it is kept.
 */
import { expect } from 'chai';
import { flavors } from '../../../../lib/naming';
import { FeatureGates } from '../../../../lib/scheme/feature-gates';
import { ApiObject } from '../../../../lib/scheme/types';
import { statefulSetResource } from '../../../../lib/registry/apps/stateful-sets/definition';

const sts = (rollingUpdate: Record<string, unknown>): ApiObject => ({
  apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web', namespace: 'ns' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate },
  },
});
const rolling = (obj: ApiObject) => ((obj.spec as { updateStrategy: { rollingUpdate: unknown } }).updateStrategy.rollingUpdate);
const ctx = { namespace: 'ns' } as never;

describe('StatefulSet with the MaxUnavailableStatefulSet gate', () => {
  it('the gate is known to --feature-gates, alpha and off by default', () => {
    expect(new FeatureGates().enabled('MaxUnavailableStatefulSet')).to.equal(false);
    expect(new FeatureGates({ MaxUnavailableStatefulSet: true }).enabled('MaxUnavailableStatefulSet')).to.equal(true);
  });

  it('off: drops a new maxUnavailable, keeps one already stored', () => {
    const s = statefulSetResource(flavors.kubernetes).strategy;
    const created = sts({ partition: 1, maxUnavailable: 2 });
    s.prepareForCreate!(created, ctx);
    expect(rolling(created)).to.deep.equal({ partition: 1 });
    const updated = sts({ partition: 1, maxUnavailable: 3 });
    s.prepareForUpdate!(updated, sts({ partition: 1, maxUnavailable: 2 }), ctx);
    expect(rolling(updated)).to.deep.equal({ partition: 1, maxUnavailable: 3 });
  });

  it('on: keeps maxUnavailable', () => {
    const s = statefulSetResource(flavors.kubernetes, new FeatureGates({ MaxUnavailableStatefulSet: true })).strategy;
    const created = sts({ partition: 1, maxUnavailable: 2 });
    s.prepareForCreate!(created, ctx);
    expect(rolling(created)).to.deep.equal({ partition: 1, maxUnavailable: 2 });
  });
});
