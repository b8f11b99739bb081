/**
 * The priority-and-fairness dispatcher (kube-apiserver 1.32's apf_controller.go): digests the
 * configuration (FlowSchemas sorted by matchingPrecedence then name, those naming a missing level
 * skipped as dangling, the mandatory `exempt` and `catch-all` supplied when absent), classifies a
 * request to its FlowSchema and priority level, and gives each limited level a queue set at its
 * current concurrency limit, readjusted every 10 s by seat demand (borrowing, concurrency.ts).
 * Classification is cached per request shape (user, groups, verb, resource, namespace, path):
 * the hot path is a map lookup.
 */
import {
  adjustLimits, BORROWING_ADJUSTMENT_PERIOD_MS, computeLevelLimits, DemandIntegrator, DemandStats, LevelLimits, maxSeatsOf,
} from './concurrency';
import { hashFlowId } from './dealer';
import { QueueSet, QueuingConfig } from './queueset';
import { matchesFlowSchema } from './rules';
import { BOOTSTRAP_MANDATORY_FLOW_SCHEMAS, BOOTSTRAP_MANDATORY_PRIORITY_LEVELS } from './bootstrap';
import type { FlowSchema, FlowControlConfiguration, PriorityLevelConfiguration, RequestDigest } from './types';
import type { FlowControlMetrics, FlowRecorder } from './metrics';

/** v1's default matchingPrecedence. */
const DEFAULT_PRECEDENCE = 1000;
const CACHE_LIMIT = 10_000;

export class LevelState {
  readonly exempt: boolean;
  readonly queues?: QueueSet;
  readonly integrator = new DemandIntegrator();
  readonly stats = new DemandStats();
  currentCL: number;
  maxSeats: number;
  /** Seats of running requests of an exempt level (demand only: they never wait). */
  exemptSeats = 0;

  constructor(public pl: PriorityLevelConfiguration, public limits: LevelLimits, queues?: QueueSet) {
    this.exempt = pl.spec.type === 'Exempt';
    this.currentCL = limits.initialCL;
    this.queues = queues;
    this.maxSeats = 0;
  }

  get name(): string { return this.pl.metadata.name; }
}

export interface Classification {
  readonly flowSchema: FlowSchema;
  readonly level: LevelState;
  /** The flow distinguisher (user name, namespace, or ''). */
  readonly distinguisher: string;
  /** The flow's key (schema and distinguisher) and its hash for shuffle sharding (kube's hashFlowID). */
  readonly flowKey: string;
  readonly flowHash: () => bigint;
  /** The flow's metrics series by request type (the filter's, made on first use). */
  recorders?: Partial<Record<'regular' | 'watch', FlowRecorder | undefined>>;
}

export interface DispatcherOptions {
  /** --max-requests-inflight + --max-mutating-requests-inflight (this worker's share). */
  serverConcurrencyLimit: number;
  metrics?: FlowControlMetrics;
}

export class Dispatcher {
  private flowSchemas: FlowSchema[] = [];
  private levels = new Map<string, LevelState>();
  private nominalCLSum = 0;
  /**
   * Classifications by request shape. The key holds everything a distinguisher is taken from
   * (user name, namespace), so one entry is one flow and is handed out as it is.
   */
  /** Classifications by user name, then the user's groups (compared one by one), then request shape. */
  private cache = new Map<string, CachedUser[]>();
  private cached = 0;
  private timer?: NodeJS.Timeout;

  constructor(private readonly opts: DispatcherOptions) {}

