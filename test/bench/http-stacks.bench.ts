/**
 * Benchmark http-stacks (issue 37): the server's own HTTP stacks (lib/http2, lib/http1)
 * against Node's (`--http2-server=node`: node:http2, and node:http for HTTP/1.1), so that a change
 * to either stack is judged by the ratio own/node of one run. Two server processes on the
 * benchmark's etcd, started alike but for that flag (neither holds the environment server's
 * Lease, so neither runs the controllers), measured in alternating rounds:
 * - GET /healthz over HTTP/2 with h2load (16 connections x 10 streams) and over HTTP/1.1 with
 *   wrk (16 keep-alive connections), both over TLS as anonymous: mostly the HTTP stack;
 * - GET of one ConfigMap (resourceVersion=0, served from the watch cache) with the admin client
 *   certificate at c=64, which neither tool can present: Node clients in two worker threads
 *   (load-worker.ts), over HTTP/2 (one session per thread) and HTTP/1.1 (keep-alive).
 * Rows: own's req/s against node's, and each side's server CPU per request.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Benchmark, BenchContext, ResultRow } from './benchmark';
import { ApiClient, loadKubeconfig, ServerConnection } from './api-client';
import { ownCpuSeconds, processCpuSeconds } from './cpu-usage';
import { ensureLoadTools, H2LOAD, h2load, ToolRun, WRK, wrk } from './http-load-tools';
import { LoadWorkers } from './load-worker';
import { PAYLOAD } from './crud-sides';
import { startServerProcess } from '../helpers/server-process';

const NAME = 'http-stacks';
const NAMESPACE = 'bench-http-stacks';
const SIDES = ['own', 'node'] as const;
type Side = typeof SIDES[number];
/** Each side's stacks named explicitly, so a --server-arg or a new default cannot blur them. */
const SIDE_ARGS: Record<Side, string[]> = { own: ['--http2-server=own', '--http1-server=own'], node: ['--http2-server=node'] };
const H2LOAD_SHAPE = { connections: 16, streams: 10 };
const WRK_CONNECTIONS = 16;
const API_CONCURRENCY = 64;
/** One event loop could not keep a server busy with the API read (as in authn.bench.ts). */
const GENERATOR_THREADS = 2;

/** What one cell's rounds share on one side (its connections), and one timed run on them. */
interface Driver {
  run(durationSec: number): Promise<ToolRun>;
  close(): Promise<void>;
}

interface Cell {
  /** The metric's text, e.g. 'HTTP/2 GET /healthz (h2load 16x10)'. */
  label: string;
  open(side: Side): Driver;
}

/** One timed run of one side, with the server's CPU over it. */
interface Round extends ToolRun { wallSec: number; serverCpuSec?: number }

interface Server { conn: ServerConnection; pid?: number }

export const httpStacksBench: Benchmark = {
  name: NAME,
  description: 'own HTTP/2 and HTTP/1.1 stacks vs node:http2/node:http (--http2-server=node) on one etcd: /healthz with h2load and wrk, an authenticated ConfigMap read, req/s and server CPU per request',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    ensureLoadTools([H2LOAD, WRK]);
    // Short rounds, many of them, in an order that puts each side first as often: the other
    // tenants of a shared machine come and go within seconds, and so should the sides.
    const rounds = ctx.quick ? 2 : 6;
    const roundSec = ctx.quick ? 1 : 2;
    const warmUpSec = 1;
    const cleanups: Array<() => Promise<unknown> | unknown> = [];
    try {
      const servers = {} as Record<Side, Server>;
      for (const side of SIDES) {
        const dataDir = await mkdtemp(path.join(os.tmpdir(), `orch-bench-stacks-${side}-`));
        cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
        ctx.log(`${NAME}: starting the ${side} side's server (${SIDE_ARGS[side].join(' ')})`);
        const server = await startServerProcess([
          `--etcd-servers=${ctx.env.etcdEndpoint}`, '--secure-port=0', `--data-dir=${dataDir}`, '--log-level=error', ...ctx.serverArgs, ...SIDE_ARGS[side],
        ], { timeoutMs: 60_000, nodeArgs: ctx.serverNodeArgs });
        cleanups.push(() => server.stop());
        servers[side] = { conn: loadKubeconfig(server.kubeconfigPath), pid: server.process.pid };
      }
      const apiPath = await createConfigMap(ctx, servers);
      const cells = stackCells(servers, apiPath);

      const rows: ResultRow[] = [];
      for (const cell of cells) {
        const results: Record<Side, Round[]> = { own: [], node: [] };
        const drivers = {} as Record<Side, Driver>;
        try {
          for (const side of SIDES) {
            drivers[side] = cell.open(side);
            ctx.log(`${NAME}: ${cell.label}, ${side}, warm-up`);
            await drivers[side].run(warmUpSec);
          }
          for (let round = 0; round < rounds; round++) {
            for (const side of round % 2 ? [...SIDES].reverse() : SIDES) {
              ctx.log(`${NAME}: ${cell.label}, ${side}, round ${round + 1}/${rounds}`);
              results[side].push(await timed(drivers[side], roundSec, servers[side].pid));
            }
          }
        } finally {
          for (const side of SIDES) await drivers[side]?.close();
        }
        rows.push(...rowsOf(cell.label, results, roundSec));
      }
      return rows;
    } finally {
      for (const c of cleanups.reverse()) await Promise.resolve().then(c).catch(() => undefined);
    }
  },
};

