/**
 * Runs the real `etcd` binary as a single-member cluster on loopback, for start-ups without
 * `--etcd-servers` and for integration tests.
 *
 * Ports are picked fresh at every start. etcd 3.4 restarts fine on an existing data dir with a new
 * peer URL (a lone member never dials peers), but it keeps the old URL in its membership; once
 * healthy, the member is updated to the URL it really listens on so `member list` tells the truth.
 */
import { ChildProcess, spawn, spawnSync } from 'child_process';
import { promises as fsp } from 'fs';
import * as net from 'net';

export interface EmbeddedEtcdLogger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  /** Receives etcd's own log lines when present; without it they are discarded. */
  debug?(msg: string): void;
}

export interface EmbeddedEtcdOptions {
  /** etcd's `--data-dir`; created (mode 0700) if missing, reused with its data if present. */
  dataDir: string;
  /** Path or name on PATH; default `etcd`. */
  etcdBinary?: string;
  logger?: EmbeddedEtcdLogger;
  /** etcd's `--quota-backend-bytes`; etcd's default (2 GiB) when unset. */
  quotaBackendBytes?: number;
  /** Pass `--unsafe-no-fsync` when the binary knows it (3.5+): for throw-away test data only. */
  unsafeNoFsync?: boolean;
  /** How long to wait for `/health` to report healthy; default 20 s. */
  startTimeoutMs?: number;
}

export interface EmbeddedEtcd {
  /** `http://127.0.0.1:<port>`, for `--etcd-servers` and etcd3 clients. */
  clientUrl: string;
  peerUrl: string;
  /** SIGTERM, then SIGKILL after 5 s; resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
  process: ChildProcess;
}

/** Stable codes callers branch on. */
export type EmbeddedEtcdErrorCode = 'ETCD_NOT_FOUND' | 'ETCD_EXITED' | 'ETCD_START_TIMEOUT';

export class EmbeddedEtcdError extends Error {
  constructor(readonly code: EmbeddedEtcdErrorCode, message: string) {
    super(message);
    this.name = 'EmbeddedEtcdError';
  }
}

const STOP_GRACE_MS = 5000;
const STDERR_TAIL_LINES = 20;
const START_ATTEMPTS = 3;

/**
 * Spawns etcd on two free loopback ports and resolves once it reports healthy. Rejects with
 * ETCD_NOT_FOUND (message includes how to install it) when the binary cannot be run,
 * ETCD_EXITED (message carries the tail of etcd's stderr) when it dies during start-up, and
 * ETCD_START_TIMEOUT when it is not healthy in time; in every case no etcd process is left behind.
 * A start that lost a race for its ports is retried on new ports.
 */
export async function startEmbeddedEtcd(opts: EmbeddedEtcdOptions): Promise<EmbeddedEtcd> {
  const binary = opts.etcdBinary ?? 'etcd';
  await fsp.mkdir(opts.dataDir, { recursive: true, mode: 0o700 });
  // etcd warns about (and 3.5 refuses) a data dir readable by others.
  await fsp.chmod(opts.dataDir, 0o700);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(binary, opts);
    } catch (err) {
      const portRace = err instanceof EmbeddedEtcdError && err.code === 'ETCD_EXITED' && /address already in use/.test(err.message);
      if (!portRace || attempt >= START_ATTEMPTS) throw err;
      opts.logger?.warn(`embedded etcd: port taken during start-up, retrying on new ports`);
    }
  }
}

