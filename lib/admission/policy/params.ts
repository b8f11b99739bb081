/**
 * The parameter objects of one binding (Kubernetes' collectParams): the paramKind's served
 * resource (any kind, custom resources included, looked up by apiVersion and kind), the objects
 * named by paramRef.name or selected by paramRef.selector, in paramRef.namespace, else the request's
 * namespace for a namespaced kind. Read from the kind's watch cache when it runs, else from etcd.
 * What cannot be found is a configuration error (failurePolicy decides), with Kubernetes' texts.
 */
import { GenericStore } from '../../registry/store';
import { StoreIndex } from '../../registry/store-index';
import { matchesLabels } from '../../meta/label-selector';
import { ApiObject } from '../../scheme/types';
import { CompiledBinding, CompiledPolicy } from './compiled-policy';

/** A binding's parameters: objects to evaluate with (`[null]`: no params), or a configuration error. */
export type ParamsResult = { params: Array<ApiObject | null> } | { configError: string };

/** Go's GroupVersionKind.String(). */
function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const [g, v] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  return `${g}/${v}, Kind=${kind}`;
}

export function storeForKind(stores: StoreIndex, apiVersion: string, kind: string): GenericStore | undefined {
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  for (const s of stores.values()) {
    if (s.def.group === group && s.def.version === version && s.def.kind === kind && !s.def.virtual) return s;
  }
  return undefined;
}

async function readAll(store: GenericStore, namespace: string | undefined): Promise<ApiObject[]> {
  const prefix = store.collectionPrefix(namespace);
  const cache = store.deps.cache;
  const kvs = cache?.ready ? cache.list(prefix).kvs : (await store.storage.range(prefix)).kvs;
  const out: ApiObject[] = [];
  for (const kv of kvs) {
    try {
      out.push(await store.currentOf(kv));
    } catch {
      // An undecodable object is no parameter (reads of the kind report it).
    }
  }
  return out;
}

export async function collectParams(stores: StoreIndex, policy: CompiledPolicy, binding: CompiledBinding, requestNamespace: string): Promise<ParamsResult> {
  const pk = policy.paramKind;
  const ref = binding.paramRef;
  if (!pk || !ref) return { params: [null] };
  const store = storeForKind(stores, pk.apiVersion, pk.kind);
  if (!store) return { configError: `failed to find resource referenced by paramKind: '${gvkString(pk.apiVersion, pk.kind)}'` };
  let namespace: string | undefined;
  if (store.def.namespaced) {
    namespace = ref.namespace || requestNamespace;
    if (!namespace) return { configError: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
  }
  let params: ApiObject[];
  const all = await readAll(store, namespace);
  if (ref.name) params = all.filter((o) => o.metadata?.name === ref.name);
  else {
    const s = ref.selector;
    if (s && 'error' in s) return { configError: `failed to process paramRef selector: ${s.error}` };
    params = s ? all.filter((o) => matchesLabels(s, o.metadata?.labels)) : all;
  }
  if (params.length) return { params };
  if (ref.parameterNotFoundAction === 'Deny') return { configError: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
  return { params: [] };
}
