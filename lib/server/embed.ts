/**
 * The embedding API for tests (what envtest is to Go): a whole server in this process, on a free
 * loopback port, over an etcd of its own (the real binary, data in a temp dir) or a given one,
 * with everything a test needs to reach it (URL, kubeconfig, CA, admin identity) and a stop()
 * that leaves no process, temp dir or etcd key behind. Several may run in one process.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Flavor } from '../naming';
import { parseFlags } from './flags';
import type { ServerConfig } from '../config';
import { loadServiceAccountKeys } from '../serviceaccount/keys';
import { RunningServer, servingHosts, startServer, StartOptions } from './server';
import { ensurePki, signClientCertificate } from './pki';
import { startEmbeddedEtcd } from './embedded-etcd';

/** An etcd a server runs over: its client URL, and a stop() when this process owns it. */
export interface EtcdHandle {
  /** `http://127.0.0.1:<port>`, for `--etcd-servers`. */
  endpoint: string;
  /** The etcd process, when this process started it. */
  pid?: number;
  /** Its data dir, a temp dir removed by stop(), when this process started it. */
  dataDir?: string;
  /** Stops etcd and removes its data dir (idempotent; a no-op for an etcd given by the caller). */
  stop(): Promise<void>;
}

export interface StartApiServerOptions {
  /** `kubernetes` (k8s.io groups, kube-system: what stock clients expect) or `orch`; the server's default (`orch`) when unset. */
  flavor?: Flavor;
  /**
   * A running etcd (its client URL, or a handle such as another server's `etcd`) instead of one
   * started for this server. Unless `etcdPrefix` is given, the server then keeps its objects
   * under a prefix of its own, deleted by stop(), so that servers sharing the etcd do not meet.
   */
  etcd?: string | { endpoint: string };
  /** `--etcd-prefix`: given, the objects are kept after stop() (a restart on the same etcd finds them). */
  etcdPrefix?: string;
  /** More server flags (kube-apiserver's names), after the embedding's own, so they win. */
  flags?: string[];
  /** The etcd binary (default `$ETCD_BINARY`, else `etcd` on PATH). */
  etcdBinary?: string;
  /** Options of the server that are not flags (tests' shorter listener timeouts, CRD serving). */
  serverOptions?: StartOptions;
}

