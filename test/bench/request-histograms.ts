/**
 * `apiserver_request_duration_seconds` read from an API server's /metrics (Prometheus text) as
 * kube-apiserver and this server both expose it: the buckets of each verb and resource, the
 * difference of two scrapes (what a phase of a benchmark added), and quantiles computed from the
 * buckets as Prometheus' histogram_quantile does (linear within a bucket; a rank in the +Inf bucket
 * gives the highest finite bound). Series are keyed by verb, resource/subresource and scope; the
 * group, version, component and dry_run labels are summed over.
 */

/** One series: cumulative counts per upper bound (le), ascending, +Inf last. */
export interface Histogram { bounds: number[]; counts: number[] }

export type Histograms = Map<string, Histogram>;

const BUCKET_LINE = /^apiserver_request_duration_seconds_bucket\{([^}]*)\} (\S+)/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

/** The series key: `VERB resource[/subresource] (scope)`, e.g. `PATCH nodes/status (resource)`, or `GET (non-resource)`. */
export function seriesKey(labels: Record<string, string>): string {
  const resource = labels.subresource ? `${labels.resource}/${labels.subresource}` : labels.resource;
  return labels.resource ? `${labels.verb} ${resource} (${labels.scope})` : `${labels.verb} (non-resource)`;
}

export function parseHistograms(text: string): Histograms {
  const byKey = new Map<string, Map<number, number>>();
  for (const line of text.split('\n')) {
    const m = BUCKET_LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of m[1].matchAll(LABEL)) labels[l[1]] = l[2];
    const le = labels.le === '+Inf' ? Infinity : Number(labels.le);
    const key = seriesKey(labels);
    const buckets = byKey.get(key) ?? new Map<number, number>();
    buckets.set(le, (buckets.get(le) ?? 0) + Number(m[2]));
    byKey.set(key, buckets);
  }
  const out: Histograms = new Map();
  for (const [key, buckets] of byKey) {
    const bounds = [...buckets.keys()].sort((a, b) => a - b);
    out.set(key, { bounds, counts: bounds.map((b) => buckets.get(b)!) });
  }
  return out;
}

/** after - before, per series and bucket; series with no new observations are left out. */
export function diffHistograms(after: Histograms, before: Histograms): Histograms {
  const out: Histograms = new Map();
  for (const [key, h] of after) {
    const b = before.get(key);
    const counts = h.counts.map((c, i) => c - (b?.counts[b.bounds.indexOf(h.bounds[i])] ?? 0));
    if (counts[counts.length - 1] > 0) out.set(key, { bounds: h.bounds, counts });
  }
  return out;
}

export function observations(h: Histogram): number {
  return h.counts[h.counts.length - 1];
}

/**
 * `h` with only the bucket bounds it shares with `other` (cumulative counts stay exact): two
 * servers' quantiles compared on the same buckets. kube-apiserver 1.20's first bound is 50 ms and
 * this server's 5 ms, so on their own buckets any fast series reads as 25-50 ms on kube's side.
 */
export function onSharedBounds(h: Histogram, other: Histogram): Histogram {
  const keep = h.bounds.map((b, i) => (other.bounds.includes(b) ? i : -1)).filter((i) => i >= 0);
  return { bounds: keep.map((i) => h.bounds[i]), counts: keep.map((i) => h.counts[i]) };
}

/** The q-quantile in seconds (NaN for an empty series), as histogram_quantile(). */
export function quantile(h: Histogram, q: number): number {
  const total = observations(h);
  if (!(total > 0)) return NaN;
  const rank = q * total;
  const i = h.counts.findIndex((c) => c >= rank);
  if (h.bounds[i] === Infinity) return h.bounds[h.bounds.length - 2];
  const lower = i === 0 ? 0 : h.bounds[i - 1];
  const below = i === 0 ? 0 : h.counts[i - 1];
  const inBucket = h.counts[i] - below;
  return inBucket > 0 ? lower + (h.bounds[i] - lower) * ((rank - below) / inBucket) : h.bounds[i];
}

/** The scalability SLOs on API call latency (p99), per class of series. */
export interface SloClass { name: string; limitSeconds: number; matches(verb: string, resource: string, scope: string): boolean }

/** Resources that store nothing (reviews): left out of the SLOs, as Kubernetes' SLIs leave virtual resources out. */
const VIRTUAL = /^(tokenreviews|subjectaccessreviews|selfsubjectaccessreviews|localsubjectaccessreviews|selfsubjectrulesreviews)$/;
/** Both servers label a create POST and an update PUT (the HTTP method); APPLY is a server-side apply. */
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY']);

export const SLO_CLASSES: SloClass[] = [
  { name: 'mutating single-object calls', limitSeconds: 1, matches: (v, r) => MUTATING.has(v) && !VIRTUAL.test(r) },
  { name: 'single-object reads', limitSeconds: 1, matches: (v, _r, s) => v === 'GET' && s === 'resource' },
  { name: 'namespace lists', limitSeconds: 5, matches: (v, _r, s) => v === 'LIST' && s === 'namespace' },
  { name: 'cluster lists', limitSeconds: 30, matches: (v, _r, s) => v === 'LIST' && s === 'cluster' },
];

/** The series of `h` in `cls` with the highest p99, or undefined when none is. */
export function worstP99(h: Histograms, cls: SloClass): { key: string; p99: number; n: number } | undefined {
  let worst: { key: string; p99: number; n: number } | undefined;
  for (const [key, hist] of h) {
    const m = /^(\S+) (\S+) \((\S+)\)$/.exec(key);
    if (!m || !cls.matches(m[1], m[2].split('/')[0], m[3])) continue;
    const p99 = quantile(hist, 0.99);
    if (!worst || p99 > worst.p99) worst = { key, p99, n: observations(hist) };
  }
  return worst;
}
