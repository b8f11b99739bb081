/**
 * The built server as a real child process (`node [nodeArgs] dist/lib/server/main.js`), as a
 * user starts it: for the e2e tests, and for the benchmarks (so the load generator and the server
 * do not share one event loop; they pass node flags such as --cpu-prof or --inspect).
 * Ready once it has printed its admin kubeconfig and `/readyz` answers 200.
 */
import { ChildProcess, spawn } from 'node:child_process';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface ServerProcess {
  /** Path of the admin kubeconfig the server wrote. */
  kubeconfigPath: string;
  process: ChildProcess;
  /** `ws://127.0.0.1:<port>/<id>` when the server runs with --inspect (see test/bench/inspector-gc.ts). */
  inspectorUrl?: string;
  /** The last lines the server wrote to stderr, for failure messages. */
  stderrTail(): string;
  /**
   * SIGTERM, then SIGKILL after `graceMs`. Resolves once the process has exited, with
   * `forced: true` when it did not stop on SIGTERM in time. Idempotent.
   */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; forced: boolean }>;
}

const MAIN_JS = path.resolve(__dirname, '../../lib/server/main.js');
const STDERR_TAIL_LINES = 30;

export interface StartServerOptions {
  /** Flags for node itself, before the script, e.g. ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] or ['--inspect=127.0.0.1:0']. */
  nodeArgs?: string[];
  /** How long start-up may take; 30 s by default. */
  timeoutMs?: number;
  /** Another entry script printing main.js's `admin kubeconfig:` line (the benchmark's server without metrics). */
  script?: string;
  /** How often readiness is asked; 100 ms by default (the start-up benchmark asks more often). */
  pollMs?: number;
}

/** Spawns the server with `args`; rejects (with no process left) if it is not ready in `timeoutMs`. */
export async function startServerProcess(args: string[], opts: StartServerOptions = {}): Promise<ServerProcess> {
  const { nodeArgs = [], timeoutMs = 30_000, script = MAIN_JS, pollMs = 100 } = opts;
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderrLines: string[] = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    handle.inspectorUrl ??= /Debugger listening on (ws:\/\/\S+)/.exec(chunk)?.[1];
    stderrLines = stderrLines.concat(chunk.split('\n').filter(Boolean)).slice(-STDERR_TAIL_LINES);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  let stopping: ReturnType<ServerProcess['stop']> | undefined;

  const handle: ServerProcess = {
    kubeconfigPath: '',
    process: child,
    stderrTail: () => stderrLines.join('\n'),
    stop(graceMs = 20_000) {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), graceMs).unref());
        const first = await Promise.race([exited, timer]);
        if (first !== 'timeout') return { ...first, forced: false };
        child.kill('SIGKILL');
        return { ...(await exited), forced: true };
      })();
      return stopping;
    },
  };

  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`server exited during start-up (${child.exitCode ?? child.signalCode}):\n${handle.stderrTail()}`);
      }
      const m = /admin kubeconfig: (\S+)/.exec(stdout);
      if (m && await readyzOk(m[1])) {
        handle.kubeconfigPath = m[1];
        return handle;
      }
      if (Date.now() > deadline) throw new Error(`server not ready in ${timeoutMs} ms:\n${handle.stderrTail()}`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  } catch (err) {
    await handle.stop(5_000);
    throw err;
  }
}

/** The live child processes of `pid` (the workers and embedded etcd of a server with --workers), from /proc (Linux). */
export function childPids(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** GET /readyz with the kubeconfig's server, CA and client certificate; true on 200. */
export async function readyzOk(kubeconfigPath: string): Promise<boolean> {
  const config = parseYaml(readFileSync(kubeconfigPath, 'utf8'));
  const cluster = config.clusters[0].cluster;
  const user = config.users[0].user;
  const b64 = (s: string | undefined) => (s ? Buffer.from(s, 'base64') : undefined);
  return new Promise((resolve) => {
    const req = https.get(`${cluster.server}/readyz`, {
      ca: b64(cluster['certificate-authority-data']),
      cert: b64(user['client-certificate-data']),
      key: b64(user['client-key-data']),
      timeout: 2_000,
    }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/**
 * The one line the server process prints when it refuses to start with `args` (it is pointed
 * at an etcd that does not exist, so only a start-up check can stop it first). Fails the test
 * when the server starts or prints more than its start-up failure.
 */
export async function startFailureLine(args: string[]): Promise<string> {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const os = await import('node:os');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'orch-start-failure-'));
  try {
    const err = await startServerProcess([`--data-dir=${dataDir}`, '--etcd-servers=http://127.0.0.1:1', '--secure-port=0', '--log-level=error', ...args])
      .then(() => undefined, (e: Error) => e);
    if (!err) throw new Error(`the server started with ${args.join(' ')}`);
    const lines = err.message.trim().split('\n');
    if (lines.length !== 2) throw new Error(`expected one line of start-up failure, got: ${err.message}`);
    return lines[1];
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
