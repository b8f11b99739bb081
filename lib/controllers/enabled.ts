/**
 * Which controllers run in this server (--controllers, kube-controller-manager's flag and names):
 * `*` turns on every controller that is on by default, `name` turns one on, `-name` off; the first
 * entry that names a controller decides. Operators who use the server as a bare API backend (no
 * default ServiceAccount or root-CA ConfigMap appearing in namespaces, as with kube-apiserver
 * alone) turn those off.
 */
export const CONTROLLERS = [
  'namespace', 'garbagecollector', 'ephemeral-volume', 'serviceaccount', 'serviceaccount-token', 'root-ca-cert-publisher',
  'clusterrole-aggregation', 'pvc-protection', 'pv-protection', 'csrsigning', 'csrapproving',
  'tokencleaner', 'bootstrapsigner', 'csrcleaner',
  'resourcequota',
  'validatingadmissionpolicy-status-controller',
] as const;
export type ControllerName = typeof CONTROLLERS[number];

/** Controllers that `*` does not turn on (kube-controller-manager's: the bootstrap token controllers). */
const OFF_BY_DEFAULT = new Set<string>(['tokencleaner', 'bootstrapsigner']);

/** Kubernetes' IsControllerEnabled. */
export function controllerEnabled(name: ControllerName, entries: readonly string[]): boolean {
  let star = false;
  for (const e of entries) {
    if (e === name) return true;
    if (e === `-${name}`) return false;
    if (e === '*') star = true;
  }
  return star && !OFF_BY_DEFAULT.has(name);
}

/** The reason an entry of --controllers is not acceptable, or undefined. */
export function checkControllerEntries(entries: readonly string[]): string | undefined {
  for (const e of entries) {
    const name = e.startsWith('-') ? e.slice(1) : e;
    if (e !== '*' && !(CONTROLLERS as readonly string[]).includes(name)) {
      return `${JSON.stringify(name)} is not in the list of known controllers (${CONTROLLERS.join(', ')})`;
    }
  }
  return undefined;
}
