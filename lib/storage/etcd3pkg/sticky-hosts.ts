/**
 * One etcd member at a time for the etcd3 package (StickyHosts), as the lean client: its pool's
 * per-host policy lets calls through to the current member only, a failure leaves the member or
 * probes it, and a liveness probe finds a hung one.
 */
import type { Interceptor } from '@grpc/grpc-js';
import type { IRangeRequest } from 'etcd3';
import { storageErrorOf } from './etcd3-errors';

/** The package's internals this adapter steers: its pool of hosts (connection-pool.js). */
export interface PackageHost {
  host: string;
  getServiceClient(name: 'KV'): { range(req: IRangeRequest, md: unknown, opts: object, cb: (err: Error | null) => void): unknown };
  resetAllServices(): void;
}
export interface PackagePool {
  hosts: PackageHost[];
  withConnection<T>(service: 'Watch', fn: (c: { resource: PackageHost; client: { watch(md: unknown, opts: object): T }; metadata: unknown }) => T): Promise<T>;
}

/**
 * One member at a time, as the lean client: the package would spread calls over every host at
 * random (and so hold a connection to each, a hung one included). Here every call and watch goes
 * to the current member; the others refuse (the package then tries the next host in its loop,
 * without counting it as a failure). The current member is left (the next one in --etcd-servers
 * order becomes current) when a call on it fails Unavailable (connection refused or lost, "no
 * leader"), when its watch stream breaks, or when it does not answer the liveness probe: every
 * --etcd-keepalive-interval without an answer from it, a serializable count-only Range must be
 * answered within --etcd-keepalive-timeout (not HTTP/2 PINGs: etcd GOAWAYs clients that ping more
 * often than its --grpc-keepalive-min-time, 5 s). A missed deadline or etcd's "request timed out"
 * probes at once. Leaving closes the member's channels and ends its watches (one onError each).
 */
export class StickyHosts {
  current = 0;
  /** An answer came from the current member since the last probe tick. */
  answered = false;
  private probing = false;
  private timer: NodeJS.Timeout | undefined;
  /** Set once the client exists. */
  pool!: PackagePool;
  onLeave: (index: number, reason: string) => void = () => undefined;

  constructor(
    private readonly count: number,
    private readonly grpc: typeof import('@grpc/grpc-js'),
    readonly interceptors: Interceptor[],
    private readonly intervalMs: number,
    private readonly timeoutMs: number,
  ) {}

  /** The package's per-host policy (cockatiel's IPolicy: only execute is used by the pool). */
  policy(index: number): { execute<T>(fn: () => T | Promise<T>): Promise<T> } {
    const cockatiel = require('cockatiel') as typeof import('cockatiel');
    return {
      execute: async <T>(fn: () => T | Promise<T>): Promise<T> => {
        if (index !== this.current) throw new cockatiel.BrokenCircuitError('not the current etcd member');
        try {
          const out = await fn();
          if (index === this.current) this.answered = true;
          return out;
        } catch (err) {
          this.failed(index, err);
          throw err;
        }
      },
    };
  }

  /** A call or watch on member `index` failed with `err`: leave it, probe it, or nothing. */
  failed(index: number, err: unknown): void {
    if (index !== this.current) return;
    const e = storageErrorOf(err);
    if (e.code === 'Unavailable') this.leave(index, e.message);
    else if (e.code === 'Timeout') this.probe();
    else this.answered = true;
  }

  leave(index: number, reason: string): void {
    if (index !== this.current) return;
    this.current = (index + 1) % this.count;
    this.answered = false;
    try {
      this.pool.hosts[index].resetAllServices();
    } catch {
      // closed already
    }
    this.onLeave(index, reason);
  }

  start(): void {
    if (this.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      if (this.answered) this.answered = false;
      else this.probe();
    }, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Probes the current member now (one probe at a time). */
  probe(): void {
    if (this.probing || !this.pool) return;
    const index = this.current;
    let kv;
    try {
      kv = this.pool.hosts[index].getServiceClient('KV');
    } catch {
      return;
    }
    this.probing = true;
    const req: IRangeRequest = { key: PROBE_KEY, serializable: true, count_only: true };
    kv.range(req, new this.grpc.Metadata(), { deadline: Date.now() + this.timeoutMs, interceptors: this.interceptors }, (err) => {
      this.probing = false;
      if (!err) {
        if (index === this.current) this.answered = true;
        return;
      }
      const e = storageErrorOf(err);
      if (e.code === 'Unavailable' || e.code === 'Timeout') this.leave(index, `etcd did not answer a probe within ${this.timeoutMs} ms (${e.message})`);
    });
  }
}

const PROBE_KEY = Buffer.from('/orch-apiserver-probe');
