/**
 * Steady state (issue 45): the server with the real kube-controller-manager, kube-scheduler and H
 * hollow kubelets (default 20, `--nodes=H`), 10 pause pods per node from a few Deployments, then
 * the whole cluster left idle for 10 minutes (`--quick`: H=4 for 2 minutes) with only the
 * kubelets' heartbeats (a Lease renewal every 10 s, Node status), the controllers' resyncs and
 * leader elections. The server runs with `--event-ttl=2m`, so the events of the start-up expire
 * during the window. Reported: the server's CPU share over the window (from /proc), the request
 * rates by verb and resource (apiserver_request_total differences), RSS sampled every 15 s with
 * the least-squares slope over the window's second half, V8's heap used after a full GC at the
 * window's start and end (through the server's inspector), and the counts that reveal a leak:
 * open watches, Lease objects, events and leases in etcd. Targets are reported, never asserted.
 */
import os from 'node:os';
import { Etcd3 } from 'etcd3';
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import { HollowCluster, isReady, podsRunning, runDeployments, startHollowCluster } from './hollow-cluster';
import { requestRates, scrapeMetrics } from './server-metrics';
import { processCpuSeconds } from './cpu-usage';
import { processMemory } from './process-memory';
import { collectGarbage, remoteMemoryUsage } from './inspector-gc';
import { readEtcdWatchGauges } from './etcd-metrics';
import { createEtcdClient } from '../../lib/storage/etcd3/client';
import type { Exposition } from '../helpers/prom-text';

const NAME = 'steady-state';
const NS = 'steady';
const EVENT_TTL = '2m';
const DEPLOYMENTS = 4;
const PODS_PER_NODE = 10;
const SAMPLE_MS = 15_000;
const MIB = 2 ** 20;
/** Targets: RSS over the second half grows less than this, and ends at most this share above where it started. */
const MAX_SLOPE_MIB_PER_HOUR = 20;
const MAX_RSS_DRIFT = 0.1;
/** Request rates below this (per second) stay out of the table (they are in none of the targets). */
const MIN_RATE_ROW = 0.05;

interface Sizes { nodes: number; warmupMs: number; windowMs: number }

/** What is counted at the window's start, at every sample, and at its end. */
interface Counts {
  /** apiserver_registered_watchers, summed over kinds. */
  watchers: number;
  /** etcd_debugging_mvcc_watcher_total: the server's watch cache's etcd watches. */
  etcdWatchers: number;
  /** Event keys under /registry/events/ in etcd. */
  events: number;
  /** etcd leases (the event TTL's). */
  etcdLeases: number;
  /** Lease objects (kube-node-lease and the leader elections). */
  leases: number;
}

interface Sample extends Counts { t: number; rss: number; heapUsed: number }

