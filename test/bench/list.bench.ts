/**
 * Benchmark B, list: many 1 KiB ConfigMaps in one namespace, then the three list kinds over
 * HTTPS (consistent, resourceVersion=0, paginated), 1, 16 and 64 at a time, against raw etcd
 * ranges of the same keys at the same concurrency. Ratios are > 1 when the server is faster.
 */
import { Etcd3 } from 'etcd3';
import { Benchmark, BenchContext, matchesFocus, ResultRow, target } from './benchmark';
import { ApiClient } from './api-client';
import { LoopResult, timedLoop } from './latency';
import { cpuMeter } from './cpu-usage';

const NAME = 'list';
const NAMESPACE = 'bench-list';
const CREATE_CONCURRENCY = 32;
const PAGE = 500;
const PAYLOAD = '0123456789abcdef'.repeat(64);
const ETCD_PREFIX = `/registry/configmaps/${NAMESPACE}/`;
/** Target (issue 7): an RV=0 list of 10,000 ConfigMaps at least this many times the raw range's rate. */
const RV0_TARGET = 3;

/** Lists in flight at once, each kind measured at every one. */
const CONCURRENCIES = [1, 16, 64];

interface Measured {
  /** Kind and concurrency, as the rows name it. */
  label: string;
  kind: string;
  concurrency: number;
  server: LoopResult;
  raw: LoopResult;
  rawLabel: string;
  /** % of one core while the server loop ran. */
  cpu: { generator: number; server?: number };
}

export const listBench: Benchmark = {
  name: NAME,
  description: 'ConfigMap lists (consistent, RV=0, limit=500 pages) at concurrency 1/16/64 over HTTPS vs raw etcd ranges of the same keys',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const count = ctx.quick ? 2_000 : 10_000;
    // Each cell: up to this long per side (a list kind at one concurrency); c=1 gets longer in --quick.
    const loopAt = (concurrency: number) => ({
      durationMs: ctx.quick ? (concurrency === 1 ? 3_000 : 1_500) : 10_000,
      maxIterations: Math.max(ctx.quick ? 50 : 300, 2 * concurrency), minIterations: Math.max(3, concurrency), concurrency,
    });
    const base = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
    const writer = ctx.env.apiClient(CREATE_CONCURRENCY);
    // One keep-alive connection per list in flight, so a big body never waits behind another.
    const api = ctx.env.apiClient(Math.max(...CONCURRENCIES));
    // A range of 10,000 values is ~13 MB; 64 at once decoded by grpc-js took more than the
    // default 10 s deadline on a slow day, failing the whole benchmark: the baseline may take its time.
    const etcd = ctx.env.etcdClient(120_000);

    await writer.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    ctx.log(`${NAME}: creating ${count} ConfigMaps (concurrency ${CREATE_CONCURRENCY})`);
    const create = await timedLoop(async (i) => {
      await writer.json('POST', base, {
        apiVersion: 'v1', kind: 'ConfigMap',
        metadata: { name: `cm-${String(i).padStart(6, '0')}` },
        data: { payload: PAYLOAD },
      }, 201);
    }, { durationMs: Infinity, maxIterations: count, minIterations: count, concurrency: CREATE_CONCURRENCY });

    // One untimed call of each validates the item count and warms connections and caches.
    const kinds: Array<{ label: string; op: (validate: boolean) => Promise<number>; rawLabel: string; raw: () => Promise<number> }> = [
      { label: 'consistent list', op: (v) => fullList(api, base, v), rawLabel: 'etcd range', raw: () => rawRange(etcd) },
      { label: 'RV=0 list', op: (v) => fullList(api, `${base}?resourceVersion=0`, v), rawLabel: 'etcd range', raw: () => rawRange(etcd) },
      { label: `paginated list (limit=${PAGE})`, op: (v) => pagedList(api, base, v), rawLabel: `etcd range pages of ${PAGE}`, raw: () => rawPagedRange(etcd) },
    ];
    const measured: Measured[] = [];
    // The namespace also holds the root-CA ConfigMap its controller publishes (at some point during
    // the creates): the server's count is of this benchmark's items (by name), etcd's of every key.
    let stored = await rawRange(etcd);
    for (const until = Date.now() + 10_000; stored === count && Date.now() < until; stored = await rawRange(etcd)) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const ours = await rawRange(etcd, `${ETCD_PREFIX}cm-`);
    if (ours !== count) throw new Error(`etcd holds ${ours} of the benchmark's ConfigMaps, want ${count}`);
    for (const k of kinds) {
      const served = await k.op(true);
      if (served !== count) throw new Error(`${k.label} returned ${served} items, want ${count}`);
      const ranged = await k.raw();
      if (ranged !== stored) throw new Error(`${k.rawLabel} returned ${ranged} items, want ${stored}`);
      for (const concurrency of CONCURRENCIES) {
        if (ctx.focus && !matchesFocus(`${k.label} c=${concurrency}`, ctx.focus)) continue;
        ctx.log(`${NAME}: measuring ${k.label} and ${k.rawLabel}, concurrency ${concurrency}`);
        const raw = await timedLoop(async () => { await k.raw(); }, loopAt(concurrency));
        const meter = cpuMeter(ctx.env.serverPid);
        const server = await timedLoop(async () => { await k.op(false); }, loopAt(concurrency));
        measured.push({ label: `${k.label} c=${concurrency}`, kind: k.label, concurrency, server, raw, rawLabel: k.rawLabel, cpu: meter() });
      }
    }
    const bodyBytes = (await api.request('GET', base)).body.length;

    const rows: ResultRow[] = [{
      benchmark: NAME, metric: `create ${count} ConfigMaps (1 KiB)`, unit: 'ops/s', value: create.opsPerSec,
      note: `concurrency ${CREATE_CONCURRENCY}; POST p50 ${create.p50.toFixed(1)} ms, p99 ${create.p99.toFixed(1)} ms`,
    }];
    for (const m of measured) {
      const note = `${m.server.count} vs ${m.raw.count} iterations; baseline: ${m.rawLabel}; CPU % of a core: server ${m.cpu.server?.toFixed(0) ?? '?'}, load generator ${m.cpu.generator.toFixed(0)}`;
      const ratio = m.server.opsPerSec / m.raw.opsPerSec;
      const goal = m.kind === 'RV=0 list' && m.concurrency === 1 ? target(`≥ ${RV0_TARGET}x`, ratio >= RV0_TARGET) : {};
      rows.push({ benchmark: NAME, metric: `${m.label} throughput`, unit: 'ops/s', value: m.server.opsPerSec, baseline: m.raw.opsPerSec, ratio, ...goal, note });
      for (const stat of ['mean', 'p50', 'p99'] as const) {
        rows.push({ benchmark: NAME, metric: `${m.label} ${stat}`, unit: 'ms', value: m.server[stat], baseline: m.raw[stat], ratio: m.raw[stat] / m.server[stat] });
      }
    }
    rows.push({ benchmark: NAME, metric: 'list response size', unit: 'MB', value: bodyBytes / 1e6, note: `${count} items, JSON` });
    return rows;
  },
};

