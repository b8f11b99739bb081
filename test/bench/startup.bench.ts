/**
 * Start-up time (issue 44 item 6), as envtest-style suites feel it: from the spawn of the server
 * process to its first `/readyz` 200, over an etcd that is already up (the benchmark's own).
 * - cold: a new data dir (the PKI is made) and an etcd prefix no server used (empty storage: the
 *   bootstrap objects are written);
 * - restart: the same data dir and prefix again (everything found in place).
 * Each round runs one of each; the rows are medians, with the server's CPU seconds at ready (less
 * sensitive than the wall time to other load on the machine). kube-apiserver 1.20.2's own start
 * over the same etcd is measured the same way when its binary is built
 * (`$KUBE_CACHE/bin/kube-apiserver`, as test/control-plane/build.sh caches binaries), else reported absent.
 * The server is started as in production, from the build's bundle (dist/bundle/main.js,
 * scripts/bundle.js); from dist/lib/server/main.js when only tsc was run (the rows say which).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { generateKeyPairSync } from 'node:crypto';
import { spawn } from 'node:child_process';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import { processCpuSeconds } from './cpu-usage';
import { startServerProcess } from '../helpers/server-process';
import { startTestEtcd } from '../helpers/etcd-harness';
import { freeLoopbackPorts } from '../../lib/server/embedded-etcd';
import { KUBE_BIN } from '../control-plane/components';

const NAME = 'startup';
const BUNDLE = path.resolve(__dirname, '../../bundle/main.js');
const COLD_TARGET_MS = 500;
const RESTART_TARGET_MS = 250;
/** How often readiness is asked while a server starts. */
const POLL_MS = 5;

interface Start { ms: number; cpuSeconds?: number }

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

/** Spawns the server, waits for `/readyz` 200, and stops it again. */
async function timedStart(args: string[], nodeArgs: string[], script: string | undefined): Promise<Start> {
  const t0 = performance.now();
  const server = await startServerProcess(args, { nodeArgs, pollMs: POLL_MS, script });
  const ms = performance.now() - t0;
  const cpuSeconds = processCpuSeconds(server.process.pid);
  const stopped = await server.stop();
  if (stopped.forced) throw new Error('the server did not stop on SIGTERM');
  return { ms, cpuSeconds };
}

function rows(kind: string, starts: Start[], targetMs: number | undefined, note: string): ResultRow[] {
  const ms = median(starts.map((s) => s.ms));
  const cpu = starts.map((s) => s.cpuSeconds).filter((c): c is number => c !== undefined);
  const spread = `${starts.length} starts, ${Math.min(...starts.map((s) => s.ms)).toFixed(0)}-${Math.max(...starts.map((s) => s.ms)).toFixed(0)} ms`;
  return [
    { benchmark: NAME, metric: `${kind}: spawn to /readyz 200 (median)`, unit: 'ms', value: ms, ...(targetMs ? target(`< ${targetMs} ms`, ms < targetMs) : {}), note: `${note}; ${spread}` },
    { benchmark: NAME, metric: `${kind}: server CPU at ready (median)`, unit: 's', value: median(cpu) },
  ];
}

