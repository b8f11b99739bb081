/**
 * E2E helper: runs the real `kubectl` from PATH against one kubeconfig, with its discovery cache
 * in a private dir so no run sees another's cached discovery.
 */
import { execFile } from 'node:child_process';

export interface KubectlResult {
  /** Exit code; null when killed (e.g. on timeout). */
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface KubectlOptions {
  /** Kills kubectl after this long (the default given to kubectlFor, 20 s unless told). */
  timeoutMs?: number;
  /** Variables added to this process's environment for the one command (e.g. EDITOR). */
  env?: Record<string, string>;
}

export type Kubectl = (args: string[], opts?: KubectlOptions) => Promise<KubectlResult>;

/** Never rejects: a failing command is a result the test inspects. */
export function kubectlFor(kubeconfigPath: string, cacheDir: string, defaultTimeoutMs = 20_000): Kubectl {
  return (args, opts = {}) => new Promise((resolve) => {
    const argv = ['--kubeconfig', kubeconfigPath, `--cache-dir=${cacheDir}`, ...args];
    const env = opts.env ? { ...process.env, ...opts.env } : undefined;
    execFile('kubectl', argv, { timeout: opts.timeoutMs ?? defaultTimeoutMs, maxBuffer: 16 << 20, env }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { code?: number | string; killed?: boolean }) | null;
      if (e && typeof e.code === 'string') {
        // The binary could not be run at all (ENOENT ...): not a kubectl result.
        resolve({ code: null, stdout, stderr: `${stderr}${e.message}`, timedOut: false });
        return;
      }
      resolve({ code: e ? (e.code as number | undefined) ?? null : 0, stdout, stderr, timedOut: Boolean(e?.killed) });
    });
  });
}

/** One table kubectl printed: header names and each row keyed by them (cells trimmed, '' when empty). */
export interface PrintedTable { columns: string[]; rows: Record<string, string>[] }

/**
 * Splits kubectl's aligned table output by the header's column positions, so empty cells
 * (e.g. a resource without SHORTNAMES) stay in their column.
 */
export function parseTable(text: string): PrintedTable {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (!lines.length) return { columns: [], rows: [] };
  const header = lines[0];
  const starts: number[] = [];
  const re = /\S+/g;
  for (let m = re.exec(header); m; m = re.exec(header)) starts.push(m.index);
  const columns = starts.map((s, i) => header.slice(s, starts[i + 1]).trim());
  const rows = lines.slice(1).map((line) => Object.fromEntries(
    columns.map((c, i) => [c, line.slice(starts[i], starts[i + 1]).trim()]),
  ));
  return { columns, rows };
}
