/**
 * The aggregation proxy (kube-aggregator's proxyHandler): requests for a group-version whose
 * APIService names a service are forwarded to it. Placeholder until the proxy part lands: every
 * request passes to the local handlers.
 */
import type { Context, Next } from 'koa';
import type { AggregationContext } from './context';

export function aggregationProxy(agg: AggregationContext): (ctx: Context, next: Next) => Promise<void> {
  void agg;
  return (_ctx, next) => next();
}
