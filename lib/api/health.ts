/**
 * Health endpoints as kube-apiserver serves them: `/healthz` (deprecated), `/livez`, `/readyz`, and
 * `/<endpoint>/<check>` for one check. Machines read only the status code (200 healthy, 500 not);
 * the text body is for operators and matches Kubernetes' byte for byte:
 *   ok                                      (all passed, not verbose)
 *   [+]ping ok                              (one line per check, verbose or on failure)
 *   [+]etcd excluded: ok                    (?exclude=etcd)
 *   [-]etcd failed: reason withheld         (the reason goes to the log, never the body)
 *   warn: some health checks cannot be excluded: no matches for "x"
 *   readyz check passed | readyz check failed
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { errors } from '../meta/api-errors';

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

export const healthEndpoints: readonly HealthEndpoint[] = ['healthz', 'livez', 'readyz'];

/** A named check: resolves when healthy, rejects (or throws) with the reason when not. */
export type HealthCheck = () => Promise<void>;

/** On which endpoints a check runs. */
export type HealthCheckPlacement = Partial<Record<HealthEndpoint, boolean>>;

export interface HealthChecksOptions {
  /**
   * Start-up grace for livez (kube-apiserver's --livez-grace-period): until this long after
   * markStarted() (or construction, if it is never called) failing livez checks report as passing
   * and are not run. readyz and healthz have no grace. Default 0.
   */
  livezGracePeriodMs?: number;
  /** A check that has not settled by then fails, so a hung etcd fails fast. Default 5000. */
  checkTimeoutMs?: number;
  /** Where failure reasons go (they are withheld from responses). Default console.warn. */
  log?: (message: string) => void;
  /**
   * Told each check's outcome on each whole-endpoint run (excluded checks and single-check paths
   * are not told): the /metrics/slis indicators (lib/api/metrics/sli-metrics.ts).
   */
  observe?: (name: string, endpoint: HealthEndpoint, ok: boolean) => void;
}

/** What one check did on one request. `reason` is set only for `failed`. */
export interface CheckOutcome { name: string; status: 'ok' | 'failed' | 'excluded'; reason?: string }

/** One endpoint's run: outcomes in listing order, and excludes that named no check. */
export interface HealthReport {
  endpoint: HealthEndpoint;
  outcomes: CheckOutcome[];
  unmatchedExcludes: string[];
  healthy: boolean;
}

interface Registered { name: string; check: HealthCheck; where: Record<HealthEndpoint, boolean> }

const everywhere: HealthCheckPlacement = { healthz: true, livez: true, readyz: true };

/** Name of the built-in readyz check that fails once startShutdown() is called. */
export const shutdownCheckName = 'shutdown';

/**
 * The registry of named checks. Built in: `ping` (always passes, on all endpoints, listed first) and
 * `shutdown` (readyz only, listed last, fails after startShutdown()). Checks of one request run in
 * parallel, each bounded by the timeout.
 */
export class HealthChecks {
  private readonly registered: Registered[] = [];
  private readonly livezGracePeriodMs: number;
  private readonly checkTimeoutMs: number;
  readonly log: (message: string) => void;
  private readonly observe?: (name: string, endpoint: HealthEndpoint, ok: boolean) => void;
  private startedAt = Date.now();
  private shuttingDown = false;

  constructor(opts: HealthChecksOptions = {}) {
    this.livezGracePeriodMs = opts.livezGracePeriodMs ?? 0;
    this.checkTimeoutMs = opts.checkTimeoutMs ?? 5000;
    this.log = opts.log ?? ((m) => console.warn(m));
    this.observe = opts.observe;
    this.add('ping', async () => undefined);
  }

  /**
   * Registers a check. Without `where` it runs on all three endpoints; with it, only on those set
   * true. Throws when the name is empty, taken, or `shutdown`.
   */
  add(name: string, check: HealthCheck, where: HealthCheckPlacement = everywhere): void {
    if (!name || name === shutdownCheckName || this.registered.some((r) => r.name === name)) {
      throw new Error(`health check name ${JSON.stringify(name)} is empty, reserved or already used`);
    }
    this.registered.push({
      name, check,
      where: { healthz: where.healthz === true, livez: where.livez === true, readyz: where.readyz === true },
    });
  }

  /** Starts (or restarts) the livez grace period now. */
  markStarted(): void {
    this.startedAt = Date.now();
  }

