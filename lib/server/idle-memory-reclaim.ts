/**
 * Gives the memory of a burst back to the operating system once the server has gone quiet.
 *
 * A burst (loading 100,000 objects, a bulk delete) leaves V8 with tens to hundreds of MiB of
 * garbage and empty heap pages, and Buffers that only a full collection frees. V8 keeps them until
 * its memory reducer judges the process idle, which after a large burst takes from seconds to
 * more than a minute: in the memory benchmark RSS 30 s after loading 100,000 ConfigMaps was 309 MiB
 * in one run and 466 MiB in another of the same code. An operator reads RSS as the server's size.
 *
 * Every `intervalMs` this takes two cheap readings: event-loop utilisation over the interval
 * (quiet: under QUIET_UTILISATION, so nothing is being served, watched or decoded), and the
 * footprint (V8 heap committed plus memory outside it). A quiet interval ends with a full
 * collection when, since the last one, the event loop worked for WORK_MS in all or the footprint
 * grew by GROWTH_BYTES or GROWTH_FRACTION over its lowest reading. A full collection pauses the
 * event loop (about 60 ms with 100,000 objects cached), which is why it waits for a quiet
 * interval; a steady trickle of work just under the quiet threshold costs one collection per
 * WORK_MS of work (every ~100 s at 1% utilisation).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { performance, EventLoopUtilization } from 'node:perf_hooks';

/** Event-loop utilisation below which an interval counts as quiet (an idle server shows ~0.1%). */
export const QUIET_UTILISATION = 0.02;
/** Event-loop time spent working since the last collection that makes a quiet interval worth one. */
export const WORK_MS = 1_000;
/** Growth of the footprint over its lowest reading that is worth a collection... */
export const GROWTH_BYTES = 32 * 2 ** 20;
/** ...or this fraction of the lowest reading, whichever is larger. */
export const GROWTH_FRACTION = 0.25;

export interface MemoryReading {
  /** V8 heap committed (process.memoryUsage().heapTotal) plus memory outside it (external). */
  footprint: number;
  /** Event-loop utilisation over the interval just ended, 0..1. */
  utilisation: number;
  /** Time the event loop spent working during that interval, ms. */
  activeMs: number;
}

/** The decision of each interval, kept apart from timers and V8 so that it can be tested alone. */
export class ReclaimPolicy {
  private lowest: number;
  private workMs = 0;

  constructor(startFootprint: number) {
    this.lowest = startFootprint;
  }

  /**
   * True when this interval should end with a collection: it was quiet, and since the last
   * collection either the server did a burst of work (whose garbage is likely still there: dead
   * objects do not grow the footprint, they only keep it from shrinking) or the footprint grew.
   */
  shouldReclaim(r: MemoryReading): boolean {
    this.lowest = Math.min(this.lowest, r.footprint);
    this.workMs += r.activeMs;
    if (r.utilisation >= QUIET_UTILISATION) return false;
    return this.workMs >= WORK_MS || r.footprint - this.lowest >= Math.max(GROWTH_BYTES, this.lowest * GROWTH_FRACTION);
  }

  /** The footprint after a collection: growth and work are counted from here on. */
  collected(footprint: number): void {
    this.lowest = footprint;
    this.workMs = 0;
  }
}

export interface ReclaimLog {
  info(message: string, meta: Record<string, unknown>): void;
  warn(message: string, meta: Record<string, unknown>): void;
}

export interface IdleMemoryReclaimer {
  stop(): void;
}

const MIB = 2 ** 20;
const footprintNow = (): { footprint: number; heapTotal: number; external: number } => {
  const m = process.memoryUsage();
  return { footprint: m.heapTotal + m.external, heapTotal: m.heapTotal, external: m.external };
};

/** Starts the check every `intervalMs` (0: never); the timer does not keep the process alive. */
export function startIdleMemoryReclaim(intervalMs: number, log: ReclaimLog): IdleMemoryReclaimer {
  if (intervalMs <= 0) return { stop() {} };
  const policy = new ReclaimPolicy(footprintNow().footprint);
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const { utilization: utilisation, active: activeMs } = performance.eventLoopUtilization(now, last);
    last = now;
    const before = footprintNow();
    if (!policy.shouldReclaim({ footprint: before.footprint, utilisation, activeMs })) return;
    const t0 = performance.now();
    try {
      collectAllGarbage();
    } catch (err) {
      // Not going to work in this process (e.g. a V8 that refuses the flag): say so once, and stop.
      log.warn('idle memory reclaim is not available; stopped', { error: (err as Error).message });
      clearInterval(timer);
      return;
    } finally {
      // The collection itself made this interval busy; the next one starts after it.
      last = performance.eventLoopUtilization();
    }
    const after = footprintNow();
    policy.collected(after.footprint);
    log.info('idle memory reclaim', {
      ms: Math.round(performance.now() - t0),
      heapMiB: [before.heapTotal, after.heapTotal].map((b) => Math.round(b / MIB)),
      externalMiB: [before.external, after.external].map((b) => Math.round(b / MIB)),
    });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * V8's full collection. Node gives JavaScript a `gc` function only under --expose-gc; setting that
 * flag now and creating a context installs the function there (it collects the whole heap, not only
 * that context's), so the server needs no node flag. Called without options: V8 11 reads an options
 * object as a request for something else and may collect nothing. (An in-process inspector session
 * asking for HeapProfiler.collectGarbage would do, but it hung the process in trials.)
 */
let fullGc: (() => void) | undefined;
function collectAllGarbage(): void {
  if (!fullGc) {
    setFlagsFromString('--expose-gc');
    fullGc = runInNewContext('gc') as () => void;
  }
  fullGc();
}
