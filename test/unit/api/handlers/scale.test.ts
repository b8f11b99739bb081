/**
 * The built-in /scale's pure parts (lib/api/handlers/scale.ts): the Scale read from an object by
 * its kind's mapping, Kubernetes' ValidateScale, and a patched Scale's decode checks. The HTTP
 * behaviour is tested on each kind that has a /scale (deployments.test.ts and the others).
 */
import { expect } from 'chai';
import { patchedScale, scaleOf, validateScale } from '../../../../lib/api/handlers/scale';
import { JSON_PATCH, MERGE_PATCH } from '../../../../lib/api/handlers/patch';
import { ApiObject, ScaleMapping } from '../../../../lib/scheme/types';

const mapping: ScaleMapping = {
  specReplicas: (o) => ((o.spec as { replicas?: number }).replicas ?? 1),
  statusReplicas: (o) => ((o.status as { replicas?: number } | undefined)?.replicas ?? 0),
  selector: (o) => Object.entries(((o.spec as { selector?: Record<string, string> }).selector ?? {})).map(([k, v]) => `${k}=${v}`).join(','),
  withReplicas: (o, n) => ({ ...o, spec: { ...(o.spec as object), replicas: n } }),
};

const obj: ApiObject = {
  apiVersion: 'test/v1', kind: 'Thing',
  metadata: { name: 'web', namespace: 'ns', uid: 'u-1', resourceVersion: '42', creationTimestamp: '2026-01-01T00:00:00Z', labels: { a: 'b' }, generation: 3 },
  spec: { replicas: 2, selector: { app: 'web' } },
  status: { replicas: 1 },
};

describe('built-in /scale', () => {
  it('reads a Scale with the object\'s identity, its replicas and its selector string', () => {
    expect(scaleOf(obj, mapping)).to.deep.equal({
      kind: 'Scale', apiVersion: 'autoscaling/v1',
      metadata: { name: 'web', namespace: 'ns', uid: 'u-1', resourceVersion: '42', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { replicas: 2 }, status: { replicas: 1, selector: 'app=web' },
    });
  });

  it('leaves out an empty selector', () => {
    const scale = scaleOf({ ...obj, spec: { replicas: 0 } }, mapping);
    expect(scale.status).to.deep.equal({ replicas: 1 });
  });

  it('refuses negative replicas with Kubernetes\' message, and a bad name', () => {
    const errs = validateScale({ metadata: { name: 'web', namespace: 'ns' }, spec: { replicas: -1 } });
    expect(errs.map((e) => [e.field, e.message])).to.deep.equal([['spec.replicas', 'Invalid value: -1: must be greater than or equal to 0']]);
    expect(validateScale({ metadata: { name: 'web', namespace: 'ns' }, spec: { replicas: 0 } })).to.deep.equal([]);
    expect(validateScale({ metadata: { name: 'Not_A_Name', namespace: 'ns' }, spec: { replicas: 1 } }).map((e) => e.field)).to.deep.equal(['metadata.name']);
  });

  it('patches a Scale by merge or JSON patch, and refuses a result that is not one', () => {
    const old = scaleOf(obj, mapping);
    expect((patchedScale(old, MERGE_PATCH, { spec: { replicas: 5 } }).spec as { replicas: number }).replicas).to.equal(5);
    expect((patchedScale(old, JSON_PATCH, [{ op: 'replace', path: '/spec/replicas', value: 7 }]).spec as { replicas: number }).replicas).to.equal(7);
    expect(() => patchedScale(old, MERGE_PATCH, { spec: { replicas: 'many' } })).to.throw(/cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32/);
    expect(() => patchedScale(old, MERGE_PATCH, { spec: { replicas: 2 ** 31 } })).to.throw(/cannot unmarshal number 2147483648/);
  });
});
