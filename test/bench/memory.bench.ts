/**
 * Benchmark E, memory: the server's RSS with 10,000 and 100,000 ConfigMaps of 1 KiB data (quick:
 * 10,000) in its watch cache, next to the JSON size of that data. The objects are written straight
 * into etcd in the server's layout and bytes (copies of one ConfigMap the server stored), in
 * transactions of many puts, so loading 100,000 takes seconds; the server's watch then delivers
 * them to the cache, as it would deliver writes from other API servers. RSS is read after a full
 * GC forced through the server's inspector: V8 alone may keep hundreds of MiB of freed heap for
 * half a minute.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Etcd3 } from 'etcd3';
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import { ApiClient } from './api-client';
import { PAYLOAD } from './crud-sides';
import { processMemory, settledRss } from './process-memory';
import { collectGarbage, remoteMemoryUsage } from './inspector-gc';

const NAME = 'memory';
const NAMESPACE = 'bench-memory';
/** An empty namespace: a list there with resourceVersion=R waits for the cache to reach R and returns nothing. */
const PROBE_NAMESPACE = 'bench-memory-probe';
/** etcd's default --max-txn-ops. */
const PUTS_PER_TXN = 128;
const TXNS_IN_FLIGHT = 4;
const MIB = 2 ** 20;
/**
 * Before the last reading of a full run the server is left idle this long, so that "before the
 * GC" is what an operator sees once the load is over: V8 keeps the garbage of the load until its
 * memory reducer runs, some seconds after allocation stops.
 */
const UNFORCED_IDLE_MS = 30_000;
/** Target (issue 7): RSS ≤ 2x the JSON size + 150 MiB. */
const targetBytes = (json: number) => 2 * json + 150 * MIB;

export const memoryBench: Benchmark = {
  name: NAME,
  description: 'server RSS with 10,000 and 100,000 ConfigMaps (1 KiB data) in the watch cache vs their JSON size',
  serverNodeArgs: ['--inspect=127.0.0.1:0'],
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const counts = ctx.quick ? [10_000] : [10_000, 100_000];
    // A quiet period, a full GC, then the minimum of a few readings (see settledRss).
    const settle = { waitMs: ctx.quick ? 1_000 : 2_000, samples: 4, intervalMs: 250 };
    const inspector = ctx.env.serverInspectorUrl;
    if (!inspector) ctx.log(`${NAME}: the server has no inspector; RSS is read without a forced GC`);
    const api = ctx.env.apiClient(1);
    const etcd = ctx.env.etcdClient();
    for (const name of [NAMESPACE, PROBE_NAMESPACE]) {
      await api.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    /** `idleMs`: how long the server is left alone first (V8's memory reducer runs after some seconds without allocation). */
    const rss = async (idleMs = settle.waitMs) => {
      await new Promise((r) => setTimeout(r, idleMs));
      const asFound = processMemory(ctx.env.serverPid).rss;
      const heapBefore = inspector ? heapOf(await remoteMemoryUsage(inspector)) : '';
      if (inspector) await collectGarbage(inspector);
      const heapAfter = inspector ? heapOf(await remoteMemoryUsage(inspector)) : '';
      return { asFound, idleMs, heapBefore, heapAfter, ...await settledRss(ctx.env.serverPid, settle.samples, settle.intervalMs) };
    };
    const how = `${inspector ? 'after a full GC, ' : ''}min of ${settle.samples} readings`;
    const idle = await rss();
    const rows: ResultRow[] = [{
      benchmark: NAME, metric: 'RSS with no ConfigMaps', unit: 'MiB', value: idle.min / MIB,
      note: `server idle after start-up; ${how} (before the GC ${(idle.asFound / MIB).toFixed(0)} MiB)`,
    }];

    // One ConfigMap through the server: its stored bytes are the template for all the others.
    await api.json('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-0000000' }, data: { payload: PAYLOAD } }, 201);
    const stored = await etcd.kv.range({ key: Buffer.from(`/registry/configmaps/${NAMESPACE}/cm-0000000`) });
    if (stored.kvs.length !== 1) throw new Error('the server did not store the ConfigMap under /registry/configmaps/');
    const template = JSON.parse(stored.kvs[0].value.toString('utf8'));
    let loaded = 1;
    let jsonBytes = stored.kvs[0].value.length;

    for (const count of counts) {
      ctx.log(`${NAME}: writing ${count - loaded} ConfigMaps into etcd (${PUTS_PER_TXN} puts per txn)`);
      const t0 = performance.now();
      const written = await load(etcd, template, loaded, count);
      const loadMs = performance.now() - t0;
      jsonBytes += written.bytes;
      loaded = count;
      await waitForCache(api, written.revision);
      const cacheMs = performance.now() - t0 - loadMs;
      await checkCount(api, count);
      ctx.log(`${NAME}: ${count} in the cache; reading RSS${count === counts[counts.length - 1] && !ctx.quick ? ` after ${UNFORCED_IDLE_MS / 1000} s idle` : ''}`);
      // The last step also shows what an operator sees without a forced GC, once V8 has had time.
      const m = await rss(count === counts[counts.length - 1] && !ctx.quick ? UNFORCED_IDLE_MS : settle.waitMs);
      const bound = targetBytes(jsonBytes);
      rows.push({
        benchmark: NAME, metric: `RSS with ${count.toLocaleString('en-US')} ConfigMaps (1 KiB)`, unit: 'MiB', value: m.min / MIB, baseline: jsonBytes / MIB,
        ...target(`≤ ${(bound / MIB).toFixed(0)} MiB (2x JSON + 150 MiB)`, m.min <= bound),
        note: `baseline: JSON size as stored; growth over idle ${((m.min - idle.min) / MIB).toFixed(0)} MiB = `
          + `${((m.min - idle.min) / jsonBytes).toFixed(2)}x JSON; ${how}; before the GC ${(m.asFound / MIB).toFixed(0)} MiB `
          + `(server left idle ${(m.idleMs / 1000).toFixed(0)} s), `
          + `peak so far ${(m.peak / MIB).toFixed(0)} MiB; `
          + (inspector ? `before the GC ${m.heapBefore}, after it ${m.heapAfter}; ` : '')
          + `etcd load ${(loadMs / 1000).toFixed(1)} s, cache caught up ${(cacheMs / 1000).toFixed(1)} s later`,
      });
    }
    return rows;
  },
};

