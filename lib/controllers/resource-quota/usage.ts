/**
 * A quota's usage recalculated from the objects of its namespace (Kubernetes' quota
 * controller syncResourceQuota / CalculateUsage): for every resource the quota's spec.hard names,
 * the evaluator that charges it lists the namespace's objects of its resource, keeps those that
 * match the quota's scopes and sums their usage; a name nothing charges (a count of a resource not
 * served) is used 0. The result is the status to store: hard copied from the spec, used for every
 * hard name.
 */
import { ApiObject } from '../../scheme/types';
import { GenericStore } from '../../registry/store';
import { Evaluator } from '../../admission/resourcequota/evaluators/types';
import { EvaluatorRegistry } from '../../admission/resourcequota/evaluators/index';
import { scopeSelectorsOf } from '../../admission/resourcequota/check';
import { ResourceList, add, mask, parseResourceList, quantity, toJson } from '../../admission/resourcequota/resource-list';

/** The stores of the served resources, looked up by group and resource. */
export interface ServedStores { find(group: string, resource: string): GenericStore | undefined }

/** The group/resource pairs a quota's hard names are charged by (count/<r>.<g>, the legacy names, pods, services, claims). */
export function chargedResources(hardNames: readonly string[], storageGroup: string): Array<[string, string]> {
  const out = new Map<string, [string, string]>();
  const put = (g: string, r: string) => out.set(`${g}/${r}`, [g, r]);
  for (const n of hardNames) {
    if (n.startsWith('count/')) {
      const rest = n.slice('count/'.length);
      const dot = rest.indexOf('.');
      if (dot < 0) put('', rest);
      else put(rest.slice(dot + 1), rest.slice(0, dot));
    } else if (['configmaps', 'secrets', 'replicationcontrollers', 'resourcequotas'].includes(n)) {
      put('', n);
    } else if (n === 'services' || n.startsWith('services.')) {
      put('', 'services');
    } else if (n === 'persistentvolumeclaims' || n === 'requests.storage' || n.includes(`.storageclass.${storageGroup}/`)) {
      put('', 'persistentvolumeclaims');
    } else {
      put('', 'pods');
    }
  }
  return [...out.values()];
}

/**
 * The objects of `store` in `namespace` as etcd holds them at least when this is called (every
 * write finished before is seen): from its watch cache once the cache has caught up with etcd, else from etcd.
 */
export async function namespaceObjects(store: GenericStore, namespace: string): Promise<ApiObject[]> {
  const prefix = store.collectionPrefix(namespace);
  const cache = store.deps.cache;
  const fromCache = cache?.ready ? await cache.listConsistent(prefix) : undefined;
  return store.outputKvs((fromCache ?? await store.storage.range(prefix)).kvs);
}

/** The usage of `objects` that match the quota, masked to what the evaluator charges of `hard`. */
export function usageOf(quota: ApiObject, evaluator: Evaluator, hardNames: readonly string[], objects: ApiObject[], now: Date): ResourceList {
  const names = evaluator.matchingResources(hardNames);
  if (!names.length) return new Map();
  const scopes = scopeSelectorsOf(quota);
  let sum: ResourceList = new Map();
  for (const obj of objects) {
    if (!scopes.every((s) => evaluator.matchesScope(s, obj))) continue;
    sum = add(sum, mask(evaluator.usage(obj, now), names));
  }
  return sum;
}

/** The status the quota should have. */
export async function computeStatus(quota: ApiObject, evaluators: EvaluatorRegistry, stores: ServedStores, storageGroup: string,
  now: Date = new Date()): Promise<{ hard: Record<string, string>; used: Record<string, string> }> {
  const hard = parseResourceList((quota.spec as { hard?: unknown } | undefined)?.hard);
  const hardNames = [...hard.keys()];
  const namespace = quota.metadata?.namespace ?? '';
  let used: ResourceList = new Map();
  for (const [group, resource] of chargedResources(hardNames, storageGroup)) {
    const store = stores.find(group, resource);
    if (!store) continue;
    const objects = await namespaceObjects(store, namespace);
    used = add(used, usageOf(quota, evaluators.get(group, resource), hardNames, objects, now));
  }
  const out: ResourceList = new Map();
  for (const n of hardNames) out.set(n, used.get(n) ?? quantity(0));
  return { hard: toJson(hard), used: toJson(out) };
}
