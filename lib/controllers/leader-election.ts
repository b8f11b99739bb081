/**
 * Leader election over a Lease, as client-go's leaderelection with a LeaseLock: a replica takes
 * the lease when it is free (no holder) or when the record it last saw has not changed for the
 * record's leaseDurationSeconds (measured on the local clock from when this replica saw it
 * change, so clocks of replicas need not agree), renews it every retry period, and stops leading
 * as soon as another holder is seen or no renewal succeeded within the renew deadline. Every
 * write names the resourceVersion it read: of two replicas racing, one wins and one gets a
 * Conflict. On a graceful stop the holder releases the lease (client-go's ReleaseOnCancel), so
 * another replica takes it at its next try.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { GenericStore } from '../registry/store';
import { ApiObject, StrategyContext } from '../scheme/types';
import { LeaseSpec } from '../registry/coordination/leases/validation';
import { Naming } from '../naming';
import { logger } from '../logger';
import type { ControllerManager } from './manager';

/** client-go's JitterFactor: acquire retries wait retryPeriod * (1 + rand * 1.2). */
const JITTER_FACTOR = 1.2;

export interface LeaderElectionOptions {
  /** The Lease store (writes go through it in-process, as the loopback identity). */
  leases: GenericStore;
  namespace: string;
  name: string;
  /** Unique per replica: `<hostname>_<uuid>` (newIdentity). */
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** The manager recorded in the Lease's managedFields. */
  fieldManager: string;
  /** Called when this replica starts holding the lease; awaited before the next transition. */
  onStartedLeading(): Promise<void>;
  /** Called when it stops holding it (lost, not renewed in time, or stopped). */
  onStoppedLeading(): Promise<void>;
}

/** The identity kube-controller-manager uses: host name, `_`, a fresh UUID. */
export function newIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/**
 * Why the three durations cannot work together (client-go's NewLeaderElector checks), or
 * undefined. The lease records whole seconds, so the duration must be at least 1s.
 */
export function leaderElectionTimesProblem(leaseDurationMs: number, renewDeadlineMs: number, retryPeriodMs: number): string | undefined {
  if (leaseDurationMs < 1000) return 'leaseDuration must be at least 1s (the Lease records whole seconds)';
  if (leaseDurationMs <= renewDeadlineMs) return 'leaseDuration must be greater than renewDeadline';
  if (renewDeadlineMs <= JITTER_FACTOR * retryPeriodMs) return 'renewDeadline must be greater than retryPeriod*JitterFactor';
  if (retryPeriodMs < 1) return 'retryPeriod must be greater than zero';
  return undefined;
}