  /** Takes a new configuration; levels whose queuing is unchanged keep their queues. */
  configure(cfg: FlowControlConfiguration): void {
    const pls = [...cfg.priorityLevels];
    for (const m of BOOTSTRAP_MANDATORY_PRIORITY_LEVELS) {
      if (!pls.some((pl) => pl.metadata.name === m.metadata.name)) pls.push(m);
    }
    const limits = computeLevelLimits(pls, this.opts.serverConcurrencyLimit);
    const levels = new Map<string, LevelState>();
    this.nominalCLSum = 0;
    for (const pl of pls) {
      const l = limits.get(pl.metadata.name)!;
      this.nominalCLSum += l.nominalCL;
      const old = this.levels.get(pl.metadata.name);
      const queuing = queuingOf(pl);
      let state: LevelState;
      if (old && !old.exempt && pl.spec.type !== 'Exempt' && old.queues && queuing && sameQueuing(old.queues.config, queuing)) {
        state = old;
        state.pl = pl;
        state.limits = l;
      } else if (pl.spec.type === 'Exempt') {
        state = old?.exempt ? Object.assign(old, { pl, limits: l }) : new LevelState(pl, l);
      } else {
        let level: LevelState | undefined;
        const qs = new QueueSet(queuing ?? { queues: 0, handSize: 0, queueLengthLimit: 0 }, l.initialCL,
          () => { if (level?.queues) level.integrator.set(level.queues.demand); });
        level = new LevelState(pl, l, qs);
        state = level;
      }
      state.maxSeats = maxSeatsOf(l.nominalCL, queuing?.handSize);
      levels.set(pl.metadata.name, state);
    }
    this.levels = levels;
    const schemas = cfg.flowSchemas.filter((fs) => levels.has(fs.spec.priorityLevelConfiguration.name));
    schemas.sort((a, b) => (precedence(a) - precedence(b)) || (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
    const [exemptFs, catchAllFs] = BOOTSTRAP_MANDATORY_FLOW_SCHEMAS;
    if (!schemas.some((fs) => fs.metadata.name === 'exempt')) schemas.unshift(exemptFs);
    if (!schemas.some((fs) => fs.metadata.name === 'catch-all')) schemas.push(catchAllFs);
    this.flowSchemas = schemas;
    this.cache = new Map();
    this.cached = 0;
    this.adjustBorrowing();
  }

  /** The level named `name` (tests, metrics). */
  level(name: string): LevelState | undefined { return this.levels.get(name); }

  /** All levels. */
  allLevels(): LevelState[] { return [...this.levels.values()]; }

  /**
   * The first matching FlowSchema (catch-all when none matches), its level and the flow. The same
   * object for every request of one shape: not to be changed (but for its recorders).
   */
  classify(d: RequestDigest): Classification {
    const key = shapeKey(d);
    const user = this.cachedUser(d.user);
    let hit = user.shapes.get(key);
    if (!hit) {
      let chosen: FlowSchema | undefined;
      let catchAll: FlowSchema | undefined;
      for (const fs of this.flowSchemas) {
        if (matchesFlowSchema(d, fs)) { chosen = fs; break; }
        if (fs.metadata.name === 'catch-all') catchAll = fs;
      }
      chosen ??= catchAll ?? this.flowSchemas[this.flowSchemas.length - 1];
      const name = chosen.metadata.name;
      const method = chosen.spec.distinguisherMethod?.type;
      const distinguisher = method === 'ByUser' ? d.user.name : method === 'ByNamespace' ? (d.namespace ?? '') : '';
      hit = {
        flowSchema: chosen, level: this.levels.get(chosen.spec.priorityLevelConfiguration.name)!, distinguisher,
        flowKey: `${chosen.metadata.name}\0${distinguisher}`, flowHash: () => hashFlowId(name, distinguisher),
      };
      if (this.cached >= CACHE_LIMIT) {
        this.cache.clear();
        this.cached = 0;
        return this.classify(d);
      }
      user.shapes.set(key, hit);
      this.cached++;
    }
    return hit;
  }

  /** The cache's entry of a user (name and groups), made on first use. */
  private cachedUser(u: RequestDigest['user']): CachedUser {
    let entries = this.cache.get(u.name);
    if (!entries) this.cache.set(u.name, entries = []);
    for (const e of entries) if (sameStrings(e.groups, u.groups)) return e;
    const e: CachedUser = { groups: [...u.groups], shapes: new Map() };
    entries.push(e);
    return e;
  }

  /** The flow's key and hash for shuffle sharding (kube's hashFlowID). */
  static flowOf(c: Classification): { key: string; hash: () => bigint } {
    return { key: c.flowKey, hash: c.flowHash };
  }

  /** One borrowing round (every 10 s, and after each configuration). */
  adjustBorrowing(): void {
    const inputs = [...this.levels.values()].map((l) => {
      l.stats.update(l.integrator.reset());
      return { name: l.name, exempt: l.exempt, limits: l.limits, stats: l.stats, currentCL: l.currentCL };
    });
    const next = adjustLimits(inputs, this.nominalCLSum);
    for (const l of this.levels.values()) {
      l.currentCL = next.get(l.name) ?? l.currentCL;
      l.queues?.setLimit(l.currentCL);
      this.opts.metrics?.limits(l.name, l.limits.nominalCL, l.currentCL);
    }
  }

  start(): void {
    this.timer ??= setInterval(() => this.adjustBorrowing(), BORROWING_ADJUSTMENT_PERIOD_MS).unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

function precedence(fs: FlowSchema): number { return fs.spec.matchingPrecedence ?? DEFAULT_PRECEDENCE; }

function queuingOf(pl: PriorityLevelConfiguration): QueuingConfig | undefined {
  const lr = pl.spec.limited?.limitResponse;
  if (!lr || lr.type !== 'Queue') return undefined;
  // v1's defaults: 64 queues, hand of 8, 50 per queue.
  const q = lr.queuing ?? {};
  return { queues: q.queues ?? 64, handSize: q.handSize ?? 8, queueLengthLimit: q.queueLengthLimit ?? 50 };
}

function sameQueuing(a: QueuingConfig, b: QueuingConfig): boolean {
  return a.queues === b.queues && a.handSize === b.handSize && a.queueLengthLimit === b.queueLengthLimit;
}

interface CachedUser { groups: readonly string[]; shapes: Map<string, Classification> }

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A request's shape within one user's cache entry. */
function shapeKey(d: RequestDigest): string {
  return d.isResourceRequest
    ? `r\0${d.verb}\0${d.apiGroup}\0${d.apiGroupAlias ?? ''}\0${d.resource}\0${d.subresource ?? ''}\0${d.namespace ?? ''}`
    : `n\0${d.verb}\0${d.path}\0${d.namespace ?? ''}`;
}
