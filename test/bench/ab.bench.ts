/**
 * Two servers side by side: another build (`--base-build=DIR`, a `dist/` of another commit)
 * and/or other flags (`--base-arg=FLAG`) against this build, for judging a change by its effect
 * rather than by two runs minutes apart. Each runs as its own process on an etcd of its own, with
 * the same flags otherwise (--server-arg included), and
 * the two take turns (base, this, this, base, ...) in every cell, so the machine's drift falls on
 * both. Cells, at c=64: create over one HTTP/2 session, create over 64 HTTP/1.1 keep-alive
 * connections, get (resourceVersion=0) over HTTP/1.1. Rows: this build's throughput against the
 * base's, and each side's server CPU per request, the figure a change to request work moves.
 *
 *   git worktree add /tmp/base HEAD~1 && ln -s "$PWD/node_modules" /tmp/base/node_modules && (cd /tmp/base && npx tsc -p .)
 *   node dist/test/bench/run.js --only=ab --base-build=/tmp/base/dist
 *   node dist/test/bench/run.js --only=ab --base-arg=--controllers=-garbagecollector   # a flag's cost
 *   node dist/test/bench/run.js --only=ab --server-node-arg=--max-semi-space-size=64 --base-node-arg=--max-semi-space-size=16   # a V8 flag's
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Benchmark, BenchContext, ResultRow } from './benchmark';
import { LoopResult, mergeLoops, timedLoop } from './latency';
import { CpuAccumulator, CpuShares } from './cpu-usage';
import { startServerProcess } from '../helpers/server-process';
import { ApiClient, loadKubeconfig } from './api-client';
import { Http2ApiClient } from './http2-api-client';
import { ServerCrud } from './crud-sides';
import { startTestEtcd } from '../helpers/etcd-harness';

const NAME = 'ab';
const CONCURRENCY = 64;
const SIDES = ['base', 'this'] as const;
type Side = typeof SIDES[number];

/** Server CPU per operation (ms): CPU share of a core over the operation rate. */
const cpuPerOp = (result: LoopResult, cpu: CpuShares) => ((cpu.server ?? NaN) / 100 / result.opsPerSec) * 1000;

