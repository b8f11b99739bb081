/**
 * Resolving a dependent's ownerReferences against live objects (Kubernetes' classifyReferences).
 * A reference names its owner by apiVersion, kind, name and uid; the owner is looked up in the
 * dependent's namespace when the owner's kind is namespaced, cluster-wide otherwise, and counts
 * only when the uid matches. Owners are read live (a consistent read), never from the graph.
 */
import { GenericStore } from '../../registry/store';
import { ApiObject, OwnerReference } from '../../scheme/types';
import { FINALIZER_FOREGROUND } from '../../registry/propagation';

/**
 * A reference that can never be resolved, so the dependent is never collected on its account:
 * `UnknownKind` (no served resource has that apiVersion and kind) or
 * `NamespacedOwnerOfClusterScopedObject` (a cluster-scoped dependent naming a namespaced kind;
 * Kubernetes reports this as OwnerRefInvalidNamespace).
 */
export class UnresolvableOwnerError extends Error {
  constructor(readonly code: 'UnknownKind' | 'NamespacedOwnerOfClusterScopedObject', message: string) {
    super(message);
    this.name = 'UnresolvableOwnerError';
  }
}

export interface ClassifiedReferences {
  /** The owner exists and is not deleting its dependents in the foreground. */
  solid: OwnerReference[];
  /** No object with that uid at the coordinates the reference implies. */
  dangling: OwnerReference[];
  /** The owner exists, is being deleted, and has the foregroundDeletion finalizer. */
  waiting: OwnerReference[];
}

/** Finds the store serving an owner reference's apiVersion and kind. */
export type OwnerStoreLookup = (apiVersion: string, kind: string) => GenericStore | undefined;

/**
 * Classifies every reference of `dependent` (held in a namespaced store when `namespace` is set).
 * Throws UnresolvableOwnerError when any reference cannot be resolved (nothing is then done
 * with the dependent, as in Kubernetes), and storage errors as they come.
 */
export async function classifyReferences(refs: OwnerReference[], namespace: string | undefined,
  storeFor: OwnerStoreLookup): Promise<ClassifiedReferences> {
  const out: ClassifiedReferences = { solid: [], dangling: [], waiting: [] };
  for (const ref of refs) {
    const store = storeFor(ref.apiVersion, ref.kind);
    if (!store) throw new UnresolvableOwnerError('UnknownKind', `no resource serves ${ref.apiVersion}, Kind=${ref.kind}`);
    if (store.def.namespaced && !namespace) {
      throw new UnresolvableOwnerError('NamespacedOwnerOfClusterScopedObject',
        `cluster-scoped objects cannot refer to namespaced owners (${ref.kind} ${ref.name})`);
    }
    const owner = await readOrUndefined(store, store.def.namespaced ? namespace : undefined, ref.name);
    if (!owner || owner.metadata?.uid !== ref.uid) out.dangling.push(ref);
    else if (owner.metadata?.deletionTimestamp && owner.metadata.finalizers?.includes(FINALIZER_FOREGROUND)) out.waiting.push(ref);
    else out.solid.push(ref);
  }
  return out;
}

/** The object (consistent read), or undefined when it does not exist. */
export async function readOrUndefined(store: GenericStore, namespace: string | undefined, name: string): Promise<ApiObject | undefined> {
  try {
    return await store.get(namespace, name);
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}
