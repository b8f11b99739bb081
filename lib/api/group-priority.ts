/**
 * The order kube-apiserver lists API groups and versions in (`/apis`, aggregated discovery, and so
 * `kubectl api-resources`), and the priorities of the local APIServices (lib/aggregation): each
 * group-version's APIService has a `groupPriorityMinimum` and a `versionPriority`; groups are
 * listed by the first, highest first, then by name. The table is Kubernetes 1.32's
 * apiVersionPriorities (its generic table merged with kube-apiserver's), by Kubernetes' group
 * name; a custom resource group's APIService gets 1000 / 100, as the CRD registration controller
 * gives it. A built-in group is looked up without its flavor's domain (`storage.orch.io` and
 * `storage.k8s.io` are both `storage`).
 */
import { flavors, Naming } from '../naming';

export interface Priority { group: number; version: number }

const KUBE_PRIORITIES: ReadonlyArray<[group: string, version: string, groupPriority: number, versionPriority: number]> = [
  ['', 'v1', 18000, 1],
  ['apps', 'v1', 17800, 15],
  ['events.k8s.io', 'v1', 17750, 15],
  ['events.k8s.io', 'v1beta1', 17750, 5],
  ['authentication.k8s.io', 'v1', 17700, 15],
  ['authentication.k8s.io', 'v1beta1', 17700, 9],
  ['authentication.k8s.io', 'v1alpha1', 17700, 1],
  ['authorization.k8s.io', 'v1', 17600, 15],
  ['autoscaling', 'v1', 17500, 15],
  ['autoscaling', 'v2', 17500, 30],
  ['autoscaling', 'v2beta1', 17500, 9],
  ['autoscaling', 'v2beta2', 17500, 1],
  ['batch', 'v1', 17400, 15],
  ['batch', 'v1beta1', 17400, 9],
  ['batch', 'v2alpha1', 17400, 9],
  ['certificates.k8s.io', 'v1', 17300, 15],
  ['certificates.k8s.io', 'v1beta1', 17300, 9],
  ['certificates.k8s.io', 'v1alpha1', 17300, 1],
  ['networking.k8s.io', 'v1', 17200, 15],
  ['networking.k8s.io', 'v1beta1', 17200, 9],
  // Below networking, which holds Ingress's GA version (1.21's table; served only when switched on).
  ['extensions', 'v1beta1', 17150, 1],
  ['policy', 'v1', 17100, 15],
  ['policy', 'v1beta1', 17100, 9],
  ['rbac.authorization.k8s.io', 'v1', 17000, 15],
  ['storage.k8s.io', 'v1', 16800, 15],
  ['storage.k8s.io', 'v1beta1', 16800, 9],
  ['storage.k8s.io', 'v1alpha1', 16800, 1],
  ['apiextensions.k8s.io', 'v1', 16700, 15],
  ['admissionregistration.k8s.io', 'v1', 16700, 15],
  ['admissionregistration.k8s.io', 'v1beta1', 16700, 12],
  ['admissionregistration.k8s.io', 'v1alpha1', 16700, 9],
  ['scheduling.k8s.io', 'v1', 16600, 15],
  // 1.21's table (served only when switched on).
  ['scheduling.k8s.io', 'v1beta1', 16600, 12],
  ['coordination.k8s.io', 'v1', 16500, 15],
  ['coordination.k8s.io', 'v1beta1', 16500, 13],
  ['coordination.k8s.io', 'v1alpha2', 16500, 12],
  ['node.k8s.io', 'v1', 16300, 15],
  ['node.k8s.io', 'v1beta1', 16300, 9],
  ['node.k8s.io', 'v1alpha1', 16300, 1],
  ['discovery.k8s.io', 'v1', 16200, 15],
  ['discovery.k8s.io', 'v1beta1', 16200, 12],
  ['resource.k8s.io', 'v1beta1', 16200, 9],
  ['resource.k8s.io', 'v1alpha3', 16200, 1],
  ['flowcontrol.apiserver.k8s.io', 'v1', 16100, 21],
  ['flowcontrol.apiserver.k8s.io', 'v1beta3', 16100, 18],
  ['flowcontrol.apiserver.k8s.io', 'v1beta2', 16100, 15],
  ['flowcontrol.apiserver.k8s.io', 'v1beta1', 16100, 12],
  ['flowcontrol.apiserver.k8s.io', 'v1alpha1', 16100, 9],
  ['internal.apiserver.k8s.io', 'v1alpha1', 16000, 9],
  ['storagemigration.k8s.io', 'v1alpha1', 15800, 9],
];

/** The crdregistration controller's priorities: below every built-in group. */
export const CRD_PRIORITY: Priority = { group: 1000, version: 100 };

/** The group's name without `.k8s.io` (the key the flavors share). */
const short = (group: string) => (group.endsWith('.k8s.io') ? group.slice(0, -'.k8s.io'.length) : group);

/**
 * Group priorities by short name. The aggregator's own group has no entry in Kubernetes' table (it
 * registers no APIService for itself) and is listed with the core group's priority, first.
 */
const BUILTIN: Record<string, number> = { apiregistration: 18000 };
for (const [group, , g] of KUBE_PRIORITIES) BUILTIN[short(group)] ??= g;

const DOMAINS = Object.values(flavors).map((n) => `.${n.domain}`);

/** The group's priority; `custom` when a custom resource serves it. */
export function groupPriority(group: string, custom: boolean): number {
  if (custom) return CRD_PRIORITY.group;
  const domain = DOMAINS.find((d) => group.endsWith(d));
  return BUILTIN[domain ? group.slice(0, -domain.length) : group] ?? CRD_PRIORITY.group;
}

/** The table with each group in the flavor's spelling: `<group>/<version>` -> priority. */
export function builtinVersionPriorities(naming: Naming): Map<string, Priority> {
  const table = new Map<string, Priority>();
  for (const [group, version, g, v] of KUBE_PRIORITIES) {
    const named = group.endsWith('.k8s.io') ? naming.group(short(group)) : group;
    table.set(`${named}/${version}`, { group: g, version: v });
  }
  return table;
}
