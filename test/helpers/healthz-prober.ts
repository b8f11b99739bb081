/**
 * A prober of /healthz on a connection of its own, in a process of its own, for the DoS tests:
 * while a test attacks the server on another connection, the prober sends GET /healthz, waits for
 * the answer, sleeps `intervalMs`, and again; at stop() it reports the latencies and failures.
 * A process of its own, so that what it measures is the server, not the attacking test's event
 * loop (which builds and parses megabytes of frames while the attack runs).
 *
 * Run as a script (`node healthz-prober.js`), it is that child: configuration from the
 * environment, "ready" on stdout after the first answer, the summary as one JSON line once stdin
 * says "stop".
 */
import { spawn } from 'node:child_process';
import http2 from 'node:http2';
import https from 'node:https';

export interface ProberSummary {
  probes: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Probes that were not answered 200 within the probe timeout: what happened, first ones only. */
  failures: string[];
  failureCount: number;
}

export interface ProberOptions {
  url: string;
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
  /** The prober's own connection: HTTP/2 (node:http2) or HTTP/1.1 (one keep-alive socket). */
  protocol: 'h2' | 'http/1.1';
  intervalMs?: number;
  /** A probe not answered in this long is a failure. */
  timeoutMs?: number;
}

export interface Prober {
  /** Ends probing after the probe in flight; resolves with the summary. */
  stop(): Promise<ProberSummary>;
}

/** Starts the prober process; resolves once its first probe was answered 200. */
export async function startProber(opts: ProberOptions): Promise<Prober> {
  const child = spawn(process.execPath, [__filename], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PROBE_URL: opts.url, PROBE_CA: opts.ca.toString(), PROBE_CERT: opts.cert.toString(), PROBE_KEY: opts.key.toString(),
      PROBE_PROTOCOL: opts.protocol, PROBE_INTERVAL_MS: String(opts.intervalMs ?? 20), PROBE_TIMEOUT_MS: String(opts.timeoutMs ?? 5_000),
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const lineAfter = async (prefix: string, timeoutMs: number): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = stdout.split('\n').find((l) => l.startsWith(prefix));
      if (line !== undefined) return line;
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`prober: no "${prefix}" line (${child.exitCode === null ? 'timed out' : `exited ${child.exitCode}`}):\n${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  await lineAfter('ready', 10_000);
  return {
    async stop() {
      child.stdin!.end('stop\n');
      const line = await lineAfter('{', 20_000);
      await exited;
      return JSON.parse(line) as ProberSummary;
    },
  };
}

// ---- the child ----

function quantile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : 0;
}

/** One GET /healthz; resolves with an error message, or undefined when answered 200. */
type Probe = () => Promise<string | undefined>;

function h2Probe(env: NodeJS.ProcessEnv, timeoutMs: number): Probe {
  let session: http2.ClientHttp2Session | undefined;
  return () => new Promise((resolve) => {
    if (!session || session.closed || session.destroyed) {
      session = http2.connect(env.PROBE_URL!, { ca: env.PROBE_CA, cert: env.PROBE_CERT, key: env.PROBE_KEY });
      session.on('error', () => undefined);
    }
    const req = session.request({ ':path': '/healthz' });
    let status = 0;
    const timer = setTimeout(() => { req.close(); resolve(`no answer in ${timeoutMs} ms`); }, timeoutMs);
    req.on('response', (h) => { status = Number(h[':status']); });
    req.on('error', (e) => { clearTimeout(timer); resolve(e.message); });
    req.on('end', () => { clearTimeout(timer); resolve(status === 200 ? undefined : `status ${status}`); });
    req.resume();
    req.end();
  });
}

function h1Probe(env: NodeJS.ProcessEnv, timeoutMs: number): Probe {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  return () => new Promise((resolve) => {
    const req = https.get(`${env.PROBE_URL}/healthz`, { agent, ca: env.PROBE_CA, cert: env.PROBE_CERT, key: env.PROBE_KEY }, (res) => {
      res.resume();
      res.on('end', () => { clearTimeout(timer); resolve(res.statusCode === 200 ? undefined : `status ${res.statusCode}`); });
    });
    const timer = setTimeout(() => { req.destroy(); resolve(`no answer in ${timeoutMs} ms`); }, timeoutMs);
    req.on('error', (e) => { clearTimeout(timer); resolve(e.message); });
  });
}

async function runChild(): Promise<void> {
  const env = process.env;
  const timeoutMs = Number(env.PROBE_TIMEOUT_MS);
  const intervalMs = Number(env.PROBE_INTERVAL_MS);
  const probe = env.PROBE_PROTOCOL === 'h2' ? h2Probe(env, timeoutMs) : h1Probe(env, timeoutMs);
  let stopping = false;
  process.stdin.on('data', (d) => { if (String(d).includes('stop')) stopping = true; });
  // The test went away without a word: stop too, rather than probe a server that is gone.
  process.stdin.on('end', () => { stopping = true; });
  const first = await probe();
  if (first) throw new Error(`the first probe failed: ${first}`);
  process.stdout.write('ready\n');
  const latencies: number[] = [];
  const failures: string[] = [];
  let failureCount = 0;
  while (!stopping) {
    const started = performance.now();
    const failure = await probe();
    latencies.push(performance.now() - started);
    if (failure) {
      failureCount++;
      if (failures.length < 5) failures.push(failure);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  latencies.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  const summary: ProberSummary = {
    probes: latencies.length, p50Ms: round(quantile(latencies, 0.5)), p99Ms: round(quantile(latencies, 0.99)),
    maxMs: round(latencies[latencies.length - 1] ?? 0), failures, failureCount,
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  process.exit(0);
}

if (require.main === module) {
  runChild().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
