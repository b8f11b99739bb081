/**
 * Which Node labels a node agent may set itself (NodeRestriction's getForbiddenLabels and the
 * kubelet's IsKubeletLabel), in the flavor's spelling: labels under `node-restriction.<domain>`
 * never; other labels in the reserved namespaces (`kubernetes.io` and `k8s.io` and their
 * subdomains; `orch.io` in the orch flavor) only the well-known kubelet labels (hostname, zone,
 * region, instance type, os, arch) and those under `kubelet.<domain>` and `node.<domain>`.
 */
import { Naming } from '../../naming';

const namespaceOf = (key: string): string => {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
};
const under = (ns: string, domain: string) => ns === domain || ns.endsWith(`.${domain}`);

/** The labels whose value differs between `a` and `b` (added, removed or changed). */
export function modifiedLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): string[] {
  const out = new Set<string>();
  const x = a ?? {};
  const y = b ?? {};
  for (const k of Object.keys(x)) if (!Object.hasOwn(y, k) || x[k] !== y[k]) out.add(k);
  for (const k of Object.keys(y)) if (!Object.hasOwn(x, k) || x[k] !== y[k]) out.add(k);
  return [...out];
}

/** The labels of `modified` a node may not set, sorted (as sets.String.List() gives them). */
export function forbiddenNodeLabels(modified: string[], naming: Naming): string[] {
  const d = naming.labelDomain;
  const reserved = [...new Set([d, naming.domain])];
  const kubeletLabels = new Set([
    `${d}/hostname`, `topology.${d}/zone`, `topology.${d}/region`, `failure-domain.beta.${d}/zone`,
    `failure-domain.beta.${d}/region`, `beta.${d}/instance-type`, `node.${d}/instance-type`,
    `${d}/os`, `${d}/arch`, `beta.${d}/os`, `beta.${d}/arch`,
  ]);
  const kubeletNamespaces = [`kubelet.${d}`, `node.${d}`];
  const isKubeletLabel = (key: string) => kubeletLabels.has(key) || kubeletNamespaces.some((ns) => under(namespaceOf(key), ns));
  return modified.filter((key) => {
    const ns = namespaceOf(key);
    if (under(ns, `node-restriction.${d}`)) return true;
    return reserved.some((r) => under(ns, r)) && !isKubeletLabel(key);
  }).sort();
}