/** kube-apiserver's own start over `etcd`, the same way (its serving pair made in --cert-dir); undefined when not built. */
async function kubeApiserverStarts(ctx: BenchContext, etcd: string, rounds: number): Promise<Start[] | undefined> {
  const binary = path.join(KUBE_BIN, 'kube-apiserver');
  if (!existsSync(binary)) return undefined;
  const starts: Start[] = [];
  for (let i = 0; i < rounds; i++) {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'orch-bench-kube-'));
    try {
      const [port] = await freeLoopbackPorts(1);
      const sa = generateKeyPairSync('rsa', { modulusLength: 2048 });
      await writeFile(path.join(dir, 'sa.key'), sa.privateKey.export({ type: 'pkcs1', format: 'pem' }));
      const t0 = performance.now();
      const child = spawn(binary, [
        `--etcd-servers=${etcd}`, `--etcd-prefix=/kube-apiserver-${i}`, `--cert-dir=${dir}`, `--secure-port=${port}`, '--bind-address=127.0.0.1',
        `--service-account-key-file=${dir}/sa.key`, `--service-account-signing-key-file=${dir}/sa.key`,
        '--service-account-issuer=https://kubernetes.default.svc', '--authorization-mode=RBAC', '--service-cluster-ip-range=10.0.0.0/24',
      ], { stdio: 'ignore' });
      try {
        while (!(await readyzAnswers200(`https://127.0.0.1:${port}/readyz`))) {
          if (child.exitCode !== null) throw new Error(`kube-apiserver exited during start-up (${child.exitCode})`);
          if (performance.now() - t0 > 60_000) throw new Error('kube-apiserver not ready in 60 s');
          await new Promise((r) => setTimeout(r, POLL_MS));
        }
        starts.push({ ms: performance.now() - t0, cpuSeconds: processCpuSeconds(child.pid) });
      } finally {
        const exited = new Promise((r) => child.once('exit', r));
        if (child.exitCode === null) child.kill('SIGTERM');
        await exited;
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    ctx.log(`${NAME}: kube-apiserver start ${i + 1}: ${starts[i].ms.toFixed(0)} ms`);
  }
  return starts;
}

/** An anonymous GET of `/readyz` (RBAC's public-info-viewer allows it); true on 200. */
function readyzAnswers200(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = https.get(url, { rejectUnauthorized: false, timeout: 2_000 }, (res) => { res.resume(); resolve(res.statusCode === 200); });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

export const startupBench: Benchmark = {
  name: NAME,
  description: 'spawn to /readyz 200 over an etcd already up: cold (new data dir, empty prefix) and restart (the same again), medians; kube-apiserver where built',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const rounds = ctx.quick ? 3 : 7;
    const script = existsSync(BUNDLE) ? BUNDLE : undefined;
    const entry = script ? 'dist/bundle/main.js' : 'dist/lib/server/main.js (no bundle built)';
    const etcd = await startTestEtcd();
    const cold: Start[] = [];
    const restart: Start[] = [];
    try {
      for (let i = 0; i < rounds; i++) {
        const dataDir = await mkdtemp(path.join(os.tmpdir(), 'orch-bench-startup-'));
        try {
          const args = [`--etcd-servers=${etcd.endpoint}`, `--etcd-prefix=/startup-${i}`, '--secure-port=0', `--data-dir=${dataDir}`, '--log-level=error', ...ctx.serverArgs];
          cold.push(await timedStart(args, ctx.serverNodeArgs, script));
          restart.push(await timedStart(args, ctx.serverNodeArgs, script));
        } finally {
          await rm(dataDir, { recursive: true, force: true });
        }
        ctx.log(`${NAME}: round ${i + 1}: cold ${cold[i].ms.toFixed(0)} ms, restart ${restart[i].ms.toFixed(0)} ms`);
      }
      const kube = await kubeApiserverStarts(ctx, etcd.endpoint, rounds);
      return [
        ...rows('cold start', cold, COLD_TARGET_MS, `${entry}; new data dir (PKI made), empty etcd prefix (bootstrap objects written)`),
        ...rows('restart', restart, RESTART_TARGET_MS, `${entry}; same data dir and prefix`),
        ...(kube
          ? rows('kube-apiserver 1.20.2 cold start', kube, undefined, 'new --cert-dir, empty etcd prefix')
          : [{ benchmark: NAME, metric: 'kube-apiserver 1.20.2 cold start', unit: 'ms', value: NaN, note: `absent: no ${path.join(KUBE_BIN, 'kube-apiserver')} (test/control-plane/build.sh does not build it)` }]),
      ];
    } finally {
      await etcd.stop();
    }
  },
};
