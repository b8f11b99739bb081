import { expect } from 'chai';
import { isApiError } from '../../../lib/meta/api-errors';
import { Schema, atomicList, int32, mapList, object, str, stringMap } from '../../../lib/scheme/schema';
import { kindSchema } from '../../../lib/scheme/meta-schema';
import { configMapSchema } from '../../../lib/registry/core/configmaps/schema';
import { namespaceSchema } from '../../../lib/registry/core/namespaces/schema';
import { applyStrategicMergePatch, isStrategicMergeSupported } from '../../../lib/fieldmanager/strategic-merge-patch';

/** A Deployment/Pod-like kind: containers merge by name, tolerations replace, strategy retains keys. */
const container = object({
  name: str(), image: str(), imagePullPolicy: str(), args: atomicList(str()),
  env: mapList(object({ name: str(), value: str() }), ['name']),
});
const podLikeSchema: Schema = kindSchema({
  spec: object({
    replicas: int32(),
    containers: mapList(container, ['name']),
    tolerations: atomicList(object({ key: str(), effect: str(), value: str() })),
    nodeSelector: stringMap(),
    strategy: object({
      type: str(),
      rollingUpdate: object({ maxSurge: str(), maxUnavailable: str() }),
    }, { 'x-kubernetes-patch-strategy': 'retainKeys' }),
    union: object({ foo: str(), other: str(), another: str(), bar: str() }, { 'x-kubernetes-patch-strategy': 'retainKeys' }),
  }),
}, 'A Pod-like kind for tests.');

/** The fields of apimachinery's strategicpatch MergeItem test type, as a schema. */
const item = object({ name: str(), value: str(), other: str() });
const mergeItemSchema: Schema = object({
  name: str(), value: str(), other: str(),
  mergingList: { type: 'array', items: item, 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
  nonMergingList: { type: 'array', items: item },
  mergingIntList: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-patch-strategy': 'merge' },
  nonMergingIntList: { type: 'array', items: { type: 'integer' } },
  simpleMap: stringMap(),
  retainKeysMap: object({ name: str(), value: str(), other: str() }, { 'x-kubernetes-patch-strategy': 'retainKeys' }),
});

interface Case { it: string; schema: Schema; original: unknown; patch: unknown; result: unknown }

const pod = (spec: unknown, metadata: unknown = { name: 'p' }) => ({ apiVersion: 'v1', kind: 'Pod', metadata, spec });

/** From the "Update API Objects in Place Using kubectl patch" task page. */
const taskPageCases: Case[] = [
  {
    it: 'adds a container to a list merged by name; the new one comes first',
    schema: podLikeSchema,
    original: pod({ containers: [{ name: 'patch-demo-ctr', image: 'nginx' }], tolerations: [{ effect: 'NoSchedule', key: 'dedicated', value: 'test-team' }] }),
    patch: { spec: { containers: [{ name: 'patch-demo-ctr-2', image: 'redis' }] } },
    result: pod({
      containers: [{ name: 'patch-demo-ctr-2', image: 'redis' }, { name: 'patch-demo-ctr', image: 'nginx' }],
      tolerations: [{ effect: 'NoSchedule', key: 'dedicated', value: 'test-team' }],
    }),
  },
  {
    it: "updates a container's image by name, leaving the containers after it in place",
    schema: podLikeSchema,
    original: pod({ containers: [{ name: 'a', image: 'a:1', args: ['x'] }, { name: 'b', image: 'b:1' }, { name: 'c', image: 'c:1' }] }),
    patch: { spec: { containers: [{ name: 'a', image: 'a:2' }] } },
    result: pod({ containers: [{ name: 'a', image: 'a:2', args: ['x'] }, { name: 'b', image: 'b:1' }, { name: 'c', image: 'c:1' }] }),
  },
  {
    it: 'replaces a list without a patch strategy (tolerations)',
    schema: podLikeSchema,
    original: pod({ tolerations: [{ effect: 'NoSchedule', key: 'dedicated', value: 'test-team' }] }),
    patch: { spec: { tolerations: [{ effect: 'NoSchedule', key: 'disktype', value: 'ssd' }] } },
    result: pod({ tolerations: [{ effect: 'NoSchedule', key: 'disktype', value: 'ssd' }] }),
  },
  {
    it: 'merges a retainKeys map field by field when the patch has no $retainKeys',
    schema: podLikeSchema,
    original: pod({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '30%' } } }),
    patch: { spec: { strategy: { type: 'Recreate' } } },
    result: pod({ strategy: { type: 'Recreate', rollingUpdate: { maxSurge: '30%' } } }),
  },
  {
    it: 'clears the fields not listed in $retainKeys',
    schema: podLikeSchema,
    original: pod({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '30%' } } }),
    patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
    result: pod({ strategy: { type: 'Recreate' } }),
  },
];

