/**
 * Long work on the event loop cut into slices: a step function (a generator yielding between
 * steps) runs until its slice has taken `budgetMs`, then gives the event loop a turn
 * (setImmediate: requests, I/O, timers) before going on. The `/openapi/v2` document with a few
 * hundred custom resources takes hundreds of milliseconds to build and serialize; in slices no
 * request waits more than about one slice for it.
 */
import { performance } from 'node:perf_hooks';

/** How long a slice runs before the event loop gets a turn. */
export const SLICE_MS = 10;

export class TimeSlice {
  private started = performance.now();

  constructor(private readonly budgetMs = SLICE_MS) {}

  /** The slice has run its budget. */
  due(): boolean {
    return performance.now() - this.started >= this.budgetMs;
  }

  /** Gives the event loop a turn; a new slice starts after it. */
  async yield(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    this.started = performance.now();
  }
}

/** Runs `steps` to its end at once (callers that must have the result now: tests, tools). */
export function runAtOnce<T>(steps: Generator<unknown, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Runs `steps` to its end, giving the event loop a turn whenever `slice` is due between steps. */
export async function runInSlices<T>(steps: Generator<unknown, T>, slice: TimeSlice): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (slice.due()) await slice.yield();
  }
}
