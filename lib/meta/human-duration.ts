/**
 * Kubernetes' `duration.HumanDuration` (apimachinery util/duration): the AGE cells of printed
 * tables ("42s", "3m12s", "5h7m", "12d", "2y30d"), about 2-3 significant figures.
 */

/** The age of a `creationTimestamp` at `now`, as kube's printers show it; `<unknown>` when unset. */
export function translateTimestampSince(timestamp: string | undefined, now: Date): string {
  const t = timestamp ? Date.parse(timestamp) : NaN;
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration(now.getTime() - t);
}

/** A duration in milliseconds in kube's short human form. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  // Up to 2 s in the future is clock skew between machines: it reads as "now".
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}
