/**
 * The order kube-apiserver lists API groups in (`/apis`, aggregated discovery, and so
 * `kubectl api-resources`): each group's APIService has a `groupPriorityMinimum`, and groups are
 * listed by it, highest first, then by name. The built-in groups' priorities are Kubernetes 1.32's
 * (the table of default APIService priorities of its control plane); a custom resource group's
 * APIService gets 1000, as the CRD registration controller gives it. A built-in group is looked
 * up without its flavor's domain (`storage.orch.io` and `storage.k8s.io` are both `storage`).
 */
import { flavors } from '../naming';

const BUILTIN: Record<string, number> = {
  '': 18000,
  apiregistration: 18000,
  apps: 17800,
  events: 17750,
  authentication: 17700,
  authorization: 17600,
  autoscaling: 17500,
  batch: 17400,
  certificates: 17300,
  networking: 17200,
  // extensions/v1beta1 (Ingress, served only when switched on): below networking, as Kubernetes 1.21 has it.
  extensions: 17150,
  policy: 17100,
  'rbac.authorization': 17000,
  storage: 16800,
  admissionregistration: 16700,
  apiextensions: 16700,
  scheduling: 16600,
  coordination: 16500,
  node: 16300,
  discovery: 16200,
  'flowcontrol.apiserver': 16100,
  'internal.apiserver': 16000,
  resource: 15900,
  storagemigration: 15800,
};

/** What the CRD registration controller gives a custom resource group's APIService. */
const CUSTOM = 1000;

const DOMAINS = Object.values(flavors).map((n) => `.${n.domain}`);

/** The group's priority; `custom` when a custom resource serves it. */
export function groupPriority(group: string, custom: boolean): number {
  if (custom) return CUSTOM;
  const domain = DOMAINS.find((d) => group.endsWith(d));
  return BUILTIN[domain ? group.slice(0, -domain.length) : group] ?? CUSTOM;
}
