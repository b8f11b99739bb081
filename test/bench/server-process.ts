/**
 * The server under test as a child process (`node [nodeArgs] dist/lib/server/main.js ...`), so the
 * load generator and the server do not share one event loop. test/helpers/server-process.ts does
 * the same for e2e tests but cannot pass node flags, which --server-cpu-prof needs.
 */
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { ApiClient, loadKubeconfig } from './api-client';

export interface ServerProcess {
  kubeconfigPath: string;
  process: ChildProcess;
  /** `ws://127.0.0.1:<port>/<id>` when the server runs with --inspect (see inspector-gc.ts). */
  inspectorUrl?: string;
  /** The last lines the server wrote to stderr, for failure messages. */
  stderrTail(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

const MAIN_JS = path.resolve(__dirname, '../../lib/server/main.js');
const STDERR_TAIL_LINES = 30;

/** Spawns the server; resolves once /readyz answers 200, rejects (no process left) after `timeoutMs`. */
export async function startServerProcess(args: string[], nodeArgs: string[] = [], timeoutMs = 30_000): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...nodeArgs, MAIN_JS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderrLines: string[] = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    handle.inspectorUrl ??= /Debugger listening on (ws:\/\/\S+)/.exec(chunk)?.[1];
    stderrLines = stderrLines.concat(chunk.split('\n').filter(Boolean)).slice(-STDERR_TAIL_LINES);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopping: Promise<void> | undefined;
  const handle: ServerProcess = {
    kubeconfigPath: '',
    process: child,
    stderrTail: () => stderrLines.join('\n'),
    stop(graceMs = 20_000) {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), graceMs).unref());
        if (await Promise.race([exited, timer]) === 'timeout') {
          child.kill('SIGKILL');
          await exited;
        }
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
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await handle.stop(5_000);
    throw err;
  }
}

async function readyzOk(kubeconfigPath: string): Promise<boolean> {
  const client = new ApiClient(loadKubeconfig(kubeconfigPath), 1);
  try {
    return (await client.request('GET', '/readyz')).status === 200;
  } catch {
    return false;
  } finally {
    client.close();
  }
}