async function startOnce(binary: string, opts: EmbeddedEtcdOptions): Promise<EmbeddedEtcd> {
  const [clientPort, peerPort] = await freeLoopbackPorts(2);
  const clientUrl = `http://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name', 'default',
    '--data-dir', opts.dataDir,
    '--listen-client-urls', clientUrl,
    '--advertise-client-urls', clientUrl,
    '--listen-peer-urls', peerUrl,
    '--initial-advertise-peer-urls', peerUrl,
    '--initial-cluster', `default=${peerUrl}`,
    '--initial-cluster-state', 'new',
    // Fewer entries kept in memory between snapshots than the default 100000: small machines.
    '--snapshot-count', '10000',
    '--logger', 'zap',
    '--log-outputs', 'stderr',
  ];
  if (opts.quotaBackendBytes !== undefined) args.push('--quota-backend-bytes', String(opts.quotaBackendBytes));
  if (opts.unsafeNoFsync && supportsFlag(binary, '--unsafe-no-fsync')) args.push('--unsafe-no-fsync');

  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const tail: string[] = [];
  let partial = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line) continue;
      tail.push(line);
      if (tail.length > STDERR_TAIL_LINES) tail.shift();
      opts.logger?.debug?.(`etcd: ${line}`);
    }
  });

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  // A dying API server must not orphan its etcd.
  const killOnExit = () => { child.kill('SIGTERM'); };
  process.once('exit', killOnExit);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.removeListener('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    })();
    return stopping;
  };

  const failed = new Promise<never>((_, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      process.removeListener('exit', killOnExit);
      if (err.code === 'ENOENT' || err.code === 'EACCES') {
        reject(new EmbeddedEtcdError('ETCD_NOT_FOUND',
          `cannot run etcd binary "${binary}" (${err.code}): install etcd 3.4 or newer ` +
          `(Debian/Ubuntu, as root: apt-get install etcd-server), set the binary path, ` +
          `or point --etcd-servers at an existing etcd cluster`));
      } else {
        reject(new EmbeddedEtcdError('ETCD_EXITED', `cannot start etcd binary "${binary}": ${err.message}`));
      }
    });
    void exited.then(({ code, signal }) => {
      const last = [...tail, partial].filter(Boolean).map(summarizeLogLine).join('\n');
      reject(new EmbeddedEtcdError('ETCD_EXITED',
        `etcd exited during start-up (${signal ?? `code ${code}`}); last log lines:\n${last}`));
    });
  });
  failed.catch(() => undefined); // observed below; avoids an unhandled rejection after a clean start

  const polling = new AbortController();
  try {
    await Promise.race([waitHealthy(clientUrl, opts.startTimeoutMs ?? 20000, polling.signal), failed]);
  } catch (err) {
    polling.abort(); // etcd is gone: stop polling it
    await stop();
    throw err;
  }
  await adoptPeerUrl(clientUrl, peerUrl, opts.logger);
  opts.logger?.info(`embedded etcd ready at ${clientUrl} (pid ${child.pid}, data ${opts.dataDir})`);
  return { clientUrl, peerUrl, stop, process: child };
}

/** Polls etcd's `/health` until it answers `{"health":"true"}`, the deadline passes or `cancel` fires. */
async function waitHealthy(clientUrl: string, timeoutMs: number, cancel: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !cancel.aborted) {
    try {
      const res = await fetch(`${clientUrl}/health`, { signal: AbortSignal.timeout(1000) });
      const body = (await res.json()) as { health?: string };
      if (body.health === 'true') return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new EmbeddedEtcdError('ETCD_START_TIMEOUT', `etcd at ${clientUrl} was not healthy within ${timeoutMs} ms`);
}

/**
 * After a restart on new ports the member still advertises its first peer URL; rewrite it.
 * Best effort: a lone member works either way, so a failure is only logged.
 */
async function adoptPeerUrl(clientUrl: string, peerUrl: string, logger?: EmbeddedEtcdLogger): Promise<void> {
  try {
    const list = (await postJson(`${clientUrl}/v3/cluster/member/list`, {})) as {
      header?: { member_id?: string };
      members?: Array<{ ID?: string; peerURLs?: string[] }>;
    };
    const self = list.members?.find((m) => m.ID === list.header?.member_id);
    if (!self?.ID || (self.peerURLs?.length === 1 && self.peerURLs[0] === peerUrl)) return;
    await postJson(`${clientUrl}/v3/cluster/member/update`, { ID: self.ID, peerURLs: [peerUrl] });
  } catch (err) {
    logger?.warn(`embedded etcd: could not update the member's peer URL to ${peerUrl}: ${(err as Error).message}`);
  }
}

async function postJson(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

/** Ports the kernel hands out for port 0, all held open together so they are distinct. */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = net.createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
    }
    return servers.map((s) => (s.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

const flagSupport = new Map<string, boolean>();

/** Whether `etcd --help` lists `flag`; asked once per binary and flag. */
function supportsFlag(binary: string, flag: string): boolean {
  const key = `${binary}\0${flag}`;
  let known = flagSupport.get(key);
  if (known === undefined) {
    const help = spawnSync(binary, ['--help'], { encoding: 'utf8', timeout: 5000 });
    known = `${help.stdout ?? ''}${help.stderr ?? ''}`.includes(flag);
    flagSupport.set(key, known);
  }
  return known;
}

/** zap JSON lines carry the useful part in `msg` and `error`; keep other lines as they are. */
function summarizeLogLine(line: string): string {
  try {
    const entry = JSON.parse(line) as { level?: string; msg?: string; error?: string };
    if (typeof entry.msg !== 'string') return line;
    return `${entry.level ?? ''} ${entry.msg}${entry.error ? `: ${entry.error}` : ''}`.trim();
  } catch {
    return line;
  }
}
