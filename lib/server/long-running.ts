/**
 * Which requests are long-running: they hold a connection open for as long as the client
 * wants (a watch, a stream), so they take no in-flight seat and get no request timeout.
 * Kubernetes' kube-apiserver check: the verbs `watch` and `proxy`, the subresources
 * attach, exec, proxy, log and portforward, and the non-resource `/debug/pprof/` tree.
 */
import type { RequestInfo } from '../api/request-info';

const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

export function isLongRunning(info: RequestInfo): boolean {
  if (LONG_RUNNING_VERBS.has(info.verb)) return true;
  if (info.isResourceRequest) return info.subresource !== undefined && LONG_RUNNING_SUBRESOURCES.has(info.subresource);
  return info.path.startsWith('/debug/pprof/');
}

/**
 * Health probes (`/healthz`, `/livez`, `/readyz` and their per-check paths). Kubernetes' default
 * priority-and-fairness configuration puts them in the exempt level (FlowSchema `probes`), so a
 * load balancer's checks are answered however busy the server is; the plain in-flight limits
 * here exempt them the same way.
 */
export function isHealthProbe(info: RequestInfo): boolean {
  if (info.isResourceRequest || (info.verb !== 'get' && info.verb !== 'head')) return false;
  const p = info.path;
  for (const root of ['/healthz', '/livez', '/readyz']) {
    if (p === root || (p.startsWith(root) && p[root.length] === '/')) return true;
  }
  return false;
}
