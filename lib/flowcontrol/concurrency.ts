/**
 * How the server's concurrency limit (--max-requests-inflight + --max-mutating-requests-inflight)
 * is divided among priority levels, as kube-apiserver 1.32 (apf_controller.go, conc_alloc.go):
 *  - NominalCL = ceil(ServerCL x nominalConcurrencyShares / sum of all levels' shares);
 *  - lendable seats round(NominalCL x lendablePercent / 100), so MinCL = NominalCL - lendable;
 *  - borrowing limit round(NominalCL x borrowingLimitPercent / 100), unlimited (ServerCL) when
 *    absent, so MaxCL = NominalCL + that;
 *  - a level starts at NominalCL - lendable/2; every 10 s the current limits are recomputed from
 *    each level's seat demand over the period (high watermark, average + deviation, smoothed):
 *    each gets at least max(MinCL, min(NominalCL, high watermark)), and the rest is shared in
 *    proportion to the smoothed demand within [that, MaxCL] (kube's fair allocation).
 */
import type { PriorityLevelConfiguration } from './types';

/** kube's seatDemandSmoothingCoefficient: a half-life of 5 minutes at 10 s periods. */
const SMOOTHING = 0.977;
/** kube's borrowingAdjustmentPeriod. */
export const BORROWING_ADJUSTMENT_PERIOD_MS = 10_000;

export interface LevelLimits { nominalCL: number; minCL: number; maxCL: number; initialCL: number }

/** NominalCL, MinCL, MaxCL and the starting limit of every level, by name. */
export function computeLevelLimits(levels: readonly PriorityLevelConfiguration[], serverCL: number): Map<string, LevelLimits> {
  const shareSum = levels.reduce((sum, pl) => sum + commons(pl).shares, 0);
  const out = new Map<string, LevelLimits>();
  for (const pl of levels) {
    const { shares, lendablePercent, borrowingLimitPercent } = commons(pl);
    const nominalCL = shareSum > 0 ? Math.ceil(serverCL * shares / shareSum) : 0;
    const lendable = Math.round(nominalCL * lendablePercent / 100);
    const borrowing = borrowingLimitPercent === undefined ? serverCL : Math.round(nominalCL * borrowingLimitPercent / 100);
    out.set(pl.metadata.name, { nominalCL, minCL: nominalCL - lendable, maxCL: nominalCL + borrowing, initialCL: nominalCL - Math.floor(lendable / 2) });
  }
  return out;
}

function commons(pl: PriorityLevelConfiguration): { shares: number; lendablePercent: number; borrowingLimitPercent?: number } {
  if (pl.spec.type === 'Limited' && pl.spec.limited) {
    const l = pl.spec.limited;
    // v1's defaults: 30 shares, 0% lendable (the kinds default them; the dispatcher too).
    return { shares: l.nominalConcurrencyShares ?? 30, lendablePercent: l.lendablePercent ?? 0, borrowingLimitPercent: l.borrowingLimitPercent };
  }
  return { shares: pl.spec.exempt?.nominalConcurrencyShares ?? 0, lendablePercent: pl.spec.exempt?.lendablePercent ?? 0 };
}

/** kube's maximum seats a request of a level may take: max(1, min(ceil(0.15 NominalCL), NominalCL / handSize)). */
export function maxSeatsOf(nominalCL: number, handSize: number | undefined): number {
  if (handSize === undefined || handSize <= 0) return 0;
  return Math.max(1, Math.min(Math.ceil(nominalCL * 0.15), Math.floor(nominalCL / handSize)));
}

/** The time integral of a level's seat demand over one adjustment period (kube's Integrator). */
export class DemandIntegrator {
  private value = 0;
  private since = Date.now();
  private start = this.since;
  private sum = 0;
  private sumSq = 0;
  private max = 0;