/** From the strategic merge patch design document (kubernetes/community). */
const designDocCases: Case[] = [
  {
    it: 'deletes a list element with $patch: delete and merges the others',
    schema: podLikeSchema,
    original: pod({ containers: [{ name: 'nginx', image: 'nginx-0.9' }, { name: 'log-tailer', image: 'log-tailer-1.0' }] }),
    patch: { spec: { containers: [{ name: 'nginx', image: 'nginx-1.0' }, { $patch: 'delete', name: 'log-tailer' }] } },
    result: pod({ containers: [{ name: 'nginx', image: 'nginx-1.0' }] }),
  },
  {
    it: 'replaces a merging list with a $patch: replace element',
    schema: podLikeSchema,
    original: pod({ containers: [{ name: 'nginx', image: 'nginx-0.9', imagePullPolicy: 'Always' }, { name: 'log-tailer', image: 'lt' }] }),
    patch: { spec: { containers: [{ name: 'nginx', image: 'nginx-1.0' }, { $patch: 'replace' }] } },
    result: pod({ containers: [{ name: 'nginx', image: 'nginx-1.0' }] }),
  },
  {
    it: 'replaces a map with $patch: replace',
    schema: podLikeSchema,
    original: pod({ nodeSelector: { disk: 'hdd', zone: 'a' }, replicas: 2 }),
    patch: { spec: { nodeSelector: { $patch: 'replace', disk: 'ssd' } } },
    result: pod({ nodeSelector: { disk: 'ssd' }, replicas: 2 }),
  },
  {
    it: 'deletes a map with $patch: delete, as null does',
    schema: podLikeSchema,
    original: pod({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '1' } }, nodeSelector: { a: 'b' } }),
    patch: { spec: { strategy: { rollingUpdate: { $patch: 'delete' } }, nodeSelector: null } },
    result: pod({ strategy: { type: 'RollingUpdate' } }),
  },
  {
    it: 'removes values with $deleteFromPrimitiveList',
    schema: podLikeSchema,
    original: pod({}, { name: 'p', finalizers: ['a', 'b', 'c'] }),
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'c'] } },
    result: pod({}, { name: 'p', finalizers: ['a'] }),
  },
  {
    it: 'reorders a primitive list with $setElementOrder',
    schema: podLikeSchema,
    original: pod({}, { name: 'p', finalizers: ['a', 'b', 'c'] }),
    patch: { metadata: { '$setElementOrder/finalizers': ['b', 'c', 'a'] } },
    result: pod({}, { name: 'p', finalizers: ['b', 'c', 'a'] }),
  },
  {
    it: 'reorders a list of maps with $setElementOrder by merge key',
    schema: podLikeSchema,
    original: pod({ containers: [{ name: 'a', image: '1' }, { name: 'b', image: '2' }, { name: 'c', image: '3' }] }),
    patch: { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'c' }, { name: 'a' }] } },
    result: pod({ containers: [{ name: 'b', image: '2' }, { name: 'c', image: '3' }, { name: 'a', image: '1' }] }),
  },
  {
    it: 'clears a union with $retainKeys',
    schema: podLikeSchema,
    original: pod({ union: { foo: 'a', other: 'b' } }),
    patch: { spec: { union: { $retainKeys: ['another', 'bar'], another: 'd', bar: 'c' } } },
    result: pod({ union: { another: 'd', bar: 'c' } }),
  },
];

