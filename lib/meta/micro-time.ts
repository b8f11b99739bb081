/**
 * metav1.MicroTime as Go reads and writes it: RFC 3339 with six fraction digits, written in UTC.
 * Leases (acquireTime, renewTime) and Events (eventTime, series.lastObservedTime) carry them.
 */

/** Go's metav1.RFC3339Micro layout, which MicroTime's JSON must match. */
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';
const MICRO = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{6})(Z|[+-]\d{2}:\d{2})$/;
const SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

/** Why a MicroTime value does not decode (Go's time.Parse message), or undefined. */
export function microTimeProblem(value: string): string | undefined {
  const m = MICRO.exec(value);
  if (m && !Number.isNaN(Date.parse(`${m[1]}.${m[2].slice(0, 3)}${m[3]}`))) return undefined;
  const head = SECONDS.exec(value);
  // Go reports the first part of the value that does not match the layout.
  const rest = head ? value.slice(head[0].length) : value;
  const layoutRest = head ? RFC3339_MICRO.slice(19, 26) : RFC3339_MICRO;
  return `parsing time ${JSON.stringify(value)} as ${JSON.stringify(RFC3339_MICRO)}: cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(head ? layoutRest : '2006')}`;
}

/** A MicroTime in Go's output form: UTC, six fraction digits. */
export function canonicalMicroTime(value: string): string {
  const m = MICRO.exec(value);
  if (!m) return value;
  const ms = Date.parse(`${m[1]}${m[3]}`);
  return `${new Date(ms).toISOString().slice(0, 19)}.${m[2]}Z`;
}

/** The decode problem of the first malformed MicroTime among `values` (strings; others skipped), if any. */
export function microTimesProblem(values: unknown[]): string | undefined {
  for (const v of values) {
    const problem = typeof v === 'string' ? microTimeProblem(v) : undefined;
    if (problem) return problem;
  }
  return undefined;
}