  set(value: number): void {
    const now = Date.now();
    const dt = now - this.since;
    this.sum += this.value * dt;
    this.sumSq += this.value * this.value * dt;
    this.since = now;
    this.value = value;
    if (value > this.max) this.max = value;
  }

  /** The period's results; a new period starts at the current value. */
  reset(): { durationMs: number; average: number; deviation: number; max: number } {
    this.set(this.value);
    const durationMs = this.since - this.start;
    const average = durationMs > 0 ? this.sum / durationMs : this.value;
    const variance = durationMs > 0 ? this.sumSq / durationMs - average * average : 0;
    const out = { durationMs, average, deviation: Math.sqrt(Math.max(0, variance)), max: this.max };
    this.start = this.since;
    this.sum = 0;
    this.sumSq = 0;
    this.max = this.value;
    return out;
  }
}

/** A level's smoothed demand statistics (kube's seatDemandStats). */
export class DemandStats {
  highWatermark = 0;
  smoothed = 0;

  update(obs: ReturnType<DemandIntegrator['reset']>): void {
    this.highWatermark = Math.round(obs.max);
    if (obs.durationMs <= 0) return;
    const envelope = obs.average + obs.deviation;
    this.smoothed = Math.max(envelope, SMOOTHING * this.smoothed + (1 - SMOOTHING) * envelope);
  }
}

/** One level as the borrowing round sees it. */
export interface BorrowingInput { name: string; exempt: boolean; limits: LevelLimits; stats: DemandStats; currentCL: number }

/** The new current limits of all levels (kube's updateBorrowingLocked), by name. */
export function adjustLimits(levels: readonly BorrowingInput[], nominalCLSum: number): Map<string, number> {
  const out = new Map<string, number>();
  let remaining = nominalCLSum;
  let minCLSum = 0;
  let minCurrentSum = 0;
  const items: { name: string; lower: number; upper: number; target: number; minCL: number }[] = [];
  for (const l of levels) {
    if (l.exempt) {
      const c = Math.max(l.limits.minCL, l.stats.highWatermark);
      out.set(l.name, c);
      remaining -= c;
      continue;
    }
    const minCurrent = Math.max(l.limits.minCL, Math.min(l.limits.nominalCL, l.stats.highWatermark));
    items.push({ name: l.name, lower: minCurrent, upper: l.limits.maxCL, target: Math.max(minCurrent, l.stats.smoothed), minCL: l.limits.minCL });
    minCLSum += l.limits.minCL;
    minCurrentSum += minCurrent;
  }
  if (remaining <= minCLSum) {
    for (const i of items) out.set(i.name, i.minCL);
  } else if (remaining <= minCurrentSum) {
    const frac = (remaining - minCLSum) / (minCurrentSum - minCLSum);
    for (const i of items) out.set(i.name, i.minCL + Math.round((i.lower - i.minCL) * frac));
  } else {
    const allocs = fairAllocation(nominalCLSum, items);
    items.forEach((i, k) => out.set(i.name, Math.round(allocs[k])));
  }
  return out;
}

/**
 * kube's computeConcurrencyAllocation: the allocations clamp(p x target, lower, upper) for the one
 * proportion p at which they sum to `required` (found by bisection; the sum grows with p).
 */
export function fairAllocation(required: number, items: readonly { lower: number; upper: number; target: number }[]): number[] {
  const targets = items.map((i) => Math.max(i.target, 0.001));
  const at = (p: number) => items.map((i, k) => Math.min(i.upper, Math.max(i.lower, p * targets[k])));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const low = sum(items.map((i) => i.lower));
  const high = sum(items.map((i) => i.upper));
  if (required <= low) return items.map((i) => i.lower);
  if (required >= high) return items.map((i) => i.upper);
  let lo = 0;
  let hi = 1;
  while (sum(at(hi)) < required) hi *= 2;
  for (let n = 0; n < 100; n++) {
    const mid = (lo + hi) / 2;
    if (sum(at(mid)) < required) lo = mid; else hi = mid;
  }
  return at(hi);
}