const ref = (uid: string, extra: object = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `n-${uid}`, uid, ...extra });
const cm = (metadata: object, data?: object) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ...metadata }, ...(data ? { data } : {}) });

/** ObjectMeta (lib/scheme/meta-schema.ts) and ConfigMap (lib/registry/core/configmaps/schema.ts) as served. */
const servedSchemaCases: Case[] = [
  {
    it: 'deletes a label with null and ignores a null for a missing one',
    schema: configMapSchema,
    original: cm({ labels: { app: 'web', tier: 'db' } }),
    patch: { metadata: { labels: { tier: null, gone: null, env: 'prod' } } },
    result: cm({ labels: { app: 'web', env: 'prod' } }),
  },
  {
    it: 'unions finalizers, keeping server order before the patch elements after them',
    schema: configMapSchema,
    original: cm({ finalizers: ['a', 'b'] }),
    patch: { metadata: { finalizers: ['b', 'c', 'c'] } },
    result: cm({ finalizers: ['a', 'b', 'c'] }),
  },
  {
    it: 'puts a finalizer new to the list before the server-only ones',
    schema: configMapSchema,
    original: cm({ finalizers: ['a', 'b'] }),
    patch: { metadata: { finalizers: ['c'] } },
    result: cm({ finalizers: ['c', 'a', 'b'] }),
  },
  {
    it: 'merges ownerReferences by uid in place',
    schema: configMapSchema,
    original: cm({ ownerReferences: [ref('u1'), ref('u2')] }),
    patch: { metadata: { ownerReferences: [{ uid: 'u2', controller: true }] } },
    result: cm({ ownerReferences: [ref('u1'), ref('u2', { controller: true })] }),
  },
  {
    it: 'adds and deletes ownerReferences by uid',
    schema: configMapSchema,
    original: cm({ ownerReferences: [ref('u1'), ref('u2')] }),
    patch: { metadata: { ownerReferences: [ref('u3'), { $patch: 'delete', uid: 'u1' }] } },
    result: cm({ ownerReferences: [ref('u3'), ref('u2')] }),
  },
  {
    it: 'replaces managedFields, an atomic list',
    schema: configMapSchema,
    original: cm({ managedFields: [{ manager: 'a' }, { manager: 'b' }] }),
    patch: { metadata: { managedFields: [{ manager: 'c' }] } },
    result: cm({ managedFields: [{ manager: 'c' }] }),
  },
  {
    it: 'merges ConfigMap data key by key',
    schema: configMapSchema,
    original: cm({}, { a: '1', b: '2' }),
    patch: { data: { b: null, c: '3' }, binaryData: { bin: 'AQID' } },
    result: { ...cm({}, { a: '1', c: '3' }), binaryData: { bin: 'AQID' } },
  },
  {
    it: 'replaces ConfigMap data with $patch: replace',
    schema: configMapSchema,
    original: cm({}, { a: '1', b: '2' }),
    patch: { data: { $patch: 'replace', z: '26' } },
    result: cm({}, { z: '26' }),
  },
  {
    it: 'merges Namespace conditions by type',
    schema: namespaceSchema,
    original: { status: { conditions: [{ type: 'A', status: 'True' }, { type: 'B', status: 'False' }] } },
    patch: { status: { conditions: [{ type: 'B', status: 'True', reason: 'Done' }] } },
    result: { status: { conditions: [{ type: 'A', status: 'True' }, { type: 'B', status: 'True', reason: 'Done' }] } },
  },
  {
    it: 'takes a value new to the object with its nulls and directives resolved',
    schema: podLikeSchema,
    original: pod({ replicas: 1 }),
    patch: { spec: { replicas: 3, containers: [{ name: 'a', image: null, env: [{ name: 'X', $patch: 'delete' }, { name: 'Y', value: 'y' }] }] } },
    result: pod({ replicas: 3, containers: [{ name: 'a', env: [{ name: 'Y', value: 'y' }] }] }),
  },
  {
    it: 'accepts $patch: merge on a map as the default',
    schema: configMapSchema,
    original: cm({}, { a: '1' }),
    patch: { data: { $patch: 'merge', b: '2' } },
    result: cm({}, { a: '1', b: '2' }),
  },
  {
    it: 'treats a field named like an Object.prototype member as an ordinary field',
    schema: configMapSchema,
    original: cm({}),
    patch: { constructor: [1], data: JSON.parse('{"__proto__": "x"}') },
    result: { ...cm({}), constructor: [1], data: JSON.parse('{"__proto__": "x"}') },
  },
];

