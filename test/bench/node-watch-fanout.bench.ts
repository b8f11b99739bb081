/**
 * Watch fan-out by node (issue 45): H kubelet-style watches, each on one node's pods
 * (`fieldSelector=spec.nodeName=node-i`, which the watch cache indexes), and one pod event at a
 * time, each of interest to exactly one watcher. The same watches written as a label selector
 * (`labelSelector=node=node-i`, the pods carry that label: the same selection, which the index does
 * not take) are the baseline: every event visits every watcher. Both at H = 10 and H = 1,000, in
 * the same run, in alternating rounds: the server's CPU per event and the latency to the one
 * watcher should not grow with H through the index, and grow linearly without it.
 *
 * Over HTTP the PATCH itself costs far more than the fan-out, and this machine is shared, so the
 * fan-out alone is measured too, in this process: the watch cache's store and dispatcher with H
 * watchers that filter as the watch handler does (the shared decode, then the selector), one
 * change at a time, CPU per change.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Benchmark, BenchContext, ResultRow } from './benchmark';
import { summarize } from './latency';
import { processCpuSeconds } from './cpu-usage';
import { Http2WatchClient, WatchStream } from './watch-stream';
import { ApiClient } from './api-client';
import { CacheStore } from '../../lib/storage/cacher/cache-store';
import { CacheWatcher } from '../../lib/storage/cacher/cache-watcher';
import { CacheIndex } from '../../lib/storage/cacher/field-index';
import { WatchDispatcher } from '../../lib/storage/cacher/watch-dispatcher';
import { StorageEvent } from '../../lib/storage/interfaces';
import { decodeEvent } from '../../lib/api/shared-events';
import { matchesFields, parseFieldSelectorSyntax } from '../../lib/meta/field-selector';
import { matchesLabels, parseLabelSelector } from '../../lib/meta/label-selector';
import { ApiObject } from '../../lib/scheme/types';

const NAME = 'node-watch-fanout';
const NAMESPACE = 'bench-nodes';
const NODES = 1000;
const SIZES = [10, NODES];
const HTTP2_SESSIONS = 4;
const OPEN_BATCH = 100;
const CREATE_CONCURRENCY = 32;
const EVENT_TIMEOUT_MS = 10_000;
/** Unmeasured events before each measurement (the watches' first deliveries, compiled code). */
const WARM_UP = 20;
/** Closed watches are gone from the server's dispatcher after this (it sees the stream reset). */
const SETTLE_MS = 1_000;
const SEQ = /"seq":"(\d+)"/;

type Mode = 'index' | 'label';
const MODES: Mode[] = ['index', 'label'];
const SELECTOR: Record<Mode, (node: string) => string> = {
  index: (node) => `fieldSelector=${encodeURIComponent(`spec.nodeName=${node}`)}`,
  label: (node) => `labelSelector=${encodeURIComponent(`node=${node}`)}`,
};
const LABEL: Record<Mode, string> = {
  index: 'fieldSelector spec.nodeName= (indexed)',
  label: 'labelSelector node= (not indexed)',
};

interface CellRound {
  /** Server CPU ms per event over the measured events. */
  cpuMsPerEvent: number;
  eventsPerSec: number;
  latencies: number[];
  lost: number;
  /** Events that reached a watcher other than the pod's node's. */
  strays: number;
}

export const nodeWatchFanout: Benchmark = {
  name: NAME,
  description: `${NODES} (and ${SIZES[0]}) node watches (spec.nodeName=, indexed) against the same as label selectors: server CPU and latency per pod event`,
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const rounds = ctx.quick ? 1 : 3;
    const events = ctx.quick ? 50 : 200;
    // First, alone: the in-process measurement shares this process with the load generator.
    const dispatch = await dispatchInProcess(ctx, rounds, ctx.quick ? 2_000 : 5_000);
    const api = ctx.env.apiClient(CREATE_CONCURRENCY);
    await setUp(api, ctx);
    const watchClient = new Http2WatchClient(ctx.env.server, HTTP2_SESSIONS);
    const results = new Map<string, CellRound[]>();
    let seq = 0;
    const load0 = os.loadavg()[0];
    try {
      for (let r = 0; r < rounds; r++) {
        const cells = SIZES.flatMap((h) => MODES.map((mode) => ({ h, mode })));
        // Alternate the order: no cell always runs first or last.
        for (const { h, mode } of r % 2 ? cells.reverse() : cells) {
          ctx.log(`${NAME}: round ${r + 1}/${rounds}, ${h} watches by ${mode}`);
          const round = await measureCell(ctx, api, watchClient, h, mode, events, () => seq++);
          const key = `${mode}|${h}`;
          results.set(key, [...(results.get(key) ?? []), round]);
        }
      }
    } finally {
      watchClient.close();
    }
    return [...dispatch, ...rows(results, rounds, events, load0)];
  },
};