export const steadyStateBench: Benchmark = {
  name: NAME,
  description: `H hollow nodes (--nodes, default 20) with ${PODS_PER_NODE} pods each, idle 10 min: server CPU share, request rates, RSS slope, leak counts`,
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const sizes: Sizes = ctx.quick
      ? { nodes: ctx.nodes ?? 4, warmupMs: 20_000, windowMs: 120_000 }
      : { nodes: ctx.nodes ?? 20, warmupMs: 60_000, windowMs: 600_000 };
    const t0 = Date.now();
    const h = await startHollowCluster({
      nodes: sizes.nodes, prefix: 'steady-node', log: ctx.log,
      serverArgs: [`--event-ttl=${EVENT_TTL}`, ...ctx.serverArgs],
      serverNodeArgs: ['--inspect=127.0.0.1:0', ...ctx.serverNodeArgs],
    });
    let failed = true;
    const etcd = createEtcdClient({ endpoints: [h.cluster.etcd!.endpoint] });
    try {
      ctx.log(`${NAME}: ${sizes.nodes} nodes Ready after ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      const replicas = Math.ceil((sizes.nodes * PODS_PER_NODE) / DEPLOYMENTS);
      await runDeployments(h, NS, DEPLOYMENTS, replicas);
      ctx.log(`${NAME}: ${DEPLOYMENTS * replicas} pods Running after ${((Date.now() - t0) / 1000).toFixed(0)} s; warm-up ${sizes.warmupMs / 1000} s`);
      await sleep(sizes.warmupMs);
      const rows = await measureWindow(ctx, h, etcd, sizes, DEPLOYMENTS * replicas);
      failed = false;
      return rows;
    } finally {
      etcd.close();
      await h.stop(failed);
    }
  },
};

async function measureWindow(ctx: BenchContext, h: HollowCluster, etcd: Etcd3, sizes: Sizes, pods: number): Promise<ResultRow[]> {
  const server = h.cluster.server!;
  const inspector = server.inspectorUrl;
  if (!inspector) throw new Error('the server has no inspector (--inspect)');
  const pids = {
    server: server.process.pid, etcd: h.cluster.etcd!.pid,
    controllerManager: h.cluster.controllerManager!.process.pid, scheduler: h.cluster.scheduler!.process.pid,
  };
  const kubeletsCpu = () => h.cluster.nodes.reduce((s, n) => s + (processCpuSeconds(n.process.pid) ?? NaN), 0);
  const cpu = () => ({
    server: processCpuSeconds(pids.server) ?? NaN, etcd: processCpuSeconds(pids.etcd) ?? NaN,
    controllerManager: processCpuSeconds(pids.controllerManager) ?? NaN, scheduler: processCpuSeconds(pids.scheduler) ?? NaN,
    kubelets: kubeletsCpu(),
  });
  const sample = async (start: number): Promise<Sample> => {
    const t = (Date.now() - start) / 1000;
    const rss = processMemory(pids.server).rss;
    const metrics = await scrapeMetrics(h.api);
    return { t, rss, heapUsed: metrics.value('nodejs_heap_size_used_bytes'), ...await counts(h, etcd, metrics) };
  };

  const load0 = os.loadavg();
  const start = Date.now();
  const cpu0 = cpu();
  const before = await scrapeMetrics(h.api);
  const samples: Sample[] = [await sample(start)];
  const heap0 = await heapAfterGc(inspector);
  ctx.log(`${NAME}: idle window of ${sizes.windowMs / 1000} s; RSS ${(samples[0].rss / MIB).toFixed(0)} MiB, ${samples[0].events} events, ${samples[0].watchers} watches`);
  for (let i = 1; i * SAMPLE_MS <= sizes.windowMs; i++) {
    await sleep(start + i * SAMPLE_MS - Date.now());
    const s = await sample(start);
    samples.push(s);
    if (i % 4 === 0) ctx.log(`${NAME}: ${s.t.toFixed(0)} s: RSS ${(s.rss / MIB).toFixed(0)} MiB, heap ${(s.heapUsed / MIB).toFixed(0)} MiB, ${s.events} events, ${s.etcdLeases} etcd leases, ${s.watchers} watches`);
  }
  const after = await scrapeMetrics(h.api);
  const cpu1 = cpu();
  const wall = (Date.now() - start) / 1000;
  const load1 = os.loadavg();
  const heap1 = await heapAfterGc(inspector);
  const nodesReady = (await h.api.json('GET', '/api/v1/nodes')).items.filter(isReady).length;
  const running = await podsRunning(h, NS);

  const first = samples[0];
  const last = samples[samples.length - 1];
  const secondHalf = samples.filter((s) => s.t >= sizes.windowMs / 2000);
  const slope = leastSquaresSlope(secondHalf.map((s) => [s.t / 3600, s.rss / MIB]));
  const heapSlope = leastSquaresSlope(secondHalf.map((s) => [s.t / 3600, s.heapUsed / MIB]));
  const drift = last.rss / first.rss - 1;
  const share = (k: keyof typeof cpu0) => (100 * (cpu1[k] - cpu0[k])) / wall;
  const where = `${sizes.nodes} hollow nodes, ${pods} pods, --event-ttl=${EVENT_TTL}, ${(wall / 60).toFixed(1)} min idle`;
  const loadNote = `load average ${load0[0].toFixed(1)} at the start, ${load1[0].toFixed(1)} at the end (${os.cpus().length} cores, shared)`;
  const max = (k: keyof Counts) => Math.max(...samples.map((s) => s[k]));
  const rows: ResultRow[] = [
    {
      benchmark: NAME, metric: 'server CPU share while idle', unit: '% of a core', value: share('server'),
      note: `${where}; ${(cpu1.server - cpu0.server).toFixed(1)} CPU s over ${wall.toFixed(0)} s; etcd ${share('etcd').toFixed(1)}%, `
        + `kube-controller-manager ${share('controllerManager').toFixed(1)}%, kube-scheduler ${share('scheduler').toFixed(1)}%, `
        + `hollow kubelets ${share('kubelets').toFixed(1)}% together; ${loadNote}`,
    },
    {
      benchmark: NAME, metric: 'RSS slope over the second half', unit: 'MiB/h', value: slope,
      ...target(`≤ ${MAX_SLOPE_MIB_PER_HOUR} MiB/h`, slope <= MAX_SLOPE_MIB_PER_HOUR),
      note: `least squares over ${secondHalf.length} samples ${SAMPLE_MS / 1000} s apart; V8 heap used (from /metrics) ${heapSlope.toFixed(1)} MiB/h; `
        + `RSS min ${(Math.min(...samples.map((s) => s.rss)) / MIB).toFixed(0)}, max ${(Math.max(...samples.map((s) => s.rss)) / MIB).toFixed(0)} MiB over the window`,
    },
    {
      benchmark: NAME, metric: 'RSS at the end vs the start', unit: 'MiB', value: last.rss / MIB, baseline: first.rss / MIB, ratio: first.rss / last.rss,
      ...target(`≤ +${MAX_RSS_DRIFT * 100}%`, drift <= MAX_RSS_DRIFT),
      note: `${(drift * 100).toFixed(1)}%; no forced GC (what an operator sees); peak ${(processMemory(pids.server).peakRss / MIB).toFixed(0)} MiB since start-up`,
    },
    {
      benchmark: NAME, metric: 'V8 heap used after a full GC, end vs start', unit: 'MiB', value: heap1.heapUsed / MIB, baseline: heap0.heapUsed / MIB,
      ratio: heap0.heapUsed / heap1.heapUsed,
      note: `forced through the inspector; external (Buffers) ${(heap0.external / MIB).toFixed(1)} -> ${(heap1.external / MIB).toFixed(1)} MiB`,
    },
    countRow('open watches (apiserver_registered_watchers)', 'watches', first.watchers, last.watchers, max('watchers')),
    countRow('etcd watchers (mvcc)', 'watchers', first.etcdWatchers, last.etcdWatchers, max('etcdWatchers')),
    countRow('Lease objects', 'leases', first.leases, last.leases, max('leases')),
    countRow('events stored in etcd', 'events', first.events, last.events, max('events'),
      `keys under /registry/events/; with --event-ttl=${EVENT_TTL} the start-up's events expire during the window`),
    countRow('etcd leases', 'leases', first.etcdLeases, last.etcdLeases, max('etcdLeases'), 'the event TTL\'s (one per window of writes, lease-manager.ts)'),
    {
      benchmark: NAME, metric: 'nodes Ready and pods Running at the end', unit: 'objects', value: nodesReady + running, baseline: sizes.nodes + pods,
      ratio: (nodesReady + running) / (sizes.nodes + pods), note: `${nodesReady} of ${sizes.nodes} nodes Ready, ${running} of ${pods} pods Running`,
    },
  ];
  rows.push(...rateRows(before, after, wall, sizes.nodes));
  return rows;
}

/** A count at the window's end against its start (ratio start/end: > 1 is a count that fell). */
function countRow(metric: string, unit: string, start: number, end: number, max: number, note?: string): ResultRow {
  return {
    benchmark: NAME, metric, unit, value: end, baseline: start, ratio: end > 0 ? start / end : undefined,
    note: `start ${start}, end ${end}, max ${max} over the samples${note ? `; ${note}` : ''}`,
  };
}

/** The window's request rates by verb and resource: all of them in one row's note, the busier ones in rows of their own. */
function rateRows(before: Exposition, after: Exposition, seconds: number, nodes: number): ResultRow[] {
  const rates = requestRates(before, after, seconds);
  const total = rates.reduce((s, r) => s + r.count, 0);
  const errors = rates.reduce((s, r) => s + r.errors, 0);
  const rows: ResultRow[] = [{
    benchmark: NAME, metric: 'requests while idle', unit: 'req/s', value: total / seconds,
    note: `${total} requests, ${errors} answered ≥ 400; per hollow node ${(total / seconds / nodes).toFixed(2)}/s; `
      + rates.map((r) => `${r.key} ${r.perSecond.toFixed(3)}`).join(', '),
  }];
  for (const r of rates.filter((x) => x.perSecond >= MIN_RATE_ROW)) {
    rows.push({
      benchmark: NAME, metric: `requests while idle: ${r.key}`, unit: 'req/s', value: r.perSecond,
      note: `${r.count} in ${seconds.toFixed(0)} s${r.errors ? `; answered ≥ 400: ${r.errorCodes}` : ''}`,
    });
  }
  return rows;
}

async function counts(h: HollowCluster, etcd: Etcd3, metrics: Exposition): Promise<Counts> {
  const [events, leases, etcdGauges, leaseList] = await Promise.all([
    etcd.getAll().prefix('/registry/events/').count(),
    etcd.leaseClient.leaseLeases(),
    readEtcdWatchGauges(h.cluster.etcd!.endpoint),
    h.api.json('GET', '/apis/coordination.k8s.io/v1/leases'),
  ]);
  return {
    watchers: metrics.value('apiserver_registered_watchers'), etcdWatchers: etcdGauges.watchers, events,
    etcdLeases: leases.leases.length, leases: leaseList.items.length,
  };
}

/** A full GC in the server, then its memory usage. */
async function heapAfterGc(inspector: string): Promise<NodeJS.MemoryUsage> {
  await collectGarbage(inspector);
  return remoteMemoryUsage(inspector);
}

/** The slope of the least-squares line through `points` ([x, y]); NaN with fewer than two distinct x. */
export function leastSquaresSlope(points: Array<[number, number]>): number {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  return sxx > 0 ? sxy / sxx : NaN;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, ms)));
}
