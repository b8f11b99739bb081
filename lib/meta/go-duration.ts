/**
 * Go's time.Duration.String() for a count of nanoseconds (`1ns`, `1.5ms`, `30s`, `5m0s`,
 * `1h0m0s`), so that configuration errors read as kube-apiserver writes them.
 */

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