const podValue = (i: number, seq: number) => Buffer.from(JSON.stringify({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name: `pod-${i}`, namespace: NAMESPACE, labels: { node: `node-${i}` }, annotations: { seq: String(seq) } },
  spec: { nodeName: `node-${i}`, containers: [{ name: 'main', image: 'registry.example.com/app:1' }] },
  status: { phase: 'Running' },
}));
const nodeNameOf = (obj: ApiObject) => String((obj.spec as { nodeName?: string } | undefined)?.nodeName ?? '');
/** The server's spec.nodeName index, on the decoding the watchers share (as the server's). */
const INDEX: CacheIndex = { field: 'spec.nodeName', valueOf: (object) => nodeNameOf(object()) };

/**
 * The fan-out alone: CPU ms per change through CacheStore.apply, WatchDispatcher and H watchers
 * filtering as the watch handler does, with the index (spec.nodeName=) and without it (the same
 * selection as a label selector), at each H; median of `rounds`, alternating.
 */
async function dispatchInProcess(ctx: BenchContext, rounds: number, changes: number): Promise<ResultRow[]> {
  const measured = new Map<string, number[]>();
  let seq = 0;
  for (let r = 0; r < rounds; r++) {
    const cells = SIZES.flatMap((h) => MODES.map((mode) => ({ h, mode })));
    for (const { h, mode } of r % 2 ? cells.reverse() : cells) {
      const store = new CacheStore(mode === 'index' ? INDEX : undefined);
      store.replace(Array.from({ length: NODES }, (_, i) => ({ key: `/registry/pods/${NAMESPACE}/pod-${i}`, value: podValue(i, -1), createRevision: i + 1, modRevision: i + 1 })));
      const dispatcher = new WatchDispatcher(0);
      let delivered = 0;
      const watchers = Array.from({ length: h }, (_, i) => {
        const fields = parseFieldSelectorSyntax(`spec.nodeName=node-${i}`);
        const labels = parseLabelSelector(`node=node-${i}`);
        const selected = (obj: ApiObject) => (mode === 'index' ? matchesFields(fields, { 'spec.nodeName': nodeNameOf(obj) }) : matchesLabels(labels, obj.metadata?.labels));
        const w = new CacheWatcher('/registry/pods/', NODES, {
          onEvents: (evs) => {
            for (const ev of evs) {
              const d = decodeEvent(ev, (o) => o);
              const prev = d.prev();
              if ((d.next && selected(d.next)) || (prev && selected(prev))) delivered++;
            }
          },
          onError: () => undefined,
        }, 1000, dispatcher.schedule, (x) => dispatcher.remove(x), undefined, mode === 'index' ? `node-${i}` : undefined);
        dispatcher.add(w);
        return w;
      });
      const change = async (n: number) => {
        const i = n % h;
        const ev: StorageEvent = { type: 'put', key: `/registry/pods/${NAMESPACE}/pod-${i}`, value: podValue(i, seq++), revision: NODES + 1 + n, created: false };
        dispatcher.publish([ev], store.apply([ev]));
        await dispatcher.whenDelivered();
      };
      for (let n = 0; n < 200; n++) await change(n);
      delivered = 0;
      const cpu0 = process.cpuUsage();
      for (let n = 200; n < 200 + changes; n++) await change(n);
      const cpu = process.cpuUsage(cpu0);
      if (delivered !== changes) throw new Error(`${NAME}: ${delivered} of ${changes} changes reached their watcher (${mode}, ${h})`);
      await Promise.all(watchers.map((w) => w.close()));
      const key = `${mode}|${h}`;
      measured.set(key, [...(measured.get(key) ?? []), (cpu.user + cpu.system) / 1000 / changes]);
    }
  }
  ctx.log(`${NAME}: in-process dispatch measured`);
  const row = (metric: string, value: number, extra: Partial<ResultRow> = {}): ResultRow => ({ benchmark: NAME, metric, unit: 'ms', value, ...extra });
  const of = (mode: Mode, h: number) => measured.get(`${mode}|${h}`) ?? [];
  const out: ResultRow[] = [];
  for (const h of SIZES) {
    for (const mode of MODES) {
      const v = median(of(mode, h));
      const base = mode === 'index' ? median(of('label', h)) : undefined;
      out.push(row(`dispatch CPU per change in process, ${h} watches by ${LABEL[mode]}`, v, {
        ...(base !== undefined ? { baseline: base, ratio: base / v } : {}),
        note: `store apply + fan-out + each visited watch's filter; median of ${rounds} round(s) of ${changes} (${of(mode, h).map((x) => (x * 1000).toFixed(1)).join(', ')} µs)`,
      }));
    }
  }
  for (const mode of MODES) {
    const a = median(of(mode, SIZES[0]));
    const b = median(of(mode, SIZES[1]));
    out.push(row(`dispatch CPU per change in process at ${SIZES[1]} vs ${SIZES[0]} watches, ${LABEL[mode]}`, b, {
      baseline: a, ratio: a / b, note: `${((1000 * (b - a)) / (SIZES[1] - SIZES[0])).toFixed(3)} µs per added watch${mode === 'index' ? ' (O(1) in H: ratio near 1)' : ''}`,
    }));
  }
  return out;
}