  /** From now on readyz's `shutdown` check fails, so load balancers drain this server; livez is unaffected. */
  startShutdown(): void {
    this.shuttingDown = true;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Check names of an endpoint in listing order. */
  names(endpoint: HealthEndpoint): string[] {
    return this.checksOf(endpoint).map((c) => c.name);
  }

  /** Runs every check of `endpoint` except the excluded ones (excludes naming no check are reported back). */
  async run(endpoint: HealthEndpoint, exclude: string[] = []): Promise<HealthReport> {
    const excluded = new Set(exclude);
    const checks = this.checksOf(endpoint);
    const outcomes = await Promise.all(checks.map(async (c): Promise<CheckOutcome> => {
      if (excluded.has(c.name)) return { name: c.name, status: 'excluded' };
      return this.execute(c);
    }));
    if (this.observe) {
      for (const o of outcomes) if (o.status !== 'excluded') this.observe(o.name, endpoint, o.status === 'ok');
    }
    const unmatchedExcludes = [...excluded].filter((n) => !checks.some((c) => c.name === n)).sort();
    return { endpoint, outcomes, unmatchedExcludes, healthy: outcomes.every((o) => o.status !== 'failed') };
  }

  /** Runs one check of `endpoint`; undefined when the endpoint has no check of that name. */
  async runOne(endpoint: HealthEndpoint, name: string): Promise<CheckOutcome | undefined> {
    const c = this.checksOf(endpoint).find((x) => x.name === name);
    return c ? this.execute(c) : undefined;
  }

  private checksOf(endpoint: HealthEndpoint): { name: string; check: HealthCheck }[] {
    const list = this.registered.filter((r) => r.where[endpoint]).map(({ name, check }) => ({ name, check }));
    if (endpoint === 'livez') {
      // As kube-apiserver's delayed livez checks: inside the grace period they pass without running.
      return list.map(({ name, check }) => ({ name, check: () => (this.inLivezGrace() ? Promise.resolve() : check()) }));
    }
    if (endpoint === 'readyz') {
      list.push({
        name: shutdownCheckName,
        check: async () => { if (this.shuttingDown) throw new Error('process is shutting down'); },
      });
    }
    return list;
  }

  private inLivezGrace(): boolean {
    return Date.now() - this.startedAt < this.livezGracePeriodMs;
  }

  private async execute(c: { name: string; check: HealthCheck }): Promise<CheckOutcome> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${this.checkTimeoutMs}ms`)), this.checkTimeoutMs);
    });
    try {
      await Promise.race([Promise.resolve().then(c.check), timeout]);
      return { name: c.name, status: 'ok' };
    } catch (e) {
      return { name: c.name, status: 'failed', reason: e instanceof Error ? e.message : String(e) };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The response body of a whole-endpoint run, as kube-apiserver writes it. */
export function formatHealthReport(report: HealthReport, verbose: boolean): string {
  let lines = '';
  for (const o of report.outcomes) {
    if (o.status === 'excluded') lines += `[+]${o.name} excluded: ok\n`;
    else if (o.status === 'failed') lines += `[-]${o.name} failed: reason withheld\n`;
    else lines += `[+]${o.name} ok\n`;
  }
  if (report.unmatchedExcludes.length) {
    const quoted = report.unmatchedExcludes.map((n) => JSON.stringify(n)).join(',');
    lines += `warn: some health checks cannot be excluded: no matches for ${quoted}\n`;
  }
  if (!report.healthy) return `${lines}${report.endpoint} check failed\n`;
  return verbose ? `${lines}${report.endpoint} check passed\n` : 'ok';
}

function writeText(ctx: Context, status: number, body: string): void {
  ctx.body = body;
  ctx.status = status;
  ctx.set('Content-Type', 'text/plain; charset=utf-8');
  ctx.set('X-Content-Type-Options', 'nosniff');
}

function queryList(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/**
 * Registers GET `/<endpoint>` and `/<endpoint>/<check>` for healthz, livez and readyz.
 * Whole endpoint: 200 when every non-excluded check passes, else 500 with per-check lines; `verbose`
 * (any value) prints the lines on success too; `exclude` is repeatable. One check: 200 `ok`, or 500
 * `internal server error: <reason>` as kube-apiserver does; an unknown check throws NotFound.
 */
export function installHealth(router: Router, checks: HealthChecks): void {
  for (const endpoint of healthEndpoints) {
    router.get(`/${endpoint}`, async (ctx) => {
      const report = await checks.run(endpoint, queryList(ctx.query.exclude));
      const failed = report.outcomes.filter((o) => o.status === 'failed');
      if (failed.length) {
        checks.log(`${endpoint} check failed: ${failed.map((o) => `[-]${o.name} failed: ${o.reason}`).join('; ')}`);
      }
      writeText(ctx, report.healthy ? 200 : 500, formatHealthReport(report, 'verbose' in ctx.query));
    });

    router.get(`/${endpoint}/*name`, async (ctx) => {
      const outcome = await checks.runOne(endpoint, ctx.params.name);
      if (!outcome) throw errors.notFoundPath();
      if (outcome.status === 'failed') {
        checks.log(`${endpoint} check failed: [-]${outcome.name} failed: ${outcome.reason}`);
        writeText(ctx, 500, `internal server error: ${outcome.reason}\n`);
      } else {
        writeText(ctx, 200, 'ok');
      }
    });
  }
}
