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
  return { ...summarize(Float64Array.from(samples)), opsPerSec: samples.length / (elapsedMs / 1000), elapsedMs };
}
