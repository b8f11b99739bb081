/**
 * kubectl's cell for a load balancer status (printers.go loadBalancerStatusStringer, and its
 * Ingress twin): the ingress points' IPs, or hostnames where there is no IP, distinct, sorted,
 * comma-joined. Server-side tables print wide, so nothing is shortened. Services' EXTERNAL-IP and
 * Ingresses' ADDRESS both use it.
 */

export function loadBalancerAddresses(ingress: ReadonlyArray<{ ip?: unknown; hostname?: unknown }> | undefined): string {
  const out = new Set<string>();
  for (const point of ingress ?? []) {
    if (point.ip) out.add(String(point.ip));
    else if (point.hostname) out.add(String(point.hostname));
  }
  return [...out].sort().join(',');
}