/** A MicroTime now (millisecond clock, six digits as Go writes it). */
function microNow(): string {
  return new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

const sleep = (ms: number, wake: Set<() => void>) => new Promise<void>((resolve) => {
  const done = () => { clearTimeout(timer); wake.delete(done); resolve(); };
  const timer = setTimeout(done, ms);
  wake.add(done);
});

export class LeaderElector {
  /** The record last seen (read or written) and when, on the local clock, it last changed. */
  private observed: LeaseSpec = {};
  private observedRaw = '';
  private observedAt = 0;
  /** The Lease last read or written: its resourceVersion guards the next write. */
  private lease?: ApiObject;
  private leading = false;
  private lastRenewAt = 0;
  private stopped = false;
  private loop?: Promise<void>;
  private inflight?: Promise<boolean>;
  /** Start and stop callbacks run one after the other, never overlapping. */
  private transitions: Promise<void> = Promise.resolve();
  private readonly wake = new Set<() => void>();
  private readonly ctx: StrategyContext;

  constructor(readonly opts: LeaderElectionOptions) {
    this.ctx = { namespace: opts.namespace };
  }

  /** This replica's identity in the Lease. */
  get identity(): string { return this.opts.identity; }

  /** Whether this replica holds the lease (as it last saw the record) and leads. */
  isLeader(): boolean { return this.leading; }

  /** The holder in the record last seen ('' when free). */
  leader(): string { return this.observed.holderIdentity ?? ''; }

  /**
   * Tries once to acquire now (so a lone replica leads, and its controllers run, before the
   * server serves), then keeps acquiring or renewing in the background until stop().
   */
  async start(): Promise<void> {
    if (await this.attempt()) this.startLeading();
    await this.transitions;
    this.loop = this.run();
  }

  /**
   * Graceful stop: no more tries, the controllers stop, and the lease is released when this
   * replica holds it (bounded by the renew deadline, as client-go's release).
   */
  async stop(): Promise<void> {
    if (this.stopped) return this.loop;
    this.stopped = true;
    for (const wake of [...this.wake]) wake();
    const wasLeading = this.leading;
    this.stopLeading('stopped');
    await this.transitions;
    await this.loop;
    // A try that was running when stop came may have taken the lease: release that too.
    if (wasLeading || this.observed.holderIdentity === this.opts.identity) await this.withDeadline(this.release(), this.opts.renewDeadlineMs);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const period = this.leading ? this.opts.retryPeriodMs : this.opts.retryPeriodMs * (1 + Math.random() * JITTER_FACTOR);
      await sleep(period, this.wake);
      if (this.stopped) break;
      if (!this.leading) {
        if (await this.withDeadline(this.attempt(), this.opts.renewDeadlineMs)) this.startLeading();
        continue;
      }
      const left = this.lastRenewAt + this.opts.renewDeadlineMs - Date.now();
      const renewed = left > 0 && await this.withDeadline(this.attempt(), left);
      if (this.stopped) break;
      if (renewed) continue;
      const holder = this.observed.holderIdentity;
      if (holder && holder !== this.opts.identity) this.stopLeading(`lease taken by ${holder}`);
      else if (Date.now() >= this.lastRenewAt + this.opts.renewDeadlineMs) this.stopLeading('failed to renew lease within the renew deadline');
    }
  }

  private startLeading(): void {
    if (this.leading || this.stopped) return;
    this.leading = true;
    this.lastRenewAt = Date.now();
    logger.info('successfully acquired lease', { lease: this.describe(), identity: this.opts.identity });
    this.chain(() => this.opts.onStartedLeading());
  }

  private stopLeading(reason: string): void {
    if (!this.leading) return;
    this.leading = false;
    logger.info('stopped leading', { lease: this.describe(), reason });
    this.chain(() => this.opts.onStoppedLeading());
  }

  private chain(step: () => Promise<void>): void {
    this.transitions = this.transitions.then(step).catch((err) => {
      logger.error('leader election callback failed', { lease: this.describe(), error: err instanceof Error ? err.message : String(err) });
    });
  }

  /** One try at a time: a try still running (etcd slow) counts as a failed one. */
  private async attempt(): Promise<boolean> {
    if (this.inflight) return false;
    const attempt = this.tryAcquireOrRenew().catch((err) => {
      logger.warn('leader election: lease write failed', { lease: this.describe(), error: err instanceof Error ? err.message : String(err) });
      return false;
    }).finally(() => { this.inflight = undefined; });
    this.inflight = attempt;
    const ok = await attempt;
    if (ok) this.lastRenewAt = Date.now();
    return ok;
  }

  private async withDeadline(work: Promise<boolean>, ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), ms); });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** client-go's tryAcquireOrRenew: the optimistic renew, else read, judge and write. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = microNow();
    const mine: LeaseSpec = {
      holderIdentity: this.opts.identity,
      leaseDurationSeconds: Math.floor(this.opts.leaseDurationMs / 1000),
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    };
    const isHolder = () => this.observed.holderIdentity === this.opts.identity;
    if (isHolder() && this.observedValid() && this.lease) {
      const renewal = { ...mine, acquireTime: this.observed.acquireTime, leaseTransitions: this.observed.leaseTransitions ?? 0 };
      if (await this.write(renewal).then(() => true, () => false)) return true;
    }
    let current: ApiObject;
    try {
      current = await this.opts.leases.get(this.opts.namespace, this.opts.name);
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
      this.lease = await this.opts.leases.create(this.ctx, {
        metadata: { name: this.opts.name, namespace: this.opts.namespace }, spec: mine,
      }, { dryRun: false, fieldManager: this.opts.fieldManager });
      this.observe(mine);
      return true;
    }
    this.lease = current;
    const record = (current.spec ?? {}) as LeaseSpec;
    this.observe(record);
    if (record.holderIdentity && this.observedValid() && !isHolder()) return false;
    const next = isHolder()
      ? { ...mine, acquireTime: record.acquireTime, leaseTransitions: record.leaseTransitions ?? 0 }
      : { ...mine, leaseTransitions: (record.leaseTransitions ?? 0) + 1 };
    await this.write(next);
    return true;
  }

  /** Releases a lease this replica holds: no holder, a 1 s duration, transitions kept. */
  private async release(): Promise<boolean> {
    try {
      const current = await this.opts.leases.get(this.opts.namespace, this.opts.name);
      const record = (current.spec ?? {}) as LeaseSpec;
      // Never clear another replica's hold (it may have taken over meanwhile).
      if (record.holderIdentity !== this.opts.identity) return true;
      this.lease = current;
      const now = microNow();
      await this.write({ holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: record.leaseTransitions ?? 0 });
      logger.info('released lease', { lease: this.describe() });
      return true;
    } catch (err) {
      logger.warn('leader election: failed to release lease', { lease: this.describe(), error: err instanceof Error ? err.message : String(err) });
      return false;
    }
  }

  /** An update conditioned on the resourceVersion last seen; records what was written. */
  private async write(spec: LeaseSpec): Promise<void> {
    const base = this.lease as ApiObject;
    const { object } = await this.opts.leases.update(this.ctx, this.opts.name, { ...base, spec }, { dryRun: false, fieldManager: this.opts.fieldManager });
    this.lease = object;
    this.observe(spec);
  }

  private observe(record: LeaseSpec): void {
    const raw = JSON.stringify([record.holderIdentity ?? '', record.leaseDurationSeconds ?? 0, record.acquireTime ?? '',
      record.renewTime ?? '', record.leaseTransitions ?? 0, record.strategy ?? '', record.preferredHolder ?? '']);
    if (raw === this.observedRaw) return;
    this.observed = { ...record };
    this.observedRaw = raw;
    this.observedAt = Date.now();
  }

  private observedValid(): boolean {
    return this.observedAt + (this.observed.leaseDurationSeconds ?? 0) * 1000 > Date.now();
  }

  private describe(): string {
    return `${this.opts.namespace}/${this.opts.name}`;
  }
}

