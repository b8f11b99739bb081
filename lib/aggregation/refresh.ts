/**
 * The refresh timer of the aggregation layer's fetchers: every extension server's discovery and
 * OpenAPI documents are marked dirty every `intervalMs` (kube-aggregator: every minute), besides
 * being fetched again when their APIService changes. Their syncs run on the controllers' work
 * queue (lib/controllers/work-queue.ts).
 */

/**
 * How often the extension servers' discovery and OpenAPI documents are fetched again without a
 * change of their APIService (kube-aggregator: every minute). Tests shorten it before a server
 * starts; it is not a flag.
 */
export const refreshTimings = { intervalMs: 60_000 };

/** Calls `tick` every `refreshTimings.intervalMs` until the returned function is called. */
export function every(tick: () => void): () => void {
  const timer = setInterval(tick, refreshTimings.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