/** V8's heap (used of total) and the memory outside it (Buffers and other external memory), MiB. */
function heapOf(m: NodeJS.MemoryUsage): string {
  const mib = (n: number) => (n / MIB).toFixed(0);
  return `V8 heap ${mib(m.heapUsed)} of ${mib(m.heapTotal)} MiB, external ${mib(m.external)} MiB`;
}

/**
 * Puts ConfigMaps `cm-<from>` .. `cm-<to - 1>`, each the template with its own name and uid, in
 * transactions of PUTS_PER_TXN. Returns the bytes written and the last revision.
 */
async function load(etcd: Etcd3, template: any, from: number, to: number): Promise<{ bytes: number; revision: number }> {
  let next = from;
  let bytes = 0;
  let revision = 0;
  const worker = async () => {
    while (next < to) {
      const first = next;
      next = Math.min(to, next + PUTS_PER_TXN);
      const puts = [];
      for (let i = first; i < next; i++) {
        const name = `cm-${String(i).padStart(7, '0')}`;
        const value = Buffer.from(JSON.stringify({ ...template, metadata: { ...template.metadata, name, uid: randomUUID() } }));
        bytes += value.length;
        puts.push({ request_put: { key: Buffer.from(`/registry/configmaps/${NAMESPACE}/${name}`), value } });
      }
      const res = await etcd.kv.txn({ compare: [], success: puts, failure: [] });
      revision = Math.max(revision, Number(res.header.revision));
    }
  };
  await Promise.all(Array.from({ length: TXNS_IN_FLIGHT }, worker));
  return { bytes, revision };
}

/** Waits until the configmaps cache has reached `revision` (each list with resourceVersion=R waits up to ~3 s, then 504). */
async function waitForCache(api: ApiClient, revision: number): Promise<void> {
  const deadline = performance.now() + 300_000;
  for (;;) {
    const res = await api.request('GET', `/api/v1/namespaces/${PROBE_NAMESPACE}/configmaps?resourceVersion=${revision}`);
    if (res.status === 200) return;
    if (res.status !== 504 || performance.now() > deadline) {
      throw new Error(`waiting for the cache to reach ${revision}: ${res.status} ${res.body.toString('utf8').slice(0, 300)}`);
    }
  }
}

/** A consistent list of one item: its remainingItemCount tells how many ConfigMaps etcd holds. */
async function checkCount(api: ApiClient, want: number): Promise<void> {
  const list = await api.json('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps?limit=1`);
  // Every namespace also holds the root-CA ConfigMap (its publisher's).
  const rootCa = (await api.request('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps/orch-root-ca.crt`)).status === 200 ? 1 : 0;
  const have = list.items.length + (list.metadata.remainingItemCount ?? 0) - rootCa;
  if (have !== want) throw new Error(`${want} ConfigMaps written, the server lists ${have}`);
}
