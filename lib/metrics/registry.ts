/**
 * The server's metrics: one prom-client Registry per server (tests run several servers in one
 * process, so nothing is global), and Kubernetes' metric stability rules on top of it
 * (component-base/metrics as the spec's "metric lifecycle" describes it):
 *  - each metric has a stability level; its HELP reads `[ALPHA] ...` or `[STABLE] ...`;
 *  - a deprecated metric's description starts with `(Deprecated since 1.x.0) `, it stays
 *    registered, and its registration logs a warning;
 *  - once hidden (STABLE: deprecated 3 or more releases ago; ALPHA and BETA: 1 or more, their
 *    window after deprecation being 0 releases), it is registered only when
 *    `--show-hidden-metrics-for-version` names the previous release. A hidden metric still takes
 *    recordings (callers need not know), they are just never exposed.
 * With `enabled: false` every metric is a no-op (the benchmark's "without metrics" baseline).
 */
import client from 'prom-client';
import { CounterMetric, FastCounter, FastHistogram, HistogramMetric } from './fast';

/** What a disabled registry hands out: every recording method does nothing. */
const NOOP: Record<string, unknown> = {
  inc() {}, dec() {}, set() {}, observe() {}, reset() {}, remove() {}, zero() {}, setToCurrentTime() {},
  labels: () => NOOP,
  startTimer: () => () => 0,
  get: async () => ({ values: [] }),
};

export type StabilityLevel = 'ALPHA' | 'BETA' | 'STABLE';

/** The release this server reports (/version): the metric lifecycle is reckoned from it. */
export const CURRENT_RELEASE = { major: 1, minor: 32 } as const;

export interface MetricOptions<L extends string> {
  /** The full name, e.g. `apiserver_request_total`. */
  name: string;
  help: string;
  labelNames?: readonly L[];
  /** Default ALPHA, as component-base. */
  stability?: StabilityLevel;
  /** `1.x` or `1.x.y`: the release that deprecated the metric. */
  deprecatedVersion?: string;
}

export interface HistogramOptions<L extends string> extends MetricOptions<L> {
  buckets: number[];
}

export interface RegistryOptions {
  /** `--show-hidden-metrics-for-version`: `<major>.<minor>`, the previous release only ('' when unset). */
  showHiddenForVersion?: string;
  /** false: every metric is a no-op and nothing is exposed. */
  enabled?: boolean;
  warn?(message: string): void;
}

interface ParsedVersion { major: number; minor: number; patch: number }

function parseVersion(v: string): ParsedVersion | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?$/.exec(v.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0) } : undefined;
}

/**
 * The problem with a `--show-hidden-metrics-for-version` value, or undefined: as
 * kube-apiserver, only the previous minor release is accepted.
 */
export function showHiddenVersionProblem(value: string): string | undefined {
  if (value === '') return undefined;
  const previous = `${CURRENT_RELEASE.major}.${CURRENT_RELEASE.minor - 1}`;
  const v = parseVersion(value);
  if (!v || v.major !== CURRENT_RELEASE.major || v.minor !== CURRENT_RELEASE.minor - 1 || /\.\d+\.\d+$/.test(value.trim())) {
    return `--show-hidden-metrics-for-version must be omitted or have the value '${previous}'. Only the previous minor version is allowed`;
  }
  return undefined;
}

/** Releases a deprecated metric stays shown, by stability (the spec's rule 9b). */
const SHOWN_RELEASES_AFTER_DEPRECATION: Record<StabilityLevel, number> = { STABLE: 3, BETA: 1, ALPHA: 1 };

/** Whether a metric deprecated in `deprecatedVersion` is hidden in the current release. */
export function isHidden(stability: StabilityLevel, deprecatedVersion: string | undefined): boolean {
  if (!deprecatedVersion) return false;
  const d = parseVersion(deprecatedVersion);
  if (!d) throw new Error(`metric deprecatedVersion ${JSON.stringify(deprecatedVersion)} is not a release`);
  if (d.major !== CURRENT_RELEASE.major) return d.major < CURRENT_RELEASE.major;
  return CURRENT_RELEASE.minor - d.minor >= SHOWN_RELEASES_AFTER_DEPRECATION[stability];
}