export interface ApiServer {
  /** `https://127.0.0.1:<port>` */
  url: string;
  /** The admin kubeconfig's text (cluster, CA and the admin client certificate embedded). */
  kubeconfig: string;
  kubeconfigPath: string;
  /** The CA the serving certificate and the admin certificate are signed by. */
  caCertPem: string;
  /** The admin client identity (user `orch-admin`, group `system:masters`). */
  admin: { certPem: string; keyPem: string };
  /** A client certificate for another user, signed by the server's CA (nothing is written to disk). */
  identity(commonName: string, groups?: string[]): { certPem: string; keyPem: string };
  /** The etcd the server runs over (stopping it early is an etcd outage). */
  etcd: EtcdHandle;
  /** `--etcd-prefix` of the server. */
  etcdPrefix: string;
  /** `--data-dir` of the server: a temp dir removed by stop(). */
  dataDir: string;
  /** The server itself, for tests that look inside it. */
  server: RunningServer;
  /** Stops the server, then what was started for it (etcd, temp dirs, a prefix of its own). Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts etcd on free loopback ports with its data in a new temp dir; fsync is skipped where the
 * binary allows it (etcd 3.5+): the data of a test need not survive a crash.
 */
export async function startThrowawayEtcd(etcdBinary?: string): Promise<EtcdHandle> {
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-test-etcd-'));
  try {
    const etcd = await startEmbeddedEtcd({ dataDir, etcdBinary: etcdBinary || process.env.ETCD_BINARY || undefined, unsafeNoFsync: true });
    let stopping: Promise<void> | undefined;
    return {
      endpoint: etcd.clientUrl,
      pid: etcd.process.pid,
      dataDir,
      stop: () => (stopping ??= etcd.stop().then(() => fsp.rm(dataDir, { recursive: true, force: true }))),
    };
  } catch (err) {
    await fsp.rm(dataDir, { recursive: true, force: true });
    throw err;
  }
}

export async function startApiServer(opts: StartApiServerOptions = {}): Promise<ApiServer> {
  const given = typeof opts.etcd === 'string' ? opts.etcd : opts.etcd?.endpoint;
  // Alone on its etcd, the server keeps kube-apiserver's default prefix; beside others, one of its own.
  const ownPrefix = given !== undefined && opts.etcdPrefix === undefined;
  const etcdPrefix = opts.etcdPrefix ?? (ownPrefix ? `/registry-${randomBytes(6).toString('hex')}` : '/registry');
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-apiserver-'));
  let etcd: EtcdHandle | undefined;
  let server: RunningServer;
  try {
    // Parsed before anything starts, so that a bad flag stops the start at once; etcd's URL is added once it is up.
    const config = parseFlags([
      `--data-dir=${dataDir}`, `--etcd-prefix=${etcdPrefix}`, '--secure-port=0', '--log-level=error',
      ...(opts.flavor ? [`--flavor=${opts.flavor}`] : []), ...(opts.flags ?? []),
    ]);
    const [etcdStarted, keysMade] = await Promise.allSettled([
      given ? Promise.resolve({ endpoint: given, stop: async () => undefined }) : startThrowawayEtcd(opts.etcdBinary),
      makeKeys(config),
    ]);
    if (etcdStarted.status === 'fulfilled') etcd = etcdStarted.value;
    for (const r of [etcdStarted, keysMade]) if (r.status === 'rejected') throw r.reason;
    server = await startServer({ ...config, etcdServers: [etcd!.endpoint] }, opts.serverOptions);
  } catch (err) {
    await etcd?.stop();
    await fsp.rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const running = etcd!;
  let stopping: Promise<void> | undefined;
  return {
    url: server.url,
    kubeconfig: readFileSync(server.kubeconfigPath, 'utf8'),
    kubeconfigPath: server.kubeconfigPath,
    caCertPem: server.pki.caCertPem,
    admin: { certPem: readFileSync(server.pki.adminCertFile, 'utf8'), keyPem: readFileSync(server.pki.adminKeyFile, 'utf8') },
    identity: (commonName, groups = []) => signClientCertificate(server.pki, { commonName, organizations: groups }),
    etcd: running,
    etcdPrefix,
    dataDir,
    server,
    stop: () => (stopping ??= (async () => {
      await server.stop();
      if (ownPrefix) await deletePrefix(running.endpoint, etcdPrefix);
      await running.stop();
      await fsp.rm(dataDir, { recursive: true, force: true });
    })()),
  };
}

/**
 * What the server makes first in a new data dir, made while etcd starts (RSA key generation is
 * most of a first start; the server then finds it in place): its PKI and its service-account key.
 */
async function makeKeys(config: ServerConfig): Promise<void> {
  const pkiDir = path.join(config.dataDir, 'pki');
  await fsp.mkdir(pkiDir, { recursive: true, mode: 0o700 });
  await Promise.all([
    ensurePki(pkiDir, { serverHosts: servingHosts(config) }),
    config.serviceAccountSigningKeyFile ? undefined : loadServiceAccountKeys({ signingKeyFile: '', keyFiles: [], pkiDir }),
  ]);
}

/** Deletes every key under `prefix/` through etcd's JSON gateway (no client kept open for it). */
async function deletePrefix(endpoint: string, prefix: string): Promise<void> {
  const start = Buffer.from(`${prefix}/`);
  const end = Buffer.from(start);
  end[end.length - 1]++;
  const res = await fetch(`${endpoint}/v3/kv/deleterange`, {
    method: 'POST', body: JSON.stringify({ key: start.toString('base64'), range_end: end.toString('base64') }), signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok) throw new Error(`deleting ${prefix}/ from etcd at ${endpoint}: HTTP ${res.status} ${await res.text()}`);
}
