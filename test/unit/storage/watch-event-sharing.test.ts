/**
 * The watch path's shared work on one change (issue 45): the watch cache's field index and every
 * watch stream of the change use one decoding of it (counted with a counting decoder), which is
 * never mutated (it is frozen here while the streams shape, select and encode it); and streams
 * of one representation share one encoding of it, while other formats and versions each get
 * their own.
 */
import { expect } from 'chai';
import * as codec from '../../../lib/storage/storage-codec';
import { CacheStore } from '../../../lib/storage/cacher/cache-store';
import { CacheIndex } from '../../../lib/storage/cacher/field-index';
import { objectAfter, objectBefore } from '../../../lib/storage/cacher/event-objects';
import { StorageEvent } from '../../../lib/storage/interfaces';
import { decodeEvent, encodedOnce } from '../../../lib/api/shared-events';
import { watchEncoder } from '../../../lib/api/watch-encoder';
import { negotiateResponse, registerProtobufSerializer, registeredProtobufSerializer } from '../../../lib/api/negotiation';
import { protobufSerializer } from '../../../lib/api/protobuf-serializer';
import { builtinResources } from '../../../lib/registry/builtin';
import { namingFor } from '../../../lib/naming';
import { ApiObject } from '../../../lib/scheme/types';

const podJson = (node: string, seq: number) => Buffer.from(JSON.stringify({
  metadata: { name: 'p', namespace: 'ns', labels: { app: 'a' }, annotations: { seq: String(seq) } },
  spec: { nodeName: node, containers: [{ name: 'main', image: 'registry.example.com/app:1' }] },
}));
const put = (node: string, revision: number, created = false): StorageEvent =>
  ({ type: 'put', key: '/registry/pods/ns/p', value: podJson(node, revision), revision, created });
const INDEX: CacheIndex = { field: 'spec.nodeName', valueOf: (object) => String((object().spec as { nodeName?: string }).nodeName ?? '') };
/** What a store's output does: kind and apiVersion on a copy. */
const outputAs = (apiVersion: string) => (obj: ApiObject): ApiObject => ({ apiVersion, kind: 'Pod', ...obj });

function deepFreeze<T>(obj: T): T {
  if (obj && typeof obj === 'object' && !Object.isFrozen(obj)) {
    Object.freeze(obj);
    for (const v of Object.values(obj)) deepFreeze(v);
  }
  return obj;
}

