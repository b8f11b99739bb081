/**
 * `--workers=N` (N > 1): the primary process of a server made of N worker processes.
 *
 * Each worker is a whole server (server.ts): its own etcd client, watch caches, admission and
 * authorization state. Worker 0 runs what is done once per server (compaction, the controllers,
 * the extension-apiserver-authentication ConfigMap) and takes no connections: the controllers
 * follow every change through their informers (a few percent of a write's CPU in a paired
 * benchmark), and here they get a core of their own, as kube-controller-manager beside
 * kube-apiserver. Workers 1..N-1 share the listening port through node:cluster; the primary
 * accepts connections and hands them out round-robin, so a connection (and every HTTP/2 stream
 * on it) stays with one worker. The primary itself serves nothing: it starts the embedded etcd
 * when there is no --etcd-servers (so etcd outlives a worker), starts worker 0 (PKI, bootstrap,
 * policy) and, once it runs, the others; it tells worker 0 the URL they serve at, restarts a
 * worker that dies, and on SIGTERM/SIGINT drains them all before it stops etcd.
 */
import cluster, { Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { ServerConfig } from '../config';
import { startEmbeddedEtcd, EmbeddedEtcd } from './embedded-etcd';
import { encodeWorkerRole, WORKER_ENV, WorkerRole } from './worker-role';
import { logger } from '../logger';
import { AuditFileServer } from '../audit/shared-file';
import { ClusterMetricsServer } from './cluster-metrics';
import { SliMetricsServer } from '../api/metrics/sli-metrics';
import { isMessage } from '../ipc';

/** What a worker sends the primary once it serves. */
export interface WorkerReady {
  type: 'orch-worker-ready';
  url: string;
  kubeconfigPath: string;
}

/** What the primary tells worker 0 (which does not listen) once the serving workers do. */
export interface ServerUrlMessage {
  type: 'orch-server-url';
  url: string;
}

export interface RunningWorkers {
  url: string;
  kubeconfigPath: string;
  /** Drains every worker (SIGTERM), then stops the embedded etcd. */
  stop(): Promise<void>;
}

/** A worker that dies is started again after this long (doubling, up to 30 s, while it keeps dying young). */
const RESTART_DELAY_MS = 500;
const RESTART_DELAY_MAX_MS = 30_000;
/** A worker that served this long before it died restarts after the first delay again. */
const HEALTHY_RUN_MS = 60_000;
/** Longest a worker may take to drain on stop before it is killed. */
const WORKER_STOP_MS = 30_000;

export async function startWorkers(config: ServerConfig, argv: string[]): Promise<RunningWorkers> {
  let etcd: EmbeddedEtcd | undefined;
  let etcdServers: string[] | undefined;
  if (!config.etcdServers.length) {
    etcd = await startEmbeddedEtcd({ dataDir: path.join(path.resolve(config.dataDir), 'etcd'), etcdBinary: config.etcdBinary, logger });
    etcdServers = [etcd.clientUrl];
    logger.info('embedded etcd started', { clientUrl: etcd.clientUrl });
  }
  const ticketKeys = randomBytes(48);
  // The audit log file has one writer, here, for all workers (lib/audit/shared-file.ts).
  const auditFiles = new AuditFileServer();
  // /metrics on any worker shows all of them, merged here (cluster-metrics.ts).
  const clusterMetrics = new ClusterMetricsServer();
  // /metrics/slis too: the health checks' indicators of every worker, kept here (sli-metrics.ts).
  const sliMetrics = new SliMetricsServer();
  cluster.setupPrimary({ exec: path.join(__dirname, 'main.js'), args: argv });
  const workers: (Worker | undefined)[] = new Array(config.workers).fill(undefined);
  let stopping = false;
  let ready: WorkerReady | undefined;

  let servedUrl: string | undefined;
  const restartDelays: number[] = [];
  /** Forks worker `index`; resolves when it runs (serves, for 1..N-1), rejects when it exits first. */
  const fork = (index: number): Promise<WorkerReady> => {
    const role: WorkerRole = { index, count: config.workers, etcdServers, ticketKeys };
    const w = cluster.fork({ [WORKER_ENV]: encodeWorkerRole(role) });
    workers[index] = w;
    auditFiles.attach(w);
    clusterMetrics.attach(w);
    sliMetrics.attach(w);
    const startedAt = Date.now();
    return new Promise((resolve, reject) => {
      let served = false;
      w.on('message', (m) => {
        if (!isMessage<WorkerReady>(m, 'orch-worker-ready') || served) return;
        served = true;
        // A restarted worker 0 learns the URL at once.
        if (index === 0 && servedUrl) w.send({ type: 'orch-server-url', url: servedUrl } satisfies ServerUrlMessage);
        resolve(m);
      });
      w.on('exit', (code, signal) => {
        if (workers[index] === w) workers[index] = undefined;
        if (!served) {
          reject(new Error(`worker ${index} exited during start-up (${code ?? signal})`));
          return;
        }
        if (stopping) return;
        const ranMs = Date.now() - startedAt;
        const delay = ranMs >= HEALTHY_RUN_MS ? RESTART_DELAY_MS : Math.min(RESTART_DELAY_MAX_MS, (restartDelays[index] ?? RESTART_DELAY_MS / 2) * 2);
        restartDelays[index] = delay;
        logger.error('worker exited; starting it again', { worker: index, code, signal, ranMs, restartInMs: delay });
        setTimeout(() => restart(index), delay).unref();
      });
    });
  };
  const restart = (index: number) => {
    if (stopping) return;
    fork(index).then(
      () => logger.info('worker serving again', { worker: index }),
      (err: Error) => logger.error('worker restart failed', { worker: index, error: err.message }),
    );
  };

  const stop = async () => {
    stopping = true;
    await Promise.all(workers.map((w) => (w ? stopWorker(w) : undefined)));
    await auditFiles.close();
    if (etcd) await etcd.stop();
  };
  try {
    // Worker 0 first: it creates the PKI and keys and bootstraps namespaces and policy; then the
    // serving ones, of which worker 1 writes the kubeconfig.
    await fork(0);
    const serving = await Promise.all(workers.map((_, i) => (i === 0 ? undefined : fork(i))));
    ready = serving[1]!;
    servedUrl = ready.url;
    workers[0]?.send({ type: 'orch-server-url', url: servedUrl } satisfies ServerUrlMessage);
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  logger.info('workers serving', { workers: config.workers, url: ready.url });
  return { url: ready.url, kubeconfigPath: ready.kubeconfigPath, stop };
}

/** SIGTERM (the worker drains as a lone server would), SIGKILL if it is not gone in time. */
function stopWorker(w: Worker): Promise<void> {
  return new Promise((resolve) => {
    if (w.process.exitCode !== null || w.process.signalCode !== null) {
      resolve();
      return;
    }
    const timer = setTimeout(() => w.process.kill('SIGKILL'), WORKER_STOP_MS);
    w.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    w.process.kill('SIGTERM');
  });
}
