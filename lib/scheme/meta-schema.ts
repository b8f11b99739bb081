/** Schemas shared by every kind: ObjectMeta and its parts, and metav1's LabelSelector, with their Kubernetes list/map markers. */
import { goType } from './type-names';
import { Schema, atomicList, bool, int64, mapList, object, setList, str, stringMap, time } from './schema';

export const ownerReference: Schema = object({
  apiVersion: str('API version of the referent.'),
  kind: str('Kind of the referent.'),
  name: str('Name of the referent.'),
  uid: str('UID of the referent.'),
  controller: bool('If true, this reference points to the managing controller.'),
  blockOwnerDeletion: bool('If true, the owner cannot be deleted from the key-value store until this reference is removed (foreground deletion).'),
}, { required: ['apiVersion', 'kind', 'name', 'uid'], 'x-kubernetes-map-type': 'atomic' });

export const managedFieldsEntry: Schema = object({
  manager: str('The workflow managing these fields.'),
  operation: str('The operation that created this entry: Apply or Update.'),
  apiVersion: str('The version of the resource these fields are in.'),
  time: time('When the entry was last changed.'),
  fieldsType: str('The format of fieldsV1: FieldsV1.'),
  fieldsV1: { type: 'object', description: 'The set of fields managed, as a nested map of f:/k:/v:/. keys.', 'x-kubernetes-preserve-unknown-fields': true },
  subresource: str('The subresource the entry was written through.'),
});

export const objectMeta: Schema = object({
  name: str('Name must be unique within a namespace.'),
  generateName: str('Optional prefix used by the server to generate a unique name.'),
  namespace: str('The namespace of the object.'),
  uid: str('Unique identifier set by the server.'),
  resourceVersion: str('Opaque version of the object, for optimistic concurrency and watches.'),
  generation: int64('A sequence number representing a specific generation of the desired state.'),
  creationTimestamp: time('When the object was created.'),
  deletionTimestamp: time('When the object was asked to be deleted.'),
  deletionGracePeriodSeconds: int64('Seconds allowed for graceful termination.'),
  labels: stringMap('Labels to organize and select objects.'),
  annotations: stringMap('Unstructured key-value data set by tools.'),
  ownerReferences: mapList(ownerReference, ['uid'], 'Objects this object depends on.'),
  finalizers: { ...setList(str()), 'x-kubernetes-patch-strategy': 'merge', description: 'Keys that must be removed before the object is deleted from the store.' },
  managedFields: atomicList(managedFieldsEntry, 'Which managers own which fields.'),
});

/** metav1.LabelSelector (atomic). */
export const labelSelector: Schema = goType('io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector', object({
  matchLabels: stringMap('{key,value} pairs, each equivalent to an In requirement with one value.'),
  matchExpressions: atomicList(object({
    key: str('the label key that the selector applies to.'),
    operator: str('In, NotIn, Exists or DoesNotExist.'),
    values: atomicList(str()),
  }, { required: ['key', 'operator'] }), 'a list of label selector requirements, ANDed.'),
}, {
  'x-kubernetes-map-type': 'atomic',
  description: 'A label selector is a label query over a set of resources. The result of matchLabels and matchExpressions are ANDed. An empty label selector matches all objects. A null label selector matches no objects.',
}));

export const listMeta: Schema = object({
  resourceVersion: str(),
  continue: str(),
  remainingItemCount: int64(),
});

/**
 * runtime.RawExtension: an embedded object of any kind, kept as the client wrote it
 * (ControllerRevision.data, WatchEvent.object). Shared by identity: OpenAPI references it.
 * Server-side apply owns it as one value (`f:data: {}`), as Kubernetes' schema conversion makes
 * every reference to RawExtension an atomic untyped value; its OpenAPI definition
 * (lib/api/openapi/meta-definitions.ts) is written without the map type.
 */
export const rawExtension: Schema = {
  type: 'object', description: 'RawExtension holds an embedded object of any kind.', 'x-kubernetes-preserve-unknown-fields': true,
  'x-kubernetes-map-type': 'atomic',
};

/** A kind's top-level schema: apiVersion, kind, metadata plus its own fields. */
export function kindSchema(properties: Record<string, Schema>, description: string): Schema {
  return object({ apiVersion: str('The versioned schema of this representation.'), kind: str('The REST resource this object represents.'), metadata: objectMeta, ...properties }, { description });
}
