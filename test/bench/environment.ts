/**
 * What one benchmark runs against: its own etcd (test/helpers/etcd-harness.ts) and the server as
 * a child process pointed at it, with clients for both. stop() leaves no process or temp dir.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Etcd3 } from 'etcd3';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { createEtcdClient } from '../../lib/storage/etcd3/client';
import { ApiClient, loadKubeconfig, ServerConnection } from './api-client';
import { Http2ApiClient } from './http2-api-client';
import { EtcdWatchGauges, readEtcdWatchGauges } from './etcd-metrics';
import { ServerProcess, startServerProcess } from '../helpers/server-process';
import { Pki, signClientCertificate } from '../../lib/server/pki';

export interface EnvironmentOptions {
  /** Node flags for the server process, e.g. ['--cpu-prof', '--cpu-prof-dir=/tmp/prof']. */
  serverNodeArgs?: string[];
  /** Extra server flags, e.g. ['--workers=2']. */
  serverArgs?: string[];
}

export interface BenchEnvironment {
  /** `http://127.0.0.1:<port>` */
  etcdEndpoint: string;
  /** etcd's watch gauges before the server started: the baseline for "watches the server added". */
  etcdWatchesBeforeServer: EtcdWatchGauges;
  server: ServerConnection;
  /** The server process, for CPU accounting. */
  serverPid?: number;
  /** The etcd process, for CPU accounting. */
  etcdPid?: number;
  /** The server's inspector WebSocket, when its node args include --inspect (inspector-gc.ts). */
  serverInspectorUrl?: string;
  /** A new keep-alive HTTPS client with `maxSockets` = concurrency; closed by stop(). */
  apiClient(maxSockets: number): ApiClient;
  /** A new HTTP/2 client over `sessions` TLS connections; closed by stop(). */
  http2ApiClient(sessions?: number): Http2ApiClient;
  /**
   * A raw etcd3 client built as the server builds its own (no message size limit); closed by
   * stop(). `callTimeoutMs`: the deadline of each call (10 s by default).
   */
  etcdClient(callTimeoutMs?: number): Etcd3;
  /** The server's connection with a client certificate for another user, signed by the server's CA. */
  connectionAs(commonName: string, groups: string[]): ServerConnection;
  /** The server's stderr tail, for diagnosing a failed benchmark. */
  serverStderrTail(): string;
  stop(): Promise<void>;
}

export async function startBenchEnvironment(opts: EnvironmentOptions = {}): Promise<BenchEnvironment> {
  const cleanups: Array<() => Promise<void> | void> = [];
  let stopping: Promise<void> | undefined;
  // Idempotent: a signal handler and the runner may both call it; both wait for the same stop.
  const stop = () => {
    stopping ??= (async () => {
      // Last started, first stopped: clients, then the server, then etcd and the temp dir.
      const errs: unknown[] = [];
      for (const c of cleanups.splice(0).reverse()) {
        try { await c(); } catch (err) { errs.push(err); }
      }
      if (errs.length) throw errs[0];
    })();
    return stopping;
  };
  try {
    const etcd: TestEtcd = await startTestEtcd();
    cleanups.push(() => etcd.stop());
    const etcdWatchesBeforeServer = await readEtcdWatchGauges(etcd.endpoint);
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'orch-bench-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const server: ServerProcess = await startServerProcess([
      `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', `--data-dir=${dataDir}`, '--log-level=error', ...(opts.serverArgs ?? []),
    ], { nodeArgs: opts.serverNodeArgs });
    cleanups.push(async () => { await server.stop(); });
    const conn = loadKubeconfig(server.kubeconfigPath);
    return {
      etcdEndpoint: etcd.endpoint,
      etcdWatchesBeforeServer,
      server: conn,
      serverPid: server.process.pid,
      etcdPid: etcd.pid,
      serverInspectorUrl: server.inspectorUrl,
      apiClient(maxSockets) {
        const c = new ApiClient(conn, maxSockets);
        cleanups.push(() => c.close());
        return c;
      },
      http2ApiClient(sessions) {
        const c = new Http2ApiClient(conn, sessions);
        cleanups.push(() => c.close());
        return c;
      },
      etcdClient(callTimeoutMs) {
        const c = createEtcdClient({ endpoints: [etcd.endpoint], callTimeoutMs });
        cleanups.push(() => c.close());
        return c;
      },
      connectionAs(commonName, groups) {
        const pkiDir = path.join(dataDir, 'pki');
        const pki = { caCertFile: path.join(pkiDir, 'ca.crt'), caKeyFile: path.join(pkiDir, 'ca.key'), caCertPem: conn.ca.toString('utf8') } as Pki;
        const id = signClientCertificate(pki, { commonName, organizations: groups });
        return { ...conn, cert: Buffer.from(id.certPem), key: Buffer.from(id.keyPem) };
      },
      serverStderrTail: () => server.stderrTail(),
      stop,
    };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}
