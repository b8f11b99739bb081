/**
 * What the pvc-protection and pv-protection controllers share (Kubernetes' protectionutil):
 * when an object needs the finalizer added or is a candidate for its removal, and the two
 * edits of the finalizer list.
 */
import { GenericStore } from '../registry/store';
import { ApiObject } from '../scheme/types';

const finalizersOf = (obj: ApiObject): string[] => (Array.isArray(obj.metadata?.finalizers) ? obj.metadata!.finalizers! : []);

/** Being deleted and still holding the finalizer. */
export const isDeletionCandidate = (obj: ApiObject, finalizer: string): boolean =>
  !!obj.metadata?.deletionTimestamp && finalizersOf(obj).includes(finalizer);

/** Not being deleted and missing the finalizer. */
export const needsFinalizer = (obj: ApiObject, finalizer: string): boolean =>
  !obj.metadata?.deletionTimestamp && !finalizersOf(obj).includes(finalizer);

/** A copy of `obj` without `finalizer`. */
export function withoutFinalizer(obj: ApiObject, finalizer: string): ApiObject {
  return { ...obj, metadata: { ...obj.metadata, finalizers: finalizersOf(obj).filter((f) => f !== finalizer) } };
}

/** A copy of `obj` with `finalizer` appended. */
export function withFinalizer(obj: ApiObject, finalizer: string): ApiObject {
  return { ...obj, metadata: { ...obj.metadata, finalizers: [...finalizersOf(obj), finalizer] } };
}

/** The object from the watch cache (any version), or undefined when it is gone. */
export async function getOrUndefined(store: GenericStore, namespace: string | undefined, name: string): Promise<ApiObject | undefined> {
  try {
    return await store.get(namespace, name, '0');
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}
