/**
 * GET /metrics (and /metrics/slis): a registry's Prometheus text exposition. It sits behind
 * authentication and authorization like every path: users allowed `get` on the non-resource URL
 * read it (the bootstrap `system:monitoring` ClusterRole grants both to the `system:monitoring`
 * group).
 */
import type Router from '@koa/router';

/** What a metrics path renders: a MetricsRegistry, or the health checks' indicators (sli-metrics.ts). */
export interface MetricsSource {
  render(): Promise<string>;
  readonly contentType: string;
}

/** Adds the GET route `path` (default /metrics) rendering `metrics` to the non-resource router. */
export function installMetrics(router: Router, metrics: MetricsSource, path = '/metrics'): void {
  router.get(path, async (ctx) => {
    const text = await metrics.render();
    ctx.status = 200;
    ctx.set('Content-Type', metrics.contentType);
    ctx.body = text;
  });
}
