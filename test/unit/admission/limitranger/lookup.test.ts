/**
 * Where LimitRanger finds a namespace's LimitRanges (lib/admission/limitranger/lookup.ts): the
 * watch cache when it holds some, else Kubernetes' live lookup, an etcd read remembered for 30
 * seconds per namespace and shared by concurrent requests.
 */
import { expect } from 'chai';
import { LIVE_TTL_MS, LimitRangeLookup } from '../../../../lib/admission/limitranger/lookup';
import { encodeForStorage } from '../../../../lib/storage/storage-codec';
import { KeyValue } from '../../../../lib/storage/interfaces';
import type { GenericStore } from '../../../../lib/registry/store';

const PREFIX = '/registry/limitranges/';
const kv = (ns: string, name: string, rev: number): KeyValue => ({
  key: `${PREFIX}${ns}/${name}`, createRevision: rev, modRevision: rev, version: 1,
  value: encodeForStorage({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name, namespace: ns }, spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } }),
} as KeyValue);

/** A LimitRange store whose etcd and watch cache are lists the test changes. */
function fakeStore(etcd: KeyValue[], cache: { ready: boolean; kvs: KeyValue[] }) {
  const reads: string[] = [];
  const store = {
    collectionPrefix: (ns?: string) => (ns ? `${PREFIX}${ns}/` : PREFIX),
    deps: { cache: { get ready() { return cache.ready; }, list: (p: string) => ({ kvs: cache.kvs.filter((k) => k.key.startsWith(p)) }) } },
    storage: { range: async (p: string) => { reads.push(p); return { kvs: etcd.filter((k) => k.key.startsWith(p)) }; } },
  } as unknown as GenericStore;
  return { store, reads };
}

const names = (objs: Array<{ metadata?: { name?: string } }>) => objs.map((o) => o.metadata?.name);

describe('LimitRanger lookup', () => {
  it('reads the watch cache when it holds LimitRanges of the namespace, without touching etcd', async () => {
    const { store, reads } = fakeStore([], { ready: true, kvs: [kv('team', 'a', 5), kv('other', 'b', 6)] });
    const lookup = new LimitRangeLookup(() => store);
    expect(names(await lookup.forNamespace('team'))).to.deep.equal(['a']);
    expect(reads).to.deep.equal([]);
  });

  it('reads etcd when the cache has none (a LimitRange just created), and remembers it for 30 s', async () => {
    const etcd = [kv('team', 'fresh', 7)];
    const cache = { ready: true, kvs: [] as KeyValue[] };
    const { store, reads } = fakeStore(etcd, cache);
    let now = 1_000_000;
    const lookup = new LimitRangeLookup(() => store, () => now);
    expect(names(await lookup.forNamespace('team'))).to.deep.equal(['fresh']);
    expect(reads).to.deep.equal([`${PREFIX}team/`]);
    etcd.push(kv('team', 'second', 8));
    now += LIVE_TTL_MS - 1;
    expect(names(await lookup.forNamespace('team')), 'within the TTL').to.deep.equal(['fresh']);
    expect(reads).to.have.length(1);
    now += 2;
    expect(names(await lookup.forNamespace('team')), 'after the TTL').to.deep.equal(['fresh', 'second']);
    expect(reads).to.have.length(2);
  });

  it('shares one etcd read among concurrent requests for a namespace', async () => {
    const { store, reads } = fakeStore([kv('team', 'a', 5)], { ready: false, kvs: [] });
    const lookup = new LimitRangeLookup(() => store);
    const all = await Promise.all([lookup.forNamespace('team'), lookup.forNamespace('team'), lookup.forNamespace('team')]);
    expect(all.map(names)).to.deep.equal([['a'], ['a'], ['a']]);
    expect(reads).to.have.length(1);
  });

  it('reads etcd every time when the server runs without watch caches', async () => {
    const { store, reads } = fakeStore([kv('team', 'a', 5)], { ready: false, kvs: [] });
    (store.deps as { cache?: unknown }).cache = undefined;
    const lookup = new LimitRangeLookup(() => store);
    await lookup.forNamespace('team');
    await lookup.forNamespace('team');
    expect(reads).to.have.length(2);
  });

  it('finds nothing when LimitRanges are not served', async () => {
    expect(await new LimitRangeLookup(() => undefined).forNamespace('team')).to.deep.equal([]);
  });
});
