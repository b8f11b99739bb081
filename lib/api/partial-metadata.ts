/**
 * Metadata-only representations (`Accept: application/json;as=PartialObjectMetadata[List];
 * g=meta.k8s.io;v=v1`), as metadata informers and garbage collectors read objects: the object's
 * whole metadata under kind PartialObjectMetadata of the meta group and version asked for.
 */
import { ApiObject, ObjectMeta } from '../scheme/types';
import { ApiError } from '../meta/api-errors';

export interface PartialObjectMetadata {
  kind: 'PartialObjectMetadata';
  apiVersion: string;
  metadata: ObjectMeta;
}

export interface PartialObjectMetadataList {
  kind: 'PartialObjectMetadataList';
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: PartialObjectMetadata[];
}

/** Kubernetes' errNotAcceptable: a 406 with its own message (not the media-type list). */
export function notAcceptable(message: string): ApiError {
  return new ApiError(406, 'NotAcceptable', message);
}

/** A list body (`<Kind>List` with items) rather than one object. */
export function isList(obj: ApiObject): boolean {
  return Array.isArray(obj.items);
}

/** The metadata of one object as PartialObjectMetadata of `apiVersion` (`meta.k8s.io/v1`, ...). */
export function toPartialObjectMetadata(obj: ApiObject, apiVersion: string): PartialObjectMetadata {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata ?? {} };
}

/** `as=PartialObjectMetadata`: a list is refused with Kubernetes' 406 message. */
export function asPartialObjectMetadata(obj: ApiObject, apiVersion: string): PartialObjectMetadata {
  if (isList(obj)) throw notAcceptable(`you requested PartialObjectMetadata, but the requested object is a list (${obj.kind})`);
  return toPartialObjectMetadata(obj, apiVersion);
}

/** `as=PartialObjectMetadataList`: the list's items' metadata and the list's own metadata; one object is 406. */
export function asPartialObjectMetadataList(list: ApiObject, apiVersion: string): PartialObjectMetadataList {
  if (!isList(list)) throw notAcceptable(`you requested PartialObjectMetadataList, but the requested object is not a list (${list.kind})`);
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion,
    metadata: listMetadata(list),
    items: (list.items as ApiObject[]).map((item) => toPartialObjectMetadata(item, apiVersion)),
  };
}

/** resourceVersion, continue and remainingItemCount of a list, as Kubernetes copies them into a Table or partial list. */
export function listMetadata(list: ApiObject): { resourceVersion?: string; continue?: string; remainingItemCount?: number } {
  const m = (list.metadata ?? {}) as { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  const out: { resourceVersion?: string; continue?: string; remainingItemCount?: number } = {};
  if (m.resourceVersion) out.resourceVersion = m.resourceVersion;
  if (m.continue) out.continue = m.continue;
  if (m.remainingItemCount !== undefined) out.remainingItemCount = m.remainingItemCount;
  return out;
}
