/**
 * GET /metrics: the registry's Prometheus text exposition. It sits behind authentication and
 * authorization like every path: users allowed `get` on the non-resource URL `/metrics` read it
 * (the bootstrap `system:monitoring` ClusterRole grants it to the `system:monitoring` group).
 */
import type Router from '@koa/router';
import { MetricsRegistry } from './registry';

/** Adds the /metrics route to the non-resource router. */
export function installMetrics(router: Router, metrics: MetricsRegistry): void {
  router.get('/metrics', async (ctx) => {
    const text = await metrics.render();
    ctx.status = 200;
    ctx.set('Content-Type', metrics.contentType);
    ctx.body = text;
  });
}