async function setUp(api: ApiClient, ctx: BenchContext): Promise<void> {
  await api.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  // The ServiceAccount admission plugin wants the pods' account; its controller may be first.
  const sa = await api.request('POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
  if (sa.status !== 201 && sa.status !== 409) throw new Error(`creating the default ServiceAccount: ${sa.status}`);
  ctx.log(`${NAME}: creating ${NODES} pods, one per node`);
  let next = 0;
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, async () => {
    while (next < NODES) {
      const i = next++;
      await api.json('POST', `/api/v1/namespaces/${NAMESPACE}/pods`, {
        apiVersion: 'v1', kind: 'Pod',
        metadata: { name: `pod-${i}`, labels: { node: `node-${i}` } },
        spec: { nodeName: `node-${i}`, containers: [{ name: 'main', image: 'registry.example.com/app:1' }] },
      }, 201);
    }
  }));
}

/** Opens `h` watches, then sends events one at a time, each to the pod of node (seq mod h), and waits for it to arrive. */
async function measureCell(ctx: BenchContext, api: ApiClient, client: Http2WatchClient, h: number, mode: Mode,
  events: number, nextSeq: () => number): Promise<CellRound> {
  const rv: string = (await api.json('GET', `/api/v1/namespaces/${NAMESPACE}/pods?limit=1`)).metadata.resourceVersion;
  /** The event awaited: its seq, the watcher it is for, and its resolver. */
  let awaited: { seq: number; watcher: number; arrived: (at: number) => void } | undefined;
  let strays = 0;
  const onLinesFor = (w: number) => (lines: string[], receivedAt: number) => {
    for (const line of lines) {
      const m = SEQ.exec(line);
      if (!m) continue;
      if (awaited && Number(m[1]) === awaited.seq && w === awaited.watcher) awaited.arrived(receivedAt);
      else strays++;
    }
  };
  const streams: WatchStream[] = [];
  try {
    for (let i = 0; i < h; i += OPEN_BATCH) {
      const batch: WatchStream[] = [];
      for (let w = i; w < Math.min(h, i + OPEN_BATCH); w++) {
        batch.push(client.open(`/api/v1/pods?watch=true&resourceVersion=${rv}&timeoutSeconds=900&${SELECTOR[mode](`node-${w}`)}`, onLinesFor(w)));
      }
      streams.push(...batch);
      const statuses = await Promise.all(batch.map((s) => s.status));
      const bad = statuses.find((st) => st !== 200);
      if (bad !== undefined) throw new Error(`a watch answered ${bad}`);
    }
    /** Sends one event and resolves with its latency (NaN when it did not arrive in time). */
    const send = async (): Promise<number> => {
      const seq = nextSeq();
      const watcher = seq % h;
      let timer: NodeJS.Timeout | undefined;
      const arrival = new Promise<number>((resolve) => {
        const sentAt = performance.now();
        timer = setTimeout(() => resolve(NaN), EVENT_TIMEOUT_MS);
        awaited = { seq, watcher, arrived: (at) => resolve(at - sentAt) };
      });
      const res = await api.request('PATCH', `/api/v1/namespaces/${NAMESPACE}/pods/pod-${watcher}`,
        { metadata: { annotations: { seq: String(seq) } } }, 'application/merge-patch+json', true);
      if (res.status !== 200) throw new Error(`PATCH pod-${watcher}: ${res.status}`);
      const latency = await arrival;
      clearTimeout(timer);
      awaited = undefined;
      return latency;
    };
    for (let i = 0; i < WARM_UP; i++) await send();
    strays = 0;
    const latencies: number[] = [];
    let lost = 0;
    const cpu0 = processCpuSeconds(ctx.env.serverPid);
    const t0 = performance.now();
    for (let i = 0; i < events; i++) {
      const l = await send();
      if (Number.isNaN(l)) lost++;
      else latencies.push(l);
    }
    const elapsedMs = performance.now() - t0;
    const cpu1 = processCpuSeconds(ctx.env.serverPid);
    return {
      cpuMsPerEvent: cpu0 === undefined || cpu1 === undefined ? NaN : ((cpu1 - cpu0) * 1000) / events,
      eventsPerSec: events / (elapsedMs / 1000),
      latencies,
      lost,
      strays,
    };
  } finally {
    for (const s of streams) s.close();
    await new Promise((r) => setTimeout(r, SETTLE_MS));
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

function rows(results: Map<string, CellRound[]>, rounds: number, events: number, load0: number): ResultRow[] {
  const cell = (mode: Mode, h: number) => {
    const rs = results.get(`${mode}|${h}`) ?? [];
    const lat = summarize(Float64Array.from(rs.flatMap((r) => r.latencies)));
    return {
      cpu: median(rs.map((r) => r.cpuMsPerEvent)),
      cpuRounds: rs.map((r) => r.cpuMsPerEvent.toFixed(3)).join(', '),
      rate: median(rs.map((r) => r.eventsPerSec)),
      lat,
      latRounds: rs.map((r) => median(r.latencies).toFixed(2)).join(', '),
      lost: rs.reduce((n, r) => n + r.lost, 0),
      strays: rs.reduce((n, r) => n + r.strays, 0),
    };
  };
  const row = (metric: string, unit: string, value: number, extra: Partial<ResultRow> = {}): ResultRow =>
    ({ benchmark: NAME, metric, unit, value, ...extra });
  const out: ResultRow[] = [];
  const [small, large] = SIZES;
  for (const h of SIZES) {
    for (const mode of MODES) {
      const c = cell(mode, h);
      const base = mode === 'index' ? cell('label', h) : undefined;
      out.push(row(`server CPU per event, ${h} watches by ${LABEL[mode]}`, 'ms', c.cpu, {
        ...(base ? { baseline: base.cpu, ratio: base.cpu / c.cpu } : {}),
        note: `median of ${rounds} round(s) of ${events} events (per round: ${c.cpuRounds}); includes the PATCH itself`,
      }));
      out.push(row(`latency to the node's watch p50, ${h} watches by ${LABEL[mode]}`, 'ms', c.lat.p50, {
        ...(base ? { baseline: base.lat.p50, ratio: base.lat.p50 / c.lat.p50 } : {}),
        note: `PATCH sent to event received; p99 ${c.lat.p99.toFixed(2)} ms; per-round p50 ${c.latRounds}; ${c.rate.toFixed(0)} events/s one at a time; ${c.lost} lost, ${c.strays} at other watches`,
      }));
    }
  }
  for (const mode of MODES) {
    const a = cell(mode, small);
    const b = cell(mode, large);
    out.push(row(`CPU per event at ${large} vs ${small} watches, ${LABEL[mode]}`, 'ms', b.cpu, {
      baseline: a.cpu, ratio: a.cpu / b.cpu,
      note: `${(b.cpu - a.cpu).toFixed(3)} ms more for ${large - small} more watches: ${((1000 * (b.cpu - a.cpu)) / (large - small)).toFixed(2)} µs per watch${mode === 'index' ? ' (O(1) in H: ratio near 1)' : ''}`,
    }));
  }
  out.push(row('load average (1 min) at the start', 'load', load0, { note: `${os.cpus().length} cores; the machine is shared: compare rows of this run only` }));
  return out;
}
