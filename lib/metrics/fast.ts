/**
 * Counters and histograms cheap enough for the request path. prom-client's own Counter and
 * Histogram validate the labels and rebuild a hash string of them on every inc() and observe(),
 * even through a child from labels(): about 0.7 µs per recording (`node` micro-benchmark on the
 * bench machine), and a GET records eight or more of them (request, authentication,
 * authorization), which cost several per cent of the get RV=0 rate at c=64. Here a child is
 * resolved once and a recording is a few additions on plain numbers.
 *
 * prom-client still renders the exposition: these classes are metrics in its Registry's sense
 * (registerMetric, get() returning a MetricObjectWithValues with `_bucket`/`_sum`/`_count`
 * samples as its Histogram does), so /metrics keeps its text format, HELP and TYPE lines.
 */
import type client from 'prom-client';

type LabelValues<L extends string> = Partial<Record<L, string | number>>;

/** A sample as prom-client's Registry renders it (metricName for a histogram's parts). */
export interface Sample { labels: Record<string, string | number>; value: number; metricName?: string }
/** A metric's state as prom-client's Registry renders it. */
export interface MetricSnapshot { name: string; help: string; type: 'counter' | 'histogram'; aggregator: 'sum'; values: Sample[] }

export interface CounterChild { inc(value?: number): void }
export interface HistogramChild { observe(value: number): void }

/** What a counter offers its callers (the part of prom-client's Counter used here). */
export interface CounterMetric<L extends string> {
  readonly name: string;
  labels(...values: string[]): CounterChild;
  inc(labels?: LabelValues<L> | number, value?: number): void;
  get(): Promise<MetricSnapshot>;
}

/** What a histogram offers its callers (the part of prom-client's Histogram used here). */
export interface HistogramMetric<L extends string> {
  readonly name: string;
  labels(...values: string[]): HistogramChild;
  observe(labels: LabelValues<L> | number, value?: number): void;
  get(): Promise<MetricSnapshot>;
}

interface Common<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registers: client.Registry[];
}

/** Label values in labelNames' order from an object, as prom-client's labels({...}) takes them; a label left out stays out. */
function valuesOf<L extends string>(labelNames: readonly L[], labels: LabelValues<L>, metric: string): Array<string | undefined> {
  for (const k of Object.keys(labels)) {
    if (!(labelNames as readonly string[]).includes(k)) throw new Error(`Added label "${k}" is not included in initial labelset: ${JSON.stringify(labelNames)} (metric ${metric})`);
  }
  return labelNames.map((n) => (labels[n] === undefined ? undefined : String(labels[n])));
}

/** The children of one metric, one per tuple of label values, in the order first seen. */
abstract class Children<L extends string, C> {
  readonly name: string;
  readonly help: string;
  readonly aggregator = 'sum' as const;
  protected readonly labelNames: readonly L[];
  protected readonly children = new Map<string, { labels: Record<string, string>; child: C }>();

  constructor(common: Common<L>) {
    this.name = common.name;
    this.help = common.help;
    this.labelNames = common.labelNames;
    for (const r of common.registers) r.registerMetric(this as unknown as client.Metric<string>);
  }

  protected abstract make(): C;

  labelsChild(values: ReadonlyArray<string | undefined>): C {
    if (values.length !== this.labelNames.length) {
      throw new Error(`Invalid number of arguments (${values.length}) for metric ${this.name}: expected ${this.labelNames.length}`);
    }
    const key = values.map((v) => (v === undefined ? '\u0001' : v)).join('\u0000');
    let entry = this.children.get(key);
    if (!entry) this.children.set(key, (entry = { labels: this.labelObject(values), child: this.make() }));
    return entry.child;
  }

  private labelObject(values: ReadonlyArray<string | undefined>): Record<string, string> {
    const o: Record<string, string> = {};
    this.labelNames.forEach((n, i) => { if (values[i] !== undefined) o[n] = String(values[i]); });
    return o;
  }
}

class CounterValue implements CounterChild {
  value = 0;
  /** Recorded at least once: as prom-client, labels() alone makes no sample. */
  seen = false;
  inc(value = 1): void {
    if (!(value >= 0) || value === Infinity) throw new Error(`counter increments must be finite and non-negative, not ${value}`);
    this.value += value;
    this.seen = true;
  }
}

export class FastCounter<L extends string> extends Children<L, CounterValue> implements CounterMetric<L> {
  readonly type = 'counter' as const;

  protected make(): CounterValue { return new CounterValue(); }

  labels(...values: string[]): CounterChild { return this.labelsChild(values); }

  inc(labels?: LabelValues<L> | number, value?: number): void {
    if (typeof labels === 'number' || labels === undefined) this.labelsChild(this.labelNames.map(() => undefined)).inc(labels ?? 1);
    else this.labelsChild(valuesOf(this.labelNames, labels, this.name)).inc(value ?? 1);
  }

  async get(): Promise<MetricSnapshot> {
    const values = [...this.children.values()].filter(({ child }) => child.seen)
      .map(({ labels, child }) => ({ labels, value: child.value }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

class HistogramValue implements HistogramChild {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(private readonly bounds: Float64Array) {
    this.counts = new Float64Array(bounds.length);
  }
  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const b = this.bounds;
    for (let i = 0; i < b.length; i++) {
      if (value <= b[i]) { this.counts[i]++; break; }
    }
    this.sum += value;
    this.count++;
  }
}

export class FastHistogram<L extends string> extends Children<L, HistogramValue> implements HistogramMetric<L> {
  readonly type = 'histogram' as const;
  private readonly bounds: Float64Array;

  constructor(common: Common<L>, buckets: readonly number[]) {
    super(common);
    if ((common.labelNames as readonly string[]).includes('le')) throw new Error(`le is a reserved label keyword (metric ${common.name})`);
    this.bounds = Float64Array.from([...new Set(buckets)].sort((a, b) => a - b));
  }

  protected make(): HistogramValue { return new HistogramValue(this.bounds); }

  labels(...values: string[]): HistogramChild { return this.labelsChild(values); }

  observe(labels: LabelValues<L> | number, value?: number): void {
    if (typeof labels === 'number') this.labelsChild(this.labelNames.map(() => undefined)).observe(labels);
    else this.labelsChild(valuesOf(this.labelNames, labels, this.name)).observe(value as number);
  }

  async get(): Promise<MetricSnapshot> {
    const values: Sample[] = [];
    for (const { labels, child } of this.children.values()) {
      if (child.count === 0) continue;
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += child.counts[i];
        values.push({ metricName: `${this.name}_bucket`, labels: { le, ...labels }, value: acc });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...labels }, value: child.count });
      values.push({ metricName: `${this.name}_sum`, labels, value: child.sum });
      values.push({ metricName: `${this.name}_count`, labels, value: child.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