/**
 * A list in one response; the body is not parsed (that is the client's cost, not the server's).
 * Returns the item count when `validate`; else the body is only counted as it arrives (checked
 * against its Content-Length) and -1 is returned.
 */
async function fullList(api: ApiClient, path: string, validate: boolean): Promise<number> {
  const res = await api.request('GET', path, undefined, undefined, !validate);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.body.toString('utf8').slice(0, 300)}`);
  if (validate) return countItems(res.body);
  if (res.contentLength !== undefined && res.contentLength !== res.bodyLength) {
    throw new Error(`GET ${path}: ${res.bodyLength} bytes received, Content-Length ${res.contentLength}`);
  }
  return -1;
}

/** Follows `continue` to the end, reading only each page's leading metadata; counts items when `validate`. */
async function pagedList(api: ApiClient, base: string, validate: boolean): Promise<number> {
  let items = 0;
  let token = '';
  for (let page = 0; page < 10_000; page++) {
    const path = `${base}?limit=${PAGE}${token ? `&continue=${encodeURIComponent(token)}` : ''}`;
    const res = await api.request('GET', path);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.body.toString('utf8').slice(0, 300)}`);
    if (validate) items += countItems(res.body);
    token = listMetadata(res.body).continue ?? '';
    if (!token) return validate ? items : -1;
  }
  throw new Error('paginated list did not end in 10,000 pages');
}

/**
 * The server writes `{"kind":..,"apiVersion":..,"metadata":{..},"items":[..]}` with a flat
 * metadata object first, so the list's metadata is read without parsing the items.
 */
function listMetadata(body: Buffer): { continue?: string; resourceVersion?: string } {
  const head = body.subarray(0, 4096).toString('utf8');
  const start = head.indexOf('"metadata":{');
  const end = head.indexOf('}', start);
  if (start < 0 || end < 0 || start > head.indexOf('"items":')) return JSON.parse(body.toString('utf8')).metadata;
  return JSON.parse(head.slice(start + '"metadata":'.length, end + 1));
}

/** Items in a list body, counted by their names (`"name":"cm-`) without parsing the body. */
function countItems(body: Buffer): number {
  let n = 0;
  const needle = Buffer.from('"name":"cm-');
  for (let i = body.indexOf(needle); i >= 0; i = body.indexOf(needle, i + needle.length)) n++;
  return n;
}

const rangeEnd = (prefix: string) => Buffer.from(prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1));

/** The same keys in one linearizable etcd range, values as raw bytes. */
async function rawRange(etcd: Etcd3, prefix = ETCD_PREFIX): Promise<number> {
  const res = await etcd.kv.range({ key: Buffer.from(prefix), range_end: rangeEnd(prefix) });
  return res.kvs.length;
}

/** Pages of PAGE keys, the first linearizable, the rest at its revision (one snapshot). */
async function rawPagedRange(etcd: Etcd3): Promise<number> {
  let key = Buffer.from(ETCD_PREFIX);
  let revision: string | undefined;
  let n = 0;
  for (let page = 0; page < 10_000; page++) {
    const res = await etcd.kv.range({ key, range_end: rangeEnd(ETCD_PREFIX), limit: PAGE, revision });
    revision ??= res.header.revision;
    n += res.kvs.length;
    if (!res.more || !res.kvs.length) return n;
    key = Buffer.concat([res.kvs[res.kvs.length - 1].key, Buffer.from([0])]);
  }
  throw new Error('etcd range did not end in 10,000 pages');
}
