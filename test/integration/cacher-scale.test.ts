/**
 * The watch cache's performance targets against a real etcd: 1,000 watchers on one resource
 * with p99 delivery under 100 ms, and consistent gets at concurrency 64 faster than the same
 * gets from etcd (one freshness check serves many concurrent reads).
 */
import { expect } from 'chai';
import { performance } from 'perf_hooks';
import { Etcd3 } from 'etcd3';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { eventually } from '../helpers/server-harness';
import { createEtcdClient } from '../../lib/storage/etcd3/client';
import { Etcd3Storage } from '../../lib/storage/etcd3/store';
import { EtcdKvClient } from '../../lib/storage/etcd3/kv-client';
import { StorageEvent } from '../../lib/storage/interfaces';
import { Cacher } from '../../lib/storage/cacher/cacher';
import { Etcd3Probe } from '../../lib/storage/cacher/etcd3-probe';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

describe('Cacher at scale', function () {
  this.timeout(120_000);
  let etcd: TestEtcd;
  let client: Etcd3;
  let kv: EtcdKvClient;
  let storage: Etcd3Storage;
  let cacher: Cacher | undefined;

  before(async () => {
    etcd = await startTestEtcd();
    client = createEtcdClient({ endpoints: [etcd.endpoint] });
    kv = new EtcdKvClient({ endpoints: [etcd.endpoint] });
    storage = new Etcd3Storage(kv);
  });
  afterEach(async () => {
    await cacher?.stop();
    cacher = undefined;
  });
  after(async () => {
    await storage?.close();
    client?.close();
    await etcd?.stop();
  });

  it('delivers to 1,000 watchers of one resource with p99 latency under 100 ms', async () => {
    const c = (cacher = new Cacher(storage, '/scale/cms/', { probe: new Etcd3Probe(kv) }));
    await c.start();
    const writtenAt = new Map<string, number>();
    const latencies: number[] = [];
    const errors: Error[] = [];
    const onEvents = (events: StorageEvent[]) => {
      const now = performance.now();
      for (const e of events) latencies.push(now - writtenAt.get(e.key)!);
    };
    for (let i = 0; i < 1000; i++) {
      const handlers = { onEvents, onError: (err: Error) => void errors.push(err) };
      if (i % 2) c.watch('/scale/cms/', c.revision, handlers);
      else c.watchWithInitialState('/scale/cms/', handlers);
    }
    const writes = 200;
    for (let i = 0; i < writes; i++) {
      const key = `/scale/cms/ns${i % 10}/cm${i}`;
      writtenAt.set(key, performance.now());
      await client.put(key).value('x'.repeat(512)).exec();
      await sleep(5);
    }
    await eventually(async () => latencies.length === writes * 1000, 30_000, 20);
    const p99 = percentile(latencies, 0.99);
    console.log(`      1,000 watchers x ${writes} writes: p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`);
    expect(errors).to.deep.equal([]);
    expect(p99).to.be.below(100);
  });

  it('serves consistent gets at concurrency 64 faster than etcd serves the same gets', async () => {
    const keys = Array.from({ length: 500 }, (_, i) => `/bench/cms/ns${i % 5}/cm${i}`);
    for (const key of keys) await client.put(key).value('x'.repeat(1024)).exec();
    const c = (cacher = new Cacher(storage, '/bench/cms/', { probe: new Etcd3Probe(kv) }));
    await c.start();
    // Another resource is written meanwhile, so the cache cannot take freshness for granted.
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        await client.put(`/bench/other/k${i % 50}`).value('v').exec();
        await sleep(2);
      }
    })();
    const perWorker = 100;
    async function run(get: (key: string) => Promise<unknown>): Promise<number> {
      const t0 = performance.now();
      await Promise.all(Array.from({ length: 64 }, async (_, w) => {
        for (let i = 0; i < perWorker; i++) {
          const got = await get(keys[(w * perWorker + i) % keys.length]);
          if (!got) throw new Error('no answer');
        }
      }));
      return performance.now() - t0;
    }
    const fromEtcd = (key: string) => storage.get(key).then((r) => r.kv);
    const fromCache = (key: string) => c.getConsistent(key).then((r) => r?.kv);
    await run(fromEtcd); // warm up both paths
    await run(fromCache);
    const etcdMs = await run(fromEtcd);
    const cacheMs = await run(fromCache);
    writing = false;
    await writer;
    console.log(`      64 x ${perWorker} consistent gets: etcd ${etcdMs.toFixed(0)} ms, cache ${cacheMs.toFixed(0)} ms`);
    expect(cacheMs).to.be.below(etcdMs);
  });
});