/** apimachinery strategicpatch test vectors (patch_test.go), applied with the MergeItem schema. */
const apimachineryCases: Case[] = ([
  ['unique scalars when merging lists', { mergingIntList: [1, 2] }, { mergingIntList: [2, 3] }, { mergingIntList: [1, 2, 3] }],
  ['delete all items from merging list', { mergingList: [{ name: '1' }, { name: '2' }] }, { mergingList: [{ $patch: 'replace' }] }, { mergingList: [] }],
  ['merge empty merging lists', { mergingList: [] }, { mergingList: [] }, { mergingList: [] }],
  ['delete all keys from map', { name: '1', value: '1' }, { $patch: 'replace' }, {}],
  ['add key and delete all keys from map', { name: '1', value: '1' }, { other: 'a', $patch: 'replace' }, { other: 'a' }],
  ['delete all duplicate entries in a merging list',
    { mergingList: [{ name: '1' }, { name: '1' }, { name: '2', value: 'a' }, { name: '3' }, { name: '3' }] },
    { mergingList: [{ name: '1', $patch: 'delete' }, { name: '3', $patch: 'delete' }] },
    { mergingList: [{ name: '2', value: 'a' }] }],
  ['retainKeys map can add a field when no retainKeys directive present', { retainKeysMap: { name: 'foo' } }, { retainKeysMap: { value: 'bar' } }, { retainKeysMap: { name: 'foo', value: 'bar' } }],
  ['retainKeys map can delete a field when no retainKeys directive present', { retainKeysMap: { name: 'foo', value: 'a' } }, { retainKeysMap: { value: null } }, { retainKeysMap: { name: 'foo' } }],
  ['retainKeys map merge an empty map', { retainKeysMap: { name: 'foo', value: 'a' } }, { retainKeysMap: {} }, { retainKeysMap: { name: 'foo', value: 'a' } }],
  ['preserve the order from the patch in a merging list',
    { mergingList: [{ name: '1' }, { name: '2', value: 'b' }, { name: '3' }] },
    { mergingList: [{ name: '3', value: 'c' }, { name: '1', value: 'a' }, { name: '2', other: 'x' }] },
    { mergingList: [{ name: '3', value: 'c' }, { name: '1', value: 'a' }, { name: '2', value: 'b', other: 'x' }] }],
  ['preserve the order from the patch in a merging list 2',
    { mergingList: [{ name: '1' }, { name: '2', value: 'b' }, { name: '3' }] },
    { mergingList: [{ name: '3', value: 'c' }, { name: '1', value: 'a' }] },
    { mergingList: [{ name: '2', value: 'b' }, { name: '3', value: 'c' }, { name: '1', value: 'a' }] }],
  ['preserve the order from the patch in a merging int list', { mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1, 2] }, { mergingIntList: [3, 1, 2] }],
  ['preserve the order from the patch in a merging int list 2', { mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1] }, { mergingIntList: [2, 3, 1] }],
  ['$setElementOrder contains item that is not present in the list to be merged',
    { mergingList: [{ name: '1' }, { name: '3' }] },
    { '$setElementOrder/mergingList': [{ name: '3' }, { name: '2' }, { name: '1' }], mergingList: [{ name: '3', value: '3' }, { name: '1', value: '1' }] },
    { mergingList: [{ name: '3', value: '3' }, { name: '1', value: '1' }] }],
  ['$setElementOrder contains item that is not present in the int list to be merged',
    { mergingIntList: [1, 3] }, { '$setElementOrder/mergingIntList': [3, 2, 1] }, { mergingIntList: [3, 1] }],
  ['replaces a non-merging list', { nonMergingIntList: [1, 2] }, { nonMergingIntList: [3] }, { nonMergingIntList: [3] }],
] as [string, unknown, unknown, unknown][]).map(([it, original, patch, result]) => ({ it, schema: mergeItemSchema, original, patch, result }));

