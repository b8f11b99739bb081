/**
 * apiserver_request_terminations_total: requests the server ended in self-defense (429 from the
 * in-flight limits, 504 from the request timeout), with Kubernetes' name, labels and stability.
 * Kubernetes removed apiserver_dropped_requests_total in 1.25; 429s are also counted in
 * apiserver_request_total{code="429"} by the request metrics.
 *
 * Labels name a group/version/resource only when this server serves it, so clients cannot grow
 * the series with made-up paths.
 */
import type { CounterChild, CounterMetric } from '../../metrics/fast';
import { MetricsRegistry } from '../../metrics/registry';
import type { RequestInfo } from '../request-info';
import type { ResourceDef } from '../../scheme/types';
import { APISERVER_COMPONENT, cleanScope, reportedVerb } from './request-metrics';

type Label = 'verb' | 'group' | 'version' | 'resource' | 'subresource' | 'scope' | 'component' | 'code';

const counters = new WeakMap<MetricsRegistry, CounterMetric<Label>>();

/** The registry's one apiserver_request_terminations_total (the aggregation proxy records into it too). */
export function terminationsCounter(registry: MetricsRegistry): CounterMetric<Label> {
  let counter = counters.get(registry);
  if (!counter) {
    counter = registry.counter({
      name: 'apiserver_request_terminations_total',
      help: 'Number of requests which apiserver terminated in self-defense.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
    });
    counters.set(registry, counter);
  }
  return counter;
}

export class TerminationMetrics {
  private readonly total: CounterMetric<Label>;
  private readonly children = new Map<string, CounterChild>();
  private known = new Set<string>();
  private knownFrom: readonly ResourceDef[] | undefined;

  constructor(registry: MetricsRegistry, private readonly resources: () => readonly ResourceDef[]) {
    this.total = terminationsCounter(registry);
  }

  record(method: string, info: RequestInfo | undefined, contentType: string, code: number): void {
    const scope = cleanScope(info);
    const verb = reportedVerb(method, scope, info, info?.verb === 'watch', contentType);
    const served = info?.isResourceRequest && this.serves(info);
    const labels = served
      ? [verb, info!.group, info!.version, info!.resource, info!.subresource ?? '', scope, APISERVER_COMPONENT, String(code)]
      : [verb, '', '', '', '', scope, APISERVER_COMPONENT, String(code)];
    const key = labels.join('|');
    let child = this.children.get(key);
    if (!child) this.children.set(key, (child = this.total.labels(...labels)));
    child.inc();
  }

  private serves(info: RequestInfo): boolean {
    const defs = this.resources();
    if (defs !== this.knownFrom) {
      this.knownFrom = defs;
      this.known = new Set(defs.flatMap((d) => [`${d.group}/${d.version}/${d.resource}/`, ...d.subresources.map((s) => `${d.group}/${d.version}/${d.resource}/${s.name}`)]));
    }
    return this.known.has(`${info.group}/${info.version}/${info.resource}/${info.subresource ?? ''}`);
  }
}
