/**
 * What a worker process of `--workers=N` knows of its place (workers.ts starts them): its index
 * (0 owns the once-per-server duties and, of several, serves no connections), how many there
 * are, the etcd the primary started when there is no --etcd-servers, and the TLS session ticket
 * keys all of them share. The primary hands it over in one environment variable, so a worker
 * parses the same command line as the primary did and nothing else.
 */
export interface WorkerRole {
  index: number;
  count: number;
  /** The embedded etcd's client URL when the primary started one. */
  etcdServers?: string[];
  /** 48 bytes, the same in every worker (tls.Server#setTicketKeys). */
  ticketKeys?: Buffer;
}

export const WORKER_ENV = 'ORCH_APISERVER_WORKER';

export function encodeWorkerRole(role: WorkerRole): string {
  return JSON.stringify({ ...role, ticketKeys: role.ticketKeys?.toString('base64') });
}

/** The role of this process, when it is a worker; a malformed value is a start-up error. */
export function workerRoleFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerRole | undefined {
  const raw = env[WORKER_ENV];
  if (!raw) return undefined;
  const v = JSON.parse(raw) as { index: number; count: number; etcdServers?: string[]; ticketKeys?: string };
  if (!Number.isInteger(v.index) || !Number.isInteger(v.count) || v.index < 0 || v.index >= v.count) {
    throw new Error(`${WORKER_ENV}: not a worker role: ${raw.slice(0, 100)}`);
  }
  return { index: v.index, count: v.count, etcdServers: v.etcdServers, ticketKeys: v.ticketKeys ? Buffer.from(v.ticketKeys, 'base64') : undefined };
}

/**
 * Whether this process takes connections: a lone server does; of several workers, worker 0 does
 * not (it runs the controllers, compaction and the other once-per-server duties on a core of its
 * own, as kube-controller-manager runs beside kube-apiserver) and workers 1..N-1 do.
 */
export function workerServes(role: WorkerRole | undefined): boolean {
  return !role || role.count <= 1 || role.index > 0;
}

/** The serving process that writes the admin kubeconfig (it knows the port): the only one, or worker 1. */
export function writesKubeconfig(role: WorkerRole | undefined): boolean {
  return !role || role.index === (role.count > 1 ? 1 : 0);
}

/**
 * A serving worker's part of a server-wide limit (0: unlimited stays unlimited), shared among the
 * workers that take connections. The parts add up to at least the limit: a limit of 5 over 2
 * workers is 3 each, never 2.
 */
export function workerShare(limit: number, role: WorkerRole | undefined): number {
  // Of N workers, N-1 serve; with one serving process it has the whole limit.
  if (!role || role.count <= 2 || limit <= 0) return limit;
  return Math.ceil(limit / (role.count - 1));
}
