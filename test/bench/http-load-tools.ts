/**
 * h2load (Debian's nghttp2-client) and wrk, the C load generators of the http-stacks benchmark:
 * they cost the machine far less CPU per request than a Node client, so on 2 cores more of it is
 * left to the server being measured. Both are installed when missing and running as root, and
 * only ever aimed at 127.0.0.1. Neither presents a client certificate: they reach the server as
 * anonymous, which /healthz allows.
 */
import { execFile, spawnSync } from 'node:child_process';
import { exitedChildrenCpuSeconds } from './cpu-usage';

/** A load generator binary and the Debian package that ships it. */
export interface LoadTool { binary: string; debianPackage: string }

export const H2LOAD: LoadTool = { binary: 'h2load', debianPackage: 'nghttp2-client' };
export const WRK: LoadTool = { binary: 'wrk', debianPackage: 'wrk' };

/** One run of a load generator: what it completed and what it cost itself. */
export interface ToolRun {
  /** Requests answered with a 2xx (any other answer, error or timeout fails the run). */
  requests: number;
  /** The run's measured duration as the tool reports it. */
  elapsedSec: number;
  /** The tool's own CPU seconds (user + system), when /proc can tell. */
  generatorCpuSec?: number;
}

const onPath = (binary: string) => !spawnSync(binary, ['--help'], { stdio: 'ignore', timeout: 10_000 }).error;

/**
 * Makes every tool runnable: as root, `apt-get install -y` the missing ones' packages (after
 * `apt-get update` when a package is unknown). Throws, naming the command, when that is not possible.
 */
export function ensureLoadTools(tools: LoadTool[]): void {
  const missing = tools.filter((t) => !onPath(t.binary));
  if (!missing.length) return;
  const packages = missing.map((t) => t.debianPackage);
  const names = missing.map((t) => t.binary).join(' and ');
  if (process.getuid?.() !== 0) {
    throw new Error(`${names} not found and this is not root: run \`sudo apt-get install -y ${packages.join(' ')}\``);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => spawnSync('apt-get', ['install', '-y', '-q', ...packages], { env, encoding: 'utf8', timeout: 300_000 });
  let result = install();
  if (result.status !== 0 && /Unable to locate package|no installation candidate/.test(result.stderr ?? '')) {
    spawnSync('apt-get', ['update', '-q'], { env, stdio: 'ignore', timeout: 300_000 });
    result = install();
  }
  const still = missing.filter((t) => !onPath(t.binary));
  if (still.length) {
    throw new Error(`\`apt-get install -y ${packages.join(' ')}\` did not provide ${still.map((t) => t.binary).join(' and ')} `
      + `(exit ${result.status}):\n${(result.stderr ?? '').slice(-2000)}`);
  }
}

/** The URL, checked: load generators are only ever aimed at this machine's loopback. */
function loopback(url: string): string {
  const host = new URL(url).hostname;
  if (host !== '127.0.0.1') throw new Error(`load generators only target 127.0.0.1, not ${host}`);
  return url;
}

/** Runs a tool to its end (bounded by `timeoutMs`); its stdout, and its CPU from this process's reaped children. */
function runTool(binary: string, args: string[], timeoutMs: number): Promise<{ stdout: string; cpuSec?: number }> {
  const before = exitedChildrenCpuSeconds();
  return new Promise((resolve, reject) => {
    execFile(binary, args, { timeout: timeoutMs, maxBuffer: 4 << 20 }, (err, stdout, stderr) => {
      if (err) {
        reject(new Error(`${binary} ${args.join(' ')} failed: ${err.message}\n${stdout.slice(-1500)}${stderr.slice(-1500)}`));
        return;
      }
      const after = exitedChildrenCpuSeconds();
      resolve({ stdout, cpuSec: before === undefined || after === undefined ? undefined : after - before });
    });
  });
}

const num = (text: string, re: RegExp, what: string): number[] => {
  const m = re.exec(text);
  if (!m) throw new Error(`no ${what} in the output:\n${text.slice(-2000)}`);
  return m.slice(1).map(Number);
};

/**
 * `h2load -t1 -c<connections> -m<streams> -D<duration>` over TLS (ALPN h2): GETs of `url` for
 * `durationSec`. Fails unless every request finished with a 2xx over HTTP/2.
 */
export async function h2load(url: string, opts: { connections: number; streams: number; durationSec: number }): Promise<ToolRun> {
  const args = ['-t1', `-c${opts.connections}`, `-m${opts.streams}`, `-D${opts.durationSec}`, loopback(url)];
  const { stdout, cpuSec } = await runTool(H2LOAD.binary, args, opts.durationSec * 1000 + 30_000);
  if (!/Application protocol: h2\b/.test(stdout)) throw new Error(`h2load did not negotiate h2:\n${stdout.slice(-2000)}`);
  const [elapsedSec] = num(stdout, /finished in ([\d.]+)s, [\d.]+ req\/s/, '"finished in"');
  const [, , , succeeded, failed, errored, timeout] = num(stdout,
    /requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/, 'request counts');
  const [, s3xx, s4xx, s5xx] = num(stdout, /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/, 'status codes');
  if (failed + errored + timeout + s3xx + s4xx + s5xx > 0 || succeeded === 0) {
    throw new Error(`h2load: ${succeeded} succeeded, ${failed} failed, ${errored} errored, ${timeout} timed out, ${s3xx + s4xx + s5xx} not 2xx:\n${stdout.slice(-2000)}`);
  }
  return { requests: succeeded, elapsedSec, generatorCpuSec: cpuSec };
}

const WRK_TIME_UNITS: Record<string, number> = { us: 1e-6, ms: 1e-3, s: 1, m: 60 };

/**
 * `wrk -t1 -c<connections> -d<duration>s` over TLS (no ALPN, so HTTP/1.1 keep-alive): GETs of
 * `url` for `durationSec`. Fails on any non-2xx answer or socket error.
 */
export async function wrk(url: string, opts: { connections: number; durationSec: number }): Promise<ToolRun> {
  const args = ['-t1', `-c${opts.connections}`, `-d${opts.durationSec}s`, loopback(url)];
  const { stdout, cpuSec } = await runTool(WRK.binary, args, opts.durationSec * 1000 + 30_000);
  const m = /(\d+) requests in ([\d.]+)(us|ms|s|m),/.exec(stdout);
  if (!m) throw new Error(`no "requests in" in wrk's output:\n${stdout.slice(-2000)}`);
  const requests = Number(m[1]);
  const elapsedSec = Number(m[2]) * WRK_TIME_UNITS[m[3]];
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(stdout);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  if (non2xx || socket || requests === 0) {
    throw new Error(`wrk: ${requests} requests, ${non2xx?.[0] ?? 'no non-2xx'}, ${socket?.[0] ?? 'no socket errors'}:\n${stdout.slice(-2000)}`);
  }
  return { requests, elapsedSec, generatorCpuSec: cpuSec };
}