/** The HELP text component-base writes: `[LEVEL] (Deprecated since 1.x.0) help`. */
export function annotatedHelp(opts: MetricOptions<string>): string {
  let help = opts.help;
  if (opts.deprecatedVersion) {
    const d = parseVersion(opts.deprecatedVersion)!;
    help = `(Deprecated since ${d.major}.${d.minor}.${d.patch}) ${help}`;
  }
  return `[${opts.stability ?? 'ALPHA'}] ${help}`;
}

/** A metric's description as registered, for tests and the catalogue in docs/operating.md. */
export interface MetricDescription {
  name: string;
  stability: StabilityLevel;
  deprecatedVersion?: string;
  hidden: boolean;
  /** Exposed on /metrics (not hidden, or hidden and shown by the flag). */
  exposed: boolean;
}

export class MetricsRegistry {
  /** The prom-client registry /metrics renders. */
  readonly registry = new client.Registry();
  readonly enabled: boolean;
  private readonly showHidden: boolean;
  private readonly warn: (message: string) => void;
  private readonly described = new Map<string, MetricDescription>();

  constructor(opts: RegistryOptions = {}) {
    this.enabled = opts.enabled ?? true;
    this.warn = opts.warn ?? (() => undefined);
    const problem = showHiddenVersionProblem(opts.showHiddenForVersion ?? '');
    if (problem) throw new Error(problem);
    this.showHidden = Boolean(opts.showHiddenForVersion);
  }

  counter<L extends string>(opts: MetricOptions<L>): CounterMetric<L> {
    const common = this.common(opts);
    return this.enabled ? new FastCounter<L>(common) : NOOP as unknown as CounterMetric<L>;
  }

  /**
   * `collect` runs at each scrape (a gauge read from elsewhere, e.g. a watch cache's size).
   * `aggregator`: how the workers' values of --workers combine on /metrics (cluster-metrics.ts):
   * 'sum' (the default) for what each worker adds, 'max' for what every worker sees alike.
   */
  gauge<L extends string>(opts: MetricOptions<L> & { collect?: (this: client.Gauge<L>) => void | Promise<void>; aggregator?: client.Aggregator }): client.Gauge<L> {
    const common = this.common(opts);
    return this.enabled
      ? new client.Gauge<L>({ ...common, ...(opts.collect ? { collect: opts.collect } : {}), ...(opts.aggregator ? { aggregator: opts.aggregator } : {}) })
      : NOOP as unknown as client.Gauge<L>;
  }

  histogram<L extends string>(opts: HistogramOptions<L>): HistogramMetric<L> {
    const common = this.common(opts);
    return this.enabled ? new FastHistogram<L>(common, opts.buckets) : NOOP as unknown as HistogramMetric<L>;
  }

  /** The Prometheus text exposition of every exposed metric (of every worker, in a worker of --workers). */
  render(): Promise<string> {
    return this.renderer ? this.renderer() : this.registry.metrics();
  }

  private renderer?: () => Promise<string>;

  /** In a worker of --workers: /metrics shows the whole server, gathered by the primary (cluster-metrics.ts). */
  renderThrough(renderer: () => Promise<string>): void {
    this.renderer = renderer;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric defined, exposed or not. */
  descriptions(): MetricDescription[] {
    return [...this.described.values()];
  }

  /** Name, annotated help, labels and the registries it goes to (none when hidden or disabled). */
  private common<L extends string>(opts: MetricOptions<L>): { name: string; help: string; labelNames: readonly L[]; registers: client.Registry[] } {
    if (this.described.has(opts.name)) throw new Error(`metric ${opts.name} is defined twice`);
    const stability = opts.stability ?? 'ALPHA';
    const hidden = isHidden(stability, opts.deprecatedVersion);
    const exposed = this.enabled && (!hidden || this.showHidden);
    this.described.set(opts.name, { name: opts.name, stability, deprecatedVersion: opts.deprecatedVersion, hidden, exposed });
    if (opts.deprecatedVersion && exposed) {
      this.warn(`metric ${opts.name} is deprecated since ${opts.deprecatedVersion}${hidden ? ' and hidden; shown by --show-hidden-metrics-for-version' : ''}`);
    }
    return { name: opts.name, help: annotatedHelp(opts), labelNames: opts.labelNames ?? [], registers: exposed ? [this.registry] : [] };
  }
}