/** The four cells: /healthz with h2load and wrk, the ConfigMap read over HTTP/2 and HTTP/1.1. */
function stackCells(servers: Record<Side, Server>, apiPath: string): Cell[] {
  const healthz = (s: Side) => `${servers[s].conn.url}/healthz`;
  const tool = (run: (durationSec: number) => Promise<ToolRun>): Driver => ({ run, close: async () => undefined });
  const workers = (s: Side, transport: 'HTTP/2' | 'HTTP/1.1'): Driver => {
    const w = new LoadWorkers(GENERATOR_THREADS, { conn: servers[s].conn, transport, paths: [apiPath] });
    return {
      async run(durationSec) {
        const cpu0 = ownCpuSeconds();
        const r = await w.loop({ durationMs: durationSec * 1000, minIterations: 2 * API_CONCURRENCY, maxIterations: 10_000_000, concurrency: API_CONCURRENCY });
        // The generator is this process (its worker threads): its CPU over the loop.
        return { requests: r.count, elapsedSec: r.elapsedMs / 1000, generatorCpuSec: ownCpuSeconds() - cpu0 };
      },
      close: () => w.close(),
    };
  };
  const { connections, streams } = H2LOAD_SHAPE;
  return [
    { label: `HTTP/2 GET /healthz (h2load ${connections}x${streams})`, open: (s) => tool((d) => h2load(healthz(s), { connections, streams, durationSec: d })) },
    { label: `HTTP/1.1 GET /healthz (wrk ${WRK_CONNECTIONS} connections)`, open: (s) => tool((d) => wrk(healthz(s), { connections: WRK_CONNECTIONS, durationSec: d })) },
    { label: `HTTP/2 GET configmap RV=0 c=${API_CONCURRENCY} (admin certificate)`, open: (s) => workers(s, 'HTTP/2') },
    { label: `HTTP/1.1 GET configmap RV=0 c=${API_CONCURRENCY} (admin certificate)`, open: (s) => workers(s, 'HTTP/1.1') },
  ];
}

/** One run, with the server process's CPU and the wall time around it. */
async function timed(driver: Driver, durationSec: number, serverPid: number | undefined): Promise<Round> {
  const t0 = Date.now();
  const cpu0 = processCpuSeconds(serverPid);
  const r = await driver.run(durationSec);
  const cpu1 = processCpuSeconds(serverPid);
  return { ...r, wallSec: (Date.now() - t0) / 1000, serverCpuSec: cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0 };
}

/**
 * A 1 KiB ConfigMap made through the own side; returns its path with resourceVersion=0 once both
 * servers' watch caches serve it (it reaches the node side's through etcd).
 */
async function createConfigMap(ctx: BenchContext, servers: Record<Side, Server>): Promise<string> {
  const clients = { own: new ApiClient(servers.own.conn, 1), node: new ApiClient(servers.node.conn, 1) };
  try {
    await clients.own.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }, 201);
    await clients.own.json('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stacks' }, data: { payload: PAYLOAD } }, 201);
    const apiPath = `/api/v1/namespaces/${NAMESPACE}/configmaps/stacks?resourceVersion=0`;
    for (const side of SIDES) {
      for (let tries = 0; (await clients[side].request('GET', apiPath)).status !== 200; tries++) {
        if (tries === 100) throw new Error(`the ${side} side does not serve ${apiPath} 10 s after its creation`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    ctx.log(`${NAME}: both servers serve ${apiPath}`);
    return apiPath;
  } finally {
    await clients.own.close();
    await clients.node.close();
  }
}

const sum = (rs: Round[], f: (r: Round) => number | undefined) => rs.reduce((n, r) => n + (f(r) ?? NaN), 0);
const pct = (share: number) => (Number.isFinite(share) ? share.toFixed(0) : '?');

/** Pooled rates (requests over the tool's time, all rounds) and CPU per request, own as value, node as baseline. */
function rowsOf(label: string, results: Record<Side, Round[]>, roundSec: number): ResultRow[] {
  const rate = (s: Side) => sum(results[s], (r) => r.requests) / sum(results[s], (r) => r.elapsedSec);
  const serverUs = (s: Side) => (sum(results[s], (r) => r.serverCpuSec) / sum(results[s], (r) => r.requests)) * 1e6;
  const share = (s: Side, f: (r: Round) => number | undefined) => (100 * sum(results[s], f)) / sum(results[s], (r) => r.wallSec);
  const perRound = results.own.map((r, i) => (r.requests / r.elapsedSec) / (results.node[i].requests / results.node[i].elapsedSec));
  const roundRates = (s: Side) => results[s].map((r) => (r.requests / r.elapsedSec).toFixed(0)).join(', ');
  const cpu = (s: Side) => `${s} ${pct(share(s, (r) => r.serverCpuSec))}, ${pct(share(s, (r) => r.generatorCpuSec))}`;
  return [
    {
      benchmark: NAME, metric: `${label}: own / node throughput`, unit: 'req/s',
      value: rate('own'), baseline: rate('node'), ratio: rate('own') / rate('node'),
      note: `${sum(results.own, (r) => r.requests)} vs ${sum(results.node, (r) => r.requests)} requests in ${results.own.length} alternating rounds of ${roundSec} s; `
        + `per round own/node ${perRound.map((x) => x.toFixed(2)).join(', ')} (own ${roundRates('own')}; node ${roundRates('node')} req/s); `
        + `CPU % of a core (server, load generator): ${cpu('own')}; ${cpu('node')}`,
    },
    {
      benchmark: NAME, metric: `${label}: server CPU per request`, unit: 'µs',
      value: serverUs('own'), baseline: serverUs('node'), ratio: serverUs('node') / serverUs('own'),
      note: 'own (value) against node (baseline); ratio > 1: own uses less',
    },
  ];
}
