/**
 * Go's durations: time.ParseDuration's syntax read into milliseconds (flags, `?timeout=`), and
 * time.Duration.String() for a count of nanoseconds (`1ns`, `1.5ms`, `30s`, `5m0s`, `1h0m0s`), so
 * that configuration errors read as kube-apiserver writes them.
 */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000,
};

/**
 * Parses a Go duration (`300ms`, `1.5h`, `2h45m`, `0`) into milliseconds, rounded to whole
 * nanoseconds. Every number needs a unit except a lone `0`. Throws Error(reason) on bad text.
 */
export function parseGoDuration(text: string): number {
  const fail = (why: string): never => { throw new Error(why); };
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') fail(`invalid duration ${JSON.stringify(text)}`);
  const part = /(\d+\.?\d*|\.\d+)([^\d.]*)/y;
  let total = 0;
  while (part.lastIndex < rest.length) {
    const m = part.exec(rest);
    if (!m) return fail(`invalid duration ${JSON.stringify(text)}`);
    const [, amount, unit] = m;
    if (unit === '') fail(`missing unit in duration ${JSON.stringify(text)}`);
    if (!(unit in UNIT_MS)) fail(`unknown unit ${JSON.stringify(unit)} in duration ${JSON.stringify(text)}`);
    total += Number(amount) * UNIT_MS[unit];
  }
  return sign * Math.round(total * 1e6) / 1e6;
}

/** `whole` then `.frac` with trailing zeros dropped (frac has `digits` digits). */
function withFraction(whole: bigint, frac: bigint, digits: number): string {
  const f = frac.toString().padStart(digits, '0').replace(/0+$/, '');
  return f ? `${whole}.${f}` : `${whole}`;
}

/** The duration `ns` nanoseconds long, spelled as Go spells it. */
export function formatGoDuration(ns: bigint): string {
  const sign = ns < 0n ? '-' : '';
  const u = ns < 0n ? -ns : ns;
  if (u === 0n) return '0s';
  if (u < 1000n) return `${sign}${u}ns`;
  if (u < 1_000_000n) return `${sign}${withFraction(u / 1000n, u % 1000n, 3)}µs`;
  if (u < 1_000_000_000n) return `${sign}${withFraction(u / 1_000_000n, u % 1_000_000n, 6)}ms`;
  const totalSeconds = u / 1_000_000_000n;
  const seconds = `${withFraction(totalSeconds % 60n, u % 1_000_000_000n, 9)}s`;
  const totalMinutes = totalSeconds / 60n;
  if (totalMinutes === 0n) return `${sign}${seconds}`;
  const hours = totalMinutes / 60n;
  const minutes = `${totalMinutes % 60n}m`;
  return hours === 0n ? `${sign}${minutes}${seconds}` : `${sign}${hours}h${minutes}${seconds}`;
}
