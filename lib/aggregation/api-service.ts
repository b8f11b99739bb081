/**
 * The APIService object as the aggregation layer reads it (apiregistration.k8s.io/v1, stored by
 * lib/registry/apiregistration/api-services/), and kube-aggregator's helpers over it: its name
 * (`<version>.<group>`), whether it is served here (no service), its Available condition, and the
 * order of groups and versions (apiregistration/v1/helper: SortedByGroupAndVersion).
 */
import type { ApiObject } from '../scheme/types';
import type { Naming } from '../naming';
import { storeKey } from '../registry/store-index';

export interface ServiceReference { namespace?: string; name?: string; port?: number }

export interface ApiServiceSpec {
  service?: ServiceReference | null;
  group?: string;
  version?: string;
  insecureSkipTLSVerify?: boolean;
  /** base64 of a PEM bundle (JSON form of Go's []byte). */
  caBundle?: string;
  groupPriorityMinimum?: number;
  versionPriority?: number;
}

export interface ApiServiceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface ApiService extends ApiObject {
  spec: ApiServiceSpec;
  status?: { conditions?: ApiServiceCondition[] };
}

/** The store of APIServices in the flavor's group. */
export function apiServicesStoreKey(naming: Naming): string {
  return storeKey(naming.group('apiregistration'), 'v1', 'apiservices');
}

/** `<version>.<group>` (the core group's is `v1.`, with its dot, as in Kubernetes). */
export function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}

/** Served by this server itself: no service named. */
export function isLocal(svc: ApiService): boolean {
  return !svc.spec?.service;
}

export function availableCondition(svc: ApiService): ApiServiceCondition | undefined {
  return svc.status?.conditions?.find((c) => c?.type === 'Available');
}

/** IsAPIServiceConditionTrue(svc, Available). */
export function isAvailable(svc: ApiService): boolean {
  return availableCondition(svc)?.status === 'True';
}

/** The caBundle's PEM text, or undefined when none is set (or it is not base64). */
export function caBundlePem(svc: ApiService): string | undefined {
  const b = svc.spec?.caBundle;
  if (typeof b !== 'string' || !b) return undefined;
  return Buffer.from(b, 'base64').toString('utf8');
}

// ---- Kubernetes' version order (apimachinery/pkg/version: CompareKubeAwareVersionStrings) ----

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

interface Parsed { major: number; kind: 3 | 2 | 1; minor: number }

function parseKube(v: string): Parsed | undefined {
  const m = KUBE_VERSION.exec(v);
  if (!m) return undefined;
  const major = Number(m[1]);
  if (!Number.isSafeInteger(major) || (m[1].length > 1 && m[1][0] === '0')) return undefined;
  return { major, kind: m[2] === 'alpha' ? 1 : m[2] === 'beta' ? 2 : 3, minor: m[3] ? Number(m[3]) : 0 };
}

/**
 * Negative when `a` sorts before `b` in Kubernetes' order: kube-like versions first (GA, then
 * beta, then alpha; higher major first, then higher minor), then others by name.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  const pa = parseKube(a);
  const pb = parseKube(b);
  if (pa && pb) {
    if (pa.kind !== pb.kind) return pb.kind - pa.kind;
    if (pa.major !== pb.major) return pb.major - pa.major;
    return pb.minor - pa.minor;
  }
  if (pa) return -1;
  if (pb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * SortedByGroupAndVersion: APIServices grouped by group, groups ordered by their highest
 * groupPriorityMinimum (highest first, then by name), versions in a group by versionPriority
 * (highest first), then Kubernetes' version order.
 */
export function sortedByGroupAndVersion(services: readonly ApiService[]): ApiService[][] {
  const byGroup = new Map<string, ApiService[]>();
  for (const s of services) {
    const g = s.spec?.group ?? '';
    const list = byGroup.get(g) ?? [];
    list.push(s);
    byGroup.set(g, list);
  }
  const groupPriority = (list: ApiService[]) => Math.max(...list.map((s) => s.spec?.groupPriorityMinimum ?? 0));
  const groups = [...byGroup.entries()].sort(([ga, la], [gb, lb]) =>
    groupPriority(lb) - groupPriority(la) || (ga < gb ? -1 : ga > gb ? 1 : 0));
  return groups.map(([, list]) => [...list].sort((a, b) =>
    (b.spec?.versionPriority ?? 0) - (a.spec?.versionPriority ?? 0)
    || compareKubeAwareVersions(a.spec?.version ?? '', b.spec?.version ?? '')));
}