/** The durations of the election (--leader-elect-lease-duration, -renew-deadline, -retry-period). */
export interface LeaderElectionTimes {
  leaderElectLeaseDurationMs: number;
  leaderElectRenewDeadlineMs: number;
  leaderElectRetryPeriodMs: number;
}

/**
 * The Lease the server's controllers elect on: a name of their own in both flavors, never
 * `kube-controller-manager` or `kube-scheduler`, so a real kube-controller-manager or
 * kube-scheduler started beside the server (issue 40) becomes leader on its own Lease while the
 * server's controllers keep theirs.
 */
export function controllerLeaseName(naming: Naming): string {
  return naming.flavor === 'kubernetes' ? 'orch-apiserver-controller-manager' : 'orch-controller-manager';
}

/**
 * The election of this server's controllers, as kube-controller-manager's (same durations and
 * identity form) on the Lease `controllerLeaseName` in the system namespace; leading starts
 * fresh controllers, losing stops them. Field manager: the name Kubernetes' controllers write as.
 */
export function controllerManagerElector(controllers: ControllerManager, leases: GenericStore, naming: Naming, times: LeaderElectionTimes): LeaderElector {
  const fieldManager = `${naming.flavor === 'kubernetes' ? 'kube' : 'orch'}-controller-manager`;
  return new LeaderElector({
    leases, namespace: naming.systemNamespace, name: controllerLeaseName(naming), identity: newIdentity(), fieldManager,
    leaseDurationMs: times.leaderElectLeaseDurationMs, renewDeadlineMs: times.leaderElectRenewDeadlineMs, retryPeriodMs: times.leaderElectRetryPeriodMs,
    onStartedLeading: () => controllers.startAll(),
    onStoppedLeading: () => controllers.stopAll(),
  });
}
