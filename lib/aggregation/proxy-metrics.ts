/**
 * What the aggregation proxy records, as kube-aggregator 1.32's proxyError does: each request it
 * ends itself (the APIService not available, its service not resolvable, no transport, no user)
 * counts in apiserver_request_terminations_total with component "aggregator". The group and
 * version are the APIService's; the resource and subresource are left empty, so that paths a
 * caller makes up cannot grow the series.
 */
import type { Context } from 'koa';
import type { RequestInfo } from '../api/request-info';
import type { MetricsRegistry } from '../metrics/registry';
import { cleanScope, reportedVerb } from '../api/metrics/request-metrics';
import { terminationsCounter } from '../api/metrics/termination-metrics';

export const AGGREGATOR_COMPONENT = 'aggregator';

export class ProxyMetrics {
  private readonly total;

  constructor(registry: MetricsRegistry) {
    this.total = terminationsCounter(registry);
  }

  terminated(ctx: Context, code: number): void {
    const info = ctx.state.requestInfo as RequestInfo | undefined;
    const scope = cleanScope(info);
    const verb = reportedVerb(ctx.method, scope, info, info?.verb === 'watch', ctx.get('content-type'));
    this.total.labels(verb, info?.group ?? '', info?.version ?? '', '', '', scope, AGGREGATOR_COMPONENT, String(code)).inc();
  }
}
