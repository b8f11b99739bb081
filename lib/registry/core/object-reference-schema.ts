/**
 * The core/v1 references to other objects: ObjectReference (any object), LocalObjectReference (an
 * object in the same namespace) and TypedLocalObjectReference (one of a given kind), atomic structs
 * as in Kubernetes' types.
 */
import { Schema, object, str } from '../../scheme/schema';

const atomic = { 'x-kubernetes-map-type': 'atomic' } as const;

/** ObjectReference (atomic), as storageos.secretRef uses it. */
export const objectReference: Schema = object({
  kind: str('Kind of the referent.'),
  namespace: str('Namespace of the referent.'),
  name: str('Name of the referent.'),
  uid: str('UID of the referent.'),
  apiVersion: str('API version of the referent.'),
  resourceVersion: str('Specific resourceVersion to which this reference is made, if any.'),
  fieldPath: str('If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.'),
}, atomic);

/** LocalObjectReference (atomic): an object in the workload's namespace. */
export const localObjectReference: Schema = object({ name: str('Name of the referent.') }, atomic);

/** TypedLocalObjectReference (atomic): a typed object in the same namespace. */
export const typedLocalObjectReference: Schema = object({
  apiGroup: str('the group of the referenced resource; empty means the core group.'),
  kind: str('the type of resource being referenced.'),
  name: str('the name of resource being referenced.'),
}, { required: ['kind', 'name'], ...atomic });
