/**
 * Latency samples: a summary (mean and nearest-rank percentiles) and a bounded, timed loop that
 * collects them.
 */
import { performance } from 'node:perf_hooks';

export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p99: number;
  max: number;
}

/** Summarises samples in ms; sorts `samples` in place. All NaN when there are none. */
export function summarize(samples: Float64Array): LatencySummary {
  const n = samples.length;
  if (!n) return { count: 0, mean: NaN, p50: NaN, p99: NaN, max: NaN };
  samples.sort();
  let sum = 0;
  for (let i = 0; i < n; i++) sum += samples[i];
  const rank = (p: number) => samples[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))];
  return { count: n, mean: sum / n, p50: rank(0.5), p99: rank(0.99), max: samples[n - 1] };
}

export interface LoopOptions {
  /** Stop starting new operations after this long... */
  durationMs: number;
  /** ...or after this many, whichever comes first... */
  maxIterations: number;
  /** ...but not before this many have been started (a slow operation still gets a sample set). */
  minIterations: number;
  /** Operations in flight at once (closed loop). */
  concurrency: number;
}

export interface LoopResult extends LatencySummary {
  /** Completed operations per second of wall time. */
  opsPerSec: number;
  elapsedMs: number;
  /** Every latency sample (ms), sorted: what mergeLoops needs. */
  samples: Float64Array;
}

/** One result from several loops of the same operation (rounds): summed time, pooled samples. */
export function mergeLoops(results: readonly LoopResult[]): LoopResult {
  const total = results.reduce((n, r) => n + r.samples.length, 0);
  const samples = new Float64Array(total);
  let at = 0;
  for (const r of results) { samples.set(r.samples, at); at += r.samples.length; }
  const elapsedMs = results.reduce((ms, r) => ms + r.elapsedMs, 0);
  return { ...summarize(samples), opsPerSec: elapsedMs > 0 ? total / (elapsedMs / 1000) : 0, elapsedMs, samples };
}

/** Runs `op` in a closed loop; `op` rejects to abort the whole loop. */
export async function timedLoop(op: (iteration: number) => Promise<void>, opts: LoopOptions): Promise<LoopResult> {
  const samples: number[] = [];
  let started = 0;
  const t0 = performance.now();
  const more = () => started < opts.maxIterations
    && (started < opts.minIterations || performance.now() - t0 < opts.durationMs);
  const worker = async () => {
    while (more()) {
      const i = started++;
      const s = performance.now();
      await op(i);
      samples.push(performance.now() - s);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const elapsedMs = performance.now() - t0;
  const sorted = Float64Array.from(samples);
  return { ...summarize(sorted), opsPerSec: samples.length / (elapsedMs / 1000), elapsedMs, samples: sorted };
}