/** Deep-freezes a JSON value so that any write to it throws. */
function frozen<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const child of Object.values(v)) frozen(child);
    Object.freeze(v);
  }
  return v;
}

function failure(original: unknown, patch: unknown, schema: Schema): { code: number; reason: string; message: string } {
  try {
    applyStrategicMergePatch(original, patch, schema);
  } catch (e) {
    if (!isApiError(e)) throw e;
    return { code: e.code, reason: e.reason, message: e.message };
  }
  throw new Error(`expected ${JSON.stringify(patch)} to be rejected`);
}

describe('applyStrategicMergePatch', () => {
  const groups: [string, Case[]][] = [
    ['kubectl patch task page', taskPageCases],
    ['strategic merge patch design document', designDocCases],
    ['ObjectMeta, ConfigMap and Namespace schemas', servedSchemaCases],
    ['apimachinery strategicpatch vectors', apimachineryCases],
  ];
  for (const [group, cases] of groups) {
    describe(group, () => {
      for (const c of cases) {
        it(c.it, () => {
          // Frozen inputs: a write to either would throw.
          expect(applyStrategicMergePatch(frozen(c.original), frozen(c.patch), c.schema)).to.deep.equal(c.result);
        });
      }
    });
  }

  it('yields {} for a top-level $patch: delete', () => {
    expect(applyStrategicMergePatch(cm({}), { $patch: 'delete' }, configMapSchema)).to.deep.equal({});
  });

  it('shares no objects with the patch', () => {
    const patch = { metadata: { labels: { a: 'b' } }, data: { x: 'y' } };
    const out = applyStrategicMergePatch(cm({}), patch, configMapSchema) as { metadata: { labels: Record<string, string> } };
    out.metadata.labels.c = 'd';
    expect(patch.metadata.labels).to.deep.equal({ a: 'b' });
  });

  describe('malformed patches are 400 BadRequest', () => {
    const cases: [string, unknown, unknown, Schema, string][] = [
      ['a patch that is not an object', cm({}), [{ op: 'add' }], configMapSchema, 'must be a JSON object'],
      ['an unknown $patch in a map', cm({}), { data: { $patch: 'remove' } }, configMapSchema, 'unknown $patch directive "remove"'],
      ['an unknown $patch in a list element', pod({ containers: [] }), { spec: { containers: [{ name: 'a', $patch: 'upsert' }] } }, podLikeSchema, 'unknown $patch directive "upsert"'],
      ['$patch: merge in a list element', pod({ containers: [{ name: 'a' }] }), { spec: { containers: [{ name: 'a', $patch: 'merge' }] } }, podLikeSchema, '$patch: merge cannot be given for a list element'],
      ['a merging-list element without its merge key', pod({ containers: [{ name: 'a' }] }), { spec: { containers: [{ image: 'x' }] } }, podLikeSchema, 'does not contain the declared merge key "name"'],
      ['a $patch: delete element without its merge key', cm({ ownerReferences: [ref('u1')] }), { metadata: { ownerReferences: [{ $patch: 'delete', name: 'n-u1' }] } }, configMapSchema, 'merge key "uid"'],
      ['$setElementOrder on a list that does not merge', pod({ tolerations: [] }), { spec: { '$setElementOrder/tolerations': [] } }, podLikeSchema, 'only allowed for a list with the merge patch strategy'],
      ['$setElementOrder without a field', cm({}), { metadata: { $setElementOrder: ['a'] } }, configMapSchema, 'want $setElementOrder/<field>'],
      ['$setElementOrder that is not a list', cm({}), { metadata: { '$setElementOrder/finalizers': 'a' } }, configMapSchema, 'must be a list'],
      ['$setElementOrder elements without the merge key', pod({}), { spec: { '$setElementOrder/containers': [{ image: 'x' }] } }, podLikeSchema, 'merge key "name"'],
      ['$setElementOrder contradicting the patch list', { mergingIntList: [1, 3, 2] }, { '$setElementOrder/mergingIntList': [1, 2, 3], mergingIntList: [3, 1] }, mergeItemSchema, 'does not match its $setElementOrder list'],
      ['$retainKeys that is not a list of names', pod({ strategy: {} }), { spec: { strategy: { $retainKeys: 'type' } } }, podLikeSchema, '$retainKeys must be a list'],
      ['a patch field missing from $retainKeys', pod({ strategy: {} }), { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: {} } } }, podLikeSchema, 'field "rollingUpdate" is in the patch but not in $retainKeys'],
      ['$deleteFromPrimitiveList that is not a list of primitives', cm({ finalizers: ['a'] }), { metadata: { '$deleteFromPrimitiveList/finalizers': [{ a: 1 }] } }, configMapSchema, 'list of primitive values'],
      ['$deleteFromPrimitiveList on a list of objects', pod({ containers: [] }), { spec: { '$deleteFromPrimitiveList/containers': ['a'] } }, podLikeSchema, 'only allowed for a list of primitive values'],
    ];
    for (const [what, original, patch, schema, detail] of cases) {
      it(what, () => {
        const err = failure(original, patch, schema);
        expect(err.code).to.equal(400);
        expect(err.reason).to.equal('BadRequest');
        expect(err.message).to.include(detail);
      });
    }
  });

  describe('patches whose lists cannot merge with the object are 422 Invalid', () => {
    const cases: [string, unknown, unknown, Schema, string][] = [
      ['a list of lists', { mergingIntList: [1] }, { mergingIntList: [[2]] }, mergeItemSchema, 'lists of lists are not supported'],
      ['objects mixed with primitives', cm({ finalizers: ['a'] }), { metadata: { finalizers: [{ name: 'b' }] } }, configMapSchema, 'list element types are not identical'],
    ];
    for (const [what, original, patch, schema, detail] of cases) {
      it(what, () => {
        const err = failure(original, patch, schema);
        expect(err.code).to.equal(422);
        expect(err.reason).to.equal('Invalid');
        expect(err.message).to.include(detail);
      });
    }
  });
});

describe('isStrategicMergeSupported', () => {
  it('is true for kinds with a structural schema', () => {
    expect(isStrategicMergeSupported(configMapSchema)).to.equal(true);
    expect(isStrategicMergeSupported(podLikeSchema)).to.equal(true);
  });

  it('is false without a schema or for an unstructured one', () => {
    expect(isStrategicMergeSupported(undefined)).to.equal(false);
    expect(isStrategicMergeSupported({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true })).to.equal(false);
    expect(isStrategicMergeSupported({ type: 'object' })).to.equal(false);
  });
});
