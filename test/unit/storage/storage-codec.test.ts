/**
 * The stored JSON layout and the byte splicing that serves lists and gets without a parse: what
 * comes out must be exactly the object with its resourceVersion, or nothing (then the caller decodes).
 */
import { expect } from 'chai';
import { decodeFromStorage, decodeStoredIdentity, decodeStoredMetadata, encodeForStorage, joinJson, servedJson, servedJsonOf } from '../../../lib/storage/storage-codec';
import { ObjectMeta } from '../../../lib/scheme/types';

/** The served bytes of a stored value, as a get answers them (without the trailing newline). */
const jsonWithResourceVersion = (value: Buffer, rv: number) => {
  const served = servedJson(value, rv);
  return served && joinJson('', [served], '');
};

const configMap = {
  apiVersion: 'v1', kind: 'ConfigMap',
  metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '7', labels: { x: 'y' } },
  data: { 'metadata': '{"kind":"x","metadata":{}}', quote: 'a"b\\c' },
};

describe('storage codec: served JSON from stored bytes', () => {
  it('splices the resourceVersion into the stored bytes: the result parses to the decoded object', () => {
    const stored = encodeForStorage(configMap);
    expect(JSON.parse(stored.toString()).metadata).to.not.have.property('resourceVersion');
    const served = jsonWithResourceVersion(stored, 42);
    expect(served).to.not.equal(undefined);
    expect(JSON.parse(served!.toString())).to.deep.equal(decodeFromStorage(stored, 42));
    expect(JSON.parse(served!.toString()).metadata.resourceVersion).to.equal('42');
  });

  it('stores apiVersion, kind and metadata first and no resourceVersion, whatever the object\'s order', () => {
    const { resourceVersion: _rv, ...meta } = configMap.metadata;
    const want = `{"apiVersion":"v1","kind":"ConfigMap","metadata":${JSON.stringify(meta)},"data":${JSON.stringify(configMap.data)}}`;
    const shapes = [
      { ...configMap, metadata: meta }, // already in the stored form
      configMap, // with a resourceVersion
      { data: configMap.data, metadata: meta, kind: 'ConfigMap', apiVersion: 'v1' },
      { kind: 'ConfigMap', apiVersion: 'v1', metadata: meta, data: configMap.data },
      { apiVersion: 'v1', kind: 'ConfigMap', data: configMap.data, metadata: meta },
    ];
    for (const obj of shapes) expect(encodeForStorage(obj).toString(), JSON.stringify(obj)).to.equal(want);
  });

  it('handles empty metadata (no trailing comma)', () => {
    const stored = Buffer.from('{"apiVersion":"v1","kind":"Namespace","metadata":{},"spec":{}}');
    expect(JSON.parse(jsonWithResourceVersion(stored, 5)!.toString())).to.deep.equal({
      apiVersion: 'v1', kind: 'Namespace', metadata: { resourceVersion: '5' }, spec: {},
    });
  });

  it('writes every resourceVersion exactly, at each number of digits', () => {
    const stored = encodeForStorage(configMap);
    const empty = Buffer.from('{"apiVersion":"v1","kind":"Namespace","metadata":{},"spec":{}}');
    for (const rv of [1, 9, 10, 99, 100, 12345, 999999, 1000000, 2 ** 31, 2 ** 53 - 1]) {
      for (const value of [stored, empty]) {
        const served = jsonWithResourceVersion(value, rv)!;
        expect(served.length, `${rv}`).to.equal(servedJson(value, rv)!.length);
        expect(JSON.parse(served.toString()), `${rv}`).to.deep.equal(decodeFromStorage(value, rv));
      }
    }
  });

  it('remembers on a stored key where its resourceVersion goes, and serves the same bytes', () => {
    const kv = { key: '/registry/configmaps/ns/a', value: encodeForStorage(configMap), createRevision: 3, modRevision: 42 };
    const first = joinJson('', [servedJsonOf(kv)!], '');
    expect(kv).to.have.property('jsonSpliceAt').that.is.above(0);
    expect(joinJson('', [servedJsonOf(kv)!], '').equals(first)).to.equal(true);
    expect(first.equals(jsonWithResourceVersion(kv.value, 42)!)).to.equal(true);
    const other = { key: 'k', value: Buffer.from('{"kind":"X","apiVersion":"v1","metadata":{}}'), createRevision: 1, modRevision: 1 };
    expect(servedJsonOf(other)).to.equal(undefined);
    expect(other).to.have.property('jsonSpliceAt', -1);
    expect(servedJsonOf(other)).to.equal(undefined);
  });

  it('refuses values in another layout, so that the caller decodes them instead', () => {
    for (const text of [
      '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}',
      '{"apiVersion":"v1","metadata":{"ownerReferences":[{"kind":"X"}]},"kind":"ConfigMap"}',
      '{"apiVersion":"v1","kind":"ConfigMap","data":{"metadata":{}}}',
      '{"apiVersion":"v\\"1","kind":"ConfigMap","metadata":{}}',
      '{"apiVersion":"v1"',
      'k8s\u0000garbage',
    ]) {
      expect(servedJson(Buffer.from(text), 3), text).to.equal(undefined);
    }
  });

  it('joins items (spliced and plain) into one list body', () => {
    const a = encodeForStorage({ ...configMap, metadata: { ...configMap.metadata, name: 'a' } });
    const b = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', resourceVersion: '9' } }));
    const body = joinJson('{"kind":"ConfigMapList","items":[', [servedJson(a, 8)!, b], ']}\n');
    const parsed = JSON.parse(body.toString());
    expect(parsed.items.map((i: { metadata: { name: string; resourceVersion: string } }) => [i.metadata.name, i.metadata.resourceVersion]))
      .to.deep.equal([['a', '8'], ['b', '9']]);
    expect(body.toString().endsWith(']}\n')).to.equal(true);
    expect(JSON.parse(joinJson('{"items":[', [], ']}').toString())).to.deep.equal({ items: [] });
  });

  it('decodes the metadata alone, equal to the full decode\'s, whatever the strings in it hold', () => {
    const obj = {
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: {
        name: 'a', namespace: 'ns', uid: 'u1', labels: { 'x/y': 'z' },
        annotations: { tricky: '} ] { [ \\" \\ "quoted" ünïcødé 🙂' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u0', controller: true }],
        finalizers: ['f'], managedFields: [{ manager: 'm', fieldsV1: { 'f:data': { 'f:k': {} } } }],
      },
      data: { k: '"metadata":{}' },
    };
    const stored = encodeForStorage(obj);
    expect(decodeStoredMetadata(stored, 9)).to.deep.equal(decodeFromStorage(stored, 9).metadata);
    expect(decodeStoredMetadata(Buffer.from('{"apiVersion":"v1","kind":"Namespace","metadata":{},"spec":{}}'), 4)).to.deep.equal({ resourceVersion: '4' });
    expect(decodeStoredMetadata(Buffer.from('{"kind":"X","apiVersion":"v1","metadata":{"name":"a"}}'), 1)).to.equal(undefined);
    expect(decodeStoredMetadata(Buffer.from('{"apiVersion":"v1","kind":"X","metadata":{"name":"a"'), 1)).to.equal(undefined);
  });

  it('reads the identity (uid, name, namespace) of metadata\'s own members only, in any member order', () => {
    const identity = (m: Record<string, unknown> | undefined) => m && { uid: m.uid, name: m.name, namespace: m.namespace, resourceVersion: m.resourceVersion };
    const metas: Record<string, unknown>[] = [
      { name: 'a', namespace: 'ns', uid: 'u1' },
      // Members named like the identity inside nested values, with brackets and quotes in strings.
      { labels: { uid: 'not-it', name: 'x' }, annotations: { namespace: '} ] { [ \\" "q" ünï 🙂' }, name: 'b', managedFields: [{ fieldsV1: { 'f:metadata': { 'f:uid': {} } } }], uid: 'u2', namespace: 'n2' },
      // Cluster-scoped: no namespace; numbers and literals between.
      { generation: 3, deletionGracePeriodSeconds: null, name: 'ñame', uid: 'u3', creationTimestamp: '2026-01-01T00:00:00Z' },
    ];
    for (const metadata of metas) {
      const stored = encodeForStorage({ apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { uid: 'in-data' } });
      const want = identity(decodeFromStorage(stored, 7).metadata as Record<string, unknown>);
      const got = decodeStoredIdentity(stored, 7);
      expect(got, JSON.stringify(metadata)).to.deep.equal(JSON.parse(JSON.stringify(want)));
    }
    // Missing, escaped or non-string identity: undefined, so the caller decodes in full.
    const undecided: Record<string, unknown>[] = [
      { name: 'a' },
      { uid: 'u', name: 'we"ird' },
      { uid: 'u', name: 7 },
    ];
    for (const metadata of undecided) {
      expect(decodeStoredIdentity(encodeForStorage({ apiVersion: 'v1', kind: 'ConfigMap', metadata: metadata as ObjectMeta }), 1), JSON.stringify(metadata)).to.equal(undefined);
    }
    expect(decodeStoredIdentity(Buffer.from('{"kind":"X","apiVersion":"v1","metadata":{"name":"a","uid":"u"}}'), 1)).to.equal(undefined);
    expect(decodeStoredIdentity(Buffer.from('{"apiVersion":"v1","kind":"X","metadata":{"name":"a","labels":{"uid":"u"'), 1)).to.equal(undefined);
  });
});