export const abBench: Benchmark = {
  name: NAME,
  description: 'another build (--base-build=DIR) or flags (--base-arg=FLAG) against this build, in alternating rounds on etcds of their own: create (HTTP/2, HTTP/1.1) and get RV=0 at c=64, throughput and server CPU per request',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const baseMain = ctx.baseBuild ? path.resolve(ctx.baseBuild, 'lib/server/main.js') : undefined;
    if (baseMain && !existsSync(baseMain)) throw new Error(`${baseMain} does not exist: --base-build names a dist/ directory`);
    if (!baseMain && !ctx.baseArgs.length && !ctx.baseNodeArgs.length) {
      throw new Error('ab compares two servers: give --base-build=DIR, --base-arg=FLAG or --base-node-arg=FLAG');
    }
    const rounds = ctx.quick ? 2 : 6;
    const roundMs = ctx.quick ? 1_000 : 2_000;
    const namespace = 'bench-ab';
    const cleanups: Array<() => Promise<unknown> | unknown> = [];
    try {
      const h1 = {} as Record<Side, ServerCrud>;
      const h2 = {} as Record<Side, ServerCrud>;
      const cpu = {} as Record<Side, () => CpuAccumulator>;
      for (const side of SIDES) {
        const etcd = await startTestEtcd();
        cleanups.push(() => etcd.stop());
        const dataDir = await mkdtemp(path.join(os.tmpdir(), `orch-bench-ab-${side}-`));
        cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
        ctx.log(`${NAME}: starting the ${side} build's server`);
        const server = await startServerProcess([
          `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', `--data-dir=${dataDir}`, '--log-level=error', ...ctx.serverArgs,
          ...(side === 'base' ? ctx.baseArgs : []),
        ], {
          script: side === 'base' ? baseMain : undefined, timeoutMs: 60_000,
          nodeArgs: [...ctx.serverNodeArgs, ...(side === 'base' ? ctx.baseNodeArgs : [])],
        });
        cleanups.push(() => server.stop());
        const conn = loadKubeconfig(server.kubeconfigPath);
        const api = new ApiClient(conn, CONCURRENCY);
        const session = new Http2ApiClient(conn, 1);
        cleanups.push(() => api.close(), () => session.close());
        await api.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
        h1[side] = new ServerCrud(api, namespace);
        h2[side] = new ServerCrud(session, namespace);
        cpu[side] = () => new CpuAccumulator(server.process.pid, etcd.pid);
      }
      const warm = { durationMs: 0, maxIterations: 1_000, minIterations: 1_000, concurrency: CONCURRENCY };
      for (const s of SIDES) {
        await timedLoop(async (i) => { await h2[s].create(`warm-h2-${i}`, i); }, warm);
        await timedLoop(async (i) => { await h1[s].create(`warm-h1-${i}`, i); }, warm);
      }

      const names = { base: [] as string[], this: [] as string[] };
      const rows: ResultRow[] = [];
      const cell = async (label: string, op: (s: Side, round: number) => (i: number) => Promise<void>) => {
        const results = { base: [] as LoopResult[], this: [] as LoopResult[] };
        const acc = { base: cpu.base(), this: cpu.this() };
        for (let round = 0; round < rounds; round++) {
          for (const s of round % 2 ? [...SIDES].reverse() : SIDES) {
            ctx.log(`${NAME}: ${label}, ${s}, round ${round + 1}/${rounds}`);
            acc[s].start();
            results[s].push(await timedLoop(op(s, round), { durationMs: roundMs, maxIterations: 10_000_000, minIterations: 2 * CONCURRENCY, concurrency: CONCURRENCY }));
            acc[s].stop();
          }
        }
        const base = mergeLoops(results.base);
        const mine = mergeLoops(results.this);
        const baseCpu = acc.base.shares();
        const myCpu = acc.this.shares();
        const baseMs = cpuPerOp(base, baseCpu);
        const myMs = cpuPerOp(mine, myCpu);
        // The spread of the rounds' ratios says how much of the pooled ratio is noise.
        const perRound = results.this.map((r, i) => r.opsPerSec / results.base[i].opsPerSec).sort((a, b) => a - b);
        rows.push({
          benchmark: NAME, metric: `${label}: this build / base throughput`, unit: 'ops/s',
          value: mine.opsPerSec, baseline: base.opsPerSec, ratio: mine.opsPerSec / base.opsPerSec,
          note: `${mine.count} vs ${base.count} ops in ${rounds} alternating rounds, whose ratios range ${perRound[0].toFixed(2)}-${perRound[perRound.length - 1].toFixed(2)}; CPU % of a core (server, etcd, load generator): this ${myCpu.server?.toFixed(0)}, ${myCpu.etcd?.toFixed(0)}, ${myCpu.generator.toFixed(0)}; base ${baseCpu.server?.toFixed(0)}, ${baseCpu.etcd?.toFixed(0)}, ${baseCpu.generator.toFixed(0)}`,
        });
        rows.push({
          benchmark: NAME, metric: `${label}: server CPU per request`, unit: 'ms',
          value: myMs, baseline: baseMs, ratio: baseMs / myMs,
          note: 'this build (value) against the base (baseline); ratio > 1: this build uses less',
        });
      };
      await cell(`create c=${CONCURRENCY} HTTP/2`, (s, round) => async (i) => { await h2[s].create(`h2-${round}-${i}`, i); });
      await cell(`create c=${CONCURRENCY} HTTP/1.1`, (s, round) => async (i) => {
        const name = `h1-${round}-${i}`;
        await h1[s].create(name, i);
        names[s].push(name);
      });
      await cell(`get (RV=0) c=${CONCURRENCY} HTTP/1.1`, (s) => async (i) => { await h1[s].get(names[s][i % names[s].length], true); });
      return rows;
    } finally {
      for (const c of cleanups.reverse()) await Promise.resolve().then(c).catch(() => undefined);
    }
  },
};