describe('watch events: one decoding, one encoding per representation', () => {
  const real = codec.decodeFromStorage;
  let decodes = 0;
  beforeEach(() => {
    decodes = 0;
    (codec as { decodeFromStorage: typeof real }).decodeFromStorage = (value, revision) => {
      decodes++;
      return real(value, revision);
    };
  });
  afterEach(() => { (codec as { decodeFromStorage: typeof real }).decodeFromStorage = real; });

  it('decodes a put once for the index and every watcher of every served version', () => {
    const store = new CacheStore(INDEX);
    store.replace([]);
    const ev = put('n1', 2, true);
    expect(store.apply([ev])).to.deep.equal([{ before: undefined, after: 'n1' }]);
    expect(decodes).to.equal(1);
    for (let i = 0; i < 100; i++) {
      const v1 = decodeEvent(ev, outputAs('v1'));
      const served = decodeEvent(ev, outputAs('v1beta1'), 'v1beta1');
      expect(v1.next).to.include({ apiVersion: 'v1', kind: 'Pod' });
      expect(served.next).to.include({ apiVersion: 'v1beta1' });
      expect(v1.prev()).to.equal(undefined);
    }
    expect(decodes).to.equal(1);
  });

  it('takes an update\'s previous object from the previous change\'s decoding, at the update\'s revision', () => {
    const store = new CacheStore(INDEX);
    store.replace([]);
    // The ring holds the changes (and so their decodings) as long as they may be replayed.
    const ring = [put('n1', 2, true), put('n2', 3)];
    store.apply([ring[0]]);
    expect(store.apply([ring[1]])).to.deep.equal([{ before: 'n1', after: 'n2' }]);
    expect(decodes).to.equal(2);
    const update = ring[1];
    // A watcher without selectors needs only the new object: the index decoded it already.
    expect(decodeEvent(update, outputAs('v1')).next?.spec).to.include({ nodeName: 'n2' });
    // A selector needs the previous one too: the create's decoding, relabelled with the update's revision.
    for (let i = 0; i < 10; i++) {
      const prev = decodeEvent(update, outputAs('v1')).prev();
      expect(prev?.spec).to.include({ nodeName: 'n1' });
      expect(prev?.metadata?.resourceVersion).to.equal('3');
      expect(decodeEvent(update, outputAs('v1beta1'), 'v1beta1').prev()?.apiVersion).to.equal('v1beta1');
    }
    expect(objectAfter(ring[0])?.metadata?.resourceVersion).to.equal('2');
    expect(decodes).to.equal(2);
    // A delete carries the deleted state (filled by the store): the update's decoding.
    const del: StorageEvent = { type: 'delete', key: update.key, value: Buffer.alloc(0), revision: 4, created: false };
    store.apply([del]);
    expect(objectAfter(del)).to.equal(undefined);
    expect(objectBefore(del)?.spec).to.include({ nodeName: 'n2' });
    expect(objectBefore(del)?.metadata?.resourceVersion).to.equal('4');
    expect(decodes).to.equal(2);
  });

  it('decodes the previous object, once, when no decoding of it is at hand', () => {
    // An update whose previous bytes were never decoded (they came from the cache's initial list).
    const ev: StorageEvent = { ...put('n2', 5), prevValue: podJson('n1', 4) };
    for (let i = 0; i < 10; i++) expect(decodeEvent(ev, outputAs('v1')).prev()?.spec).to.include({ nodeName: 'n1' });
    expect(objectBefore(ev)?.metadata?.resourceVersion).to.equal('5');
    // The new object and the previous one, each once.
    expect(decodes).to.equal(2);
  });

  it('never mutates the shared decoding while shaping, selecting and encoding it in every format', () => {
    const registered = registeredProtobufSerializer();
    registerProtobufSerializer(protobufSerializer);
    try {
      const def = builtinResources(namingFor('kubernetes')).find((d) => d.resource === 'pods' && d.group === '' && d.version === 'v1')!;
      const ev = put('n1', 2, true);
      deepFreeze(objectAfter(ev));
      const accepts = ['application/json', 'application/vnd.kubernetes.protobuf', 'application/json;as=Table;v=v1;g=meta.k8s.io',
        'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io'];
      for (const accept of accepts) {
        const encoder = watchEncoder(def, negotiateResponse(accept, 'watch', { apiVersion: 'v1', kind: 'Pod' }), '');
        const next = decodeEvent(ev, outputAs('v1')).next!;
        expect(encoder.encode({ type: 'ADDED', object: next }).length, accept).to.be.above(0);
      }
    } finally {
      registerProtobufSerializer(registered);
    }
  });

  it('shares one encoding among the streams of a representation; formats and meta versions apart; Tables per stream', () => {
    const registered = registeredProtobufSerializer();
    registerProtobufSerializer(protobufSerializer);
    try {
      const def = builtinResources(namingFor('kubernetes')).find((d) => d.resource === 'pods' && d.group === '' && d.version === 'v1')!;
      const keyOf = (accept: string, query = '') => watchEncoder(def, negotiateResponse(accept, 'watch', { apiVersion: 'v1', kind: 'Pod' }), query).shareKey;
      const json = keyOf('application/json');
      const protobuf = keyOf('application/vnd.kubernetes.protobuf');
      const partialV1 = keyOf('application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io');
      const partialV1beta1 = keyOf('application/json;as=PartialObjectMetadata;v=v1beta1;g=meta.k8s.io');
      const partialPb = keyOf('application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;v=v1;g=meta.k8s.io');
      const keys = [json, protobuf, partialV1, partialV1beta1, partialPb];
      for (const k of keys) expect(k).to.be.a('string');
      expect(new Set(keys).size).to.equal(keys.length);
      expect(keyOf('application/json')).to.equal(json);
      expect(keyOf('application/json;as=Table;v=v1;g=meta.k8s.io')).to.equal(undefined);

      // 1,000 streams of each representation: one encoding each, the same bytes for all of its streams.
      const object = decodeEvent(put('n1', 2, true), outputAs('v1')).next!;
      const made = new Map<string, number>();
      const bytes = new Map<string, Set<Buffer>>();
      for (let stream = 0; stream < 1000; stream++) {
        for (const accept of ['application/json', 'application/vnd.kubernetes.protobuf', 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io']) {
          const encoder = watchEncoder(def, negotiateResponse(accept, 'watch', { apiVersion: 'v1', kind: 'Pod' }), '');
          const b = encodedOnce(object, `${encoder.shareKey}|ADDED`, () => {
            made.set(accept, (made.get(accept) ?? 0) + 1);
            return encoder.encode({ type: 'ADDED', object });
          });
          if (!bytes.has(accept)) bytes.set(accept, new Set());
          bytes.get(accept)!.add(b);
        }
      }
      expect([...made.values()]).to.deep.equal([1, 1, 1]);
      expect([...bytes.values()].map((s) => s.size)).to.deep.equal([1, 1, 1]);
      const [j, p, m] = [...bytes.values()].map((s) => [...s][0]);
      expect(JSON.parse(j.toString())).to.deep.include({ type: 'ADDED' });
      expect(JSON.parse(j.toString()).object).to.include({ kind: 'Pod', apiVersion: 'v1' });
      expect(p.equals(j)).to.equal(false);
      expect(JSON.parse(m.toString()).object).to.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
    } finally {
      registerProtobufSerializer(registered);
    }
  });
});
