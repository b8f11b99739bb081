/**
 * E2E helper: a long-running client (`kubectl get -w`, a python watch script) as a child process
 * whose stdout the test reads line by line while it runs.
 */
import { ChildProcess, spawn } from 'node:child_process';

export interface LineProcess {
  process: ChildProcess;
  /** Complete stdout lines so far, in order, empty lines dropped. */
  readonly lines: string[];
  /** All of stderr so far. */
  stderr(): string;
  /**
   * Resolves with `lines` once `done(lines)` is true; rejects after `timeoutMs`, or when the
   * process exits before, with what it printed.
   */
  waitFor(done: (lines: string[]) => boolean, what: string, timeoutMs?: number): Promise<string[]>;
  /** Resolves once stderr matches `re` (e.g. kubectl -v=6 logging its watch request). */
  waitForStderr(re: RegExp, timeoutMs?: number): Promise<void>;
  /** SIGTERM, then SIGKILL after 3 s; resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
}

const POLL_MS = 50;

export function spawnLines(command: string, args: string[]): LineProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  let exit: string | undefined;
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    lines.push(...parts.filter((l) => l.trim() !== ''));
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
  const exited = new Promise<void>((resolve) => {
    // 'close', not 'exit': by then all of stdout has been read.
    child.once('close', (code, signal) => { exit = `exited (${code ?? signal})`; resolve(); });
    child.once('error', (err) => { exit = `failed to start (${err.message})`; resolve(); });
  });
  const describe = () => `${command} ${args.join(' ')}\nstdout:\n${lines.join('\n')}\nstderr:\n${stderr.slice(-4000)}`;

  const poll = async (done: () => boolean, what: string, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (done()) return;
      if (exit !== undefined) throw new Error(`waiting for ${what}: the process ${exit}: ${describe()}`);
      if (Date.now() > deadline) throw new Error(`waiting for ${what}: timed out after ${timeoutMs} ms: ${describe()}`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  };

  let stopping: Promise<void> | undefined;
  return {
    process: child,
    lines,
    stderr: () => stderr,
    async waitFor(done, what, timeoutMs = 15_000) {
      await poll(() => done(lines), what, timeoutMs);
      return lines;
    },
    waitForStderr: (re, timeoutMs = 15_000) => poll(() => re.test(stderr), `stderr to match ${re}`, timeoutMs),
    stop() {
      stopping ??= (async () => {
        if (exit !== undefined) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}
