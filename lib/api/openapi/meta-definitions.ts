/**
 * The meta.k8s.io/v1 and runtime definitions every document carries: ObjectMeta and its parts
 * (from the same schemas the server validates with), and the request and response types of the
 * operations (Status, DeleteOptions, Patch, WatchEvent, APIResourceList).
 */
import { GroupVersion } from '../../scheme/types';
import { Schema, atomicList, bool, int32, int64, object, str } from '../../scheme/schema';
import { listMeta, managedFieldsEntry, objectMeta, ownerReference, rawExtension } from '../../scheme/meta-schema';
import { vendorExtensions } from './extensions';
import { metaNames } from './schema-names';
import { Json, SchemaWriter, writeSchema } from './schema-writer';

const apiVersion = str('APIVersion defines the versioned schema of this representation of an object.');
const kind = str('Kind is a string value representing the REST resource this object represents.');

const statusCause: Schema = object({
  field: str('The field of the resource that has caused this error, as named by its JSON serialization.'),
  message: str('A human-readable description of the cause of the error.'),
  reason: str('A machine-readable description of the cause of the error.'),
}, { description: 'StatusCause provides more information about an api.Status failure, including cases when multiple errors are encountered.' });

const statusDetails: Schema = object({
  causes: atomicList(statusCause, 'The Causes array includes more details associated with the StatusReason failure.'),
  group: str('The group attribute of the resource associated with the status StatusReason.'),
  kind: str('The kind attribute of the resource associated with the status StatusReason.'),
  name: str('The name attribute of the resource associated with the status StatusReason (when there is a single name which can be described).'),
  retryAfterSeconds: int32('If specified, the time in seconds before the operation should be retried.'),
  uid: str('UID of the resource (when there is a single resource which can be described).'),
}, { description: 'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.' });

const status: Schema = object({
  apiVersion, kind,
  code: int32('Suggested HTTP return code for this status, 0 if not set.'),
  details: statusDetails,
  message: str('A human-readable description of the status of this operation.'),
  metadata: listMeta,
  reason: str('A machine-readable description of why this operation is in the "Failure" status.'),
  status: str('Status of the operation. One of: "Success" or "Failure".'),
}, { description: 'Status is a return value for calls that don\'t return other objects.' });

const preconditions: Schema = object({
  resourceVersion: str('Specifies the target ResourceVersion'),
  uid: str('Specifies the target UID.'),
}, { description: 'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.' });

const deleteOptions: Schema = object({
  apiVersion, kind,
  dryRun: atomicList(str(), 'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed'),
  gracePeriodSeconds: int64('The duration in seconds before the object should be deleted.'),
  orphanDependents: bool('Deprecated: please use the PropagationPolicy.'),
  preconditions,
  propagationPolicy: str('Whether and how garbage collection will be performed: Orphan, Background or Foreground.'),
}, { description: 'DeleteOptions may be provided when deleting an API object.' });

const patch: Schema = { type: 'object', description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.' };

/** RawExtension's definition: the shared schema without the map type that only server-side apply reads. */
const { 'x-kubernetes-map-type': _applyOnly, ...rawExtensionDefinition } = rawExtension;

const watchEvent: Schema = object({
  object: rawExtension,
  type: str('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.'),
}, { required: ['type', 'object'], description: 'Event represents a single event to a watched resource.' });

const time: Schema = {
  type: 'string', format: 'date-time',
  description: 'Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON (RFC 3339).',
};

const apiResource: Schema = object({
  categories: atomicList(str(), 'categories is a list of the grouped resources this resource belongs to (e.g. \'all\')'),
  kind: str('kind is the kind for the resource (e.g. \'Foo\' is the kind for a resource \'foo\')'),
  name: str('name is the plural name of the resource.'),
  namespaced: bool('namespaced indicates if a resource is namespaced or not.'),
  shortNames: atomicList(str(), 'shortNames is a list of suggested short names of the resource.'),
  singularName: str('singularName is the singular name of the resource.'),
  storageVersionHash: str('The hash value of the storage version, the version this resource is converted to when written to the data store.'),
  verbs: atomicList(str(), 'verbs is a list of supported kube verbs.'),
}, { required: ['name', 'singularName', 'namespaced', 'kind', 'verbs'], description: 'APIResource specifies the name of a resource and whether it is namespaced.' });

const apiResourceList: Schema = object({
  apiVersion, kind,
  groupVersion: str('groupVersion is the group and version this APIResourceList is for.'),
  resources: atomicList(apiResource, 'resources contains the name of the resources and if they are namespaced.'),
}, { required: ['groupVersion', 'resources'], description: 'APIResourceList is a list of APIResource.' });

const fieldsV1 = managedFieldsEntry.properties!.fieldsV1;

/** Every meta definition: its schema and the kinds it is served as (GVK extension), if any. */
const META: [string, Schema, 'core' | 'every' | undefined][] = [
  [metaNames.apiResource, apiResource, undefined],
  [metaNames.apiResourceList, apiResourceList, 'core'],
  [metaNames.deleteOptions, deleteOptions, 'every'],
  [metaNames.fieldsV1, fieldsV1, undefined],
  [metaNames.listMeta, listMeta, undefined],
  [metaNames.managedFieldsEntry, managedFieldsEntry, undefined],
  [metaNames.objectMeta, objectMeta, undefined],
  [metaNames.ownerReference, ownerReference, undefined],
  [metaNames.patch, patch, undefined],
  [metaNames.preconditions, preconditions, undefined],
  [metaNames.status, status, 'core'],
  [metaNames.statusCause, statusCause, undefined],
  [metaNames.statusDetails, statusDetails, undefined],
  [metaNames.time, time, undefined],
  [metaNames.watchEvent, watchEvent, 'every'],
  [metaNames.rawExtension, rawExtensionDefinition, undefined],
];

/** Identity -> name of every meta schema, for SchemaWriter.named. */
export function metaNamed(): Map<Schema, string> {
  // Fields hold the shared RawExtension schema, written as a reference to its definition.
  return new Map([...META.map(([name, schema]): [Schema, string] => [schema, name]), [rawExtension, metaNames.rawExtension]]);
}

/**
 * The meta definitions, keyed by name. `groupVersions` are the served group/versions: as in
 * Kubernetes, DeleteOptions and WatchEvent are kinds of every one of them (and of core v1).
 */
export function metaDefinitions(w: SchemaWriter, groupVersions: GroupVersion[]): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [name, schema, served] of META) {
    const body = writeSchema(w, schema, true);
    const kindName = name.slice(name.lastIndexOf('.') + 1);
    if (served === 'core') {
      Object.assign(body, vendorExtensions(w.naming, { 'group-version-kind': [{ group: '', kind: kindName, version: 'v1' }] }));
    } else if (served === 'every') {
      const gvs = [{ group: '', version: 'v1' }, ...groupVersions.filter((gv) => gv.group !== '' || gv.version !== 'v1')];
      Object.assign(body, vendorExtensions(w.naming, { 'group-version-kind': gvs.map((gv) => ({ group: gv.group, kind: kindName, version: gv.version })) }));
    }
    out[name] = body;
  }
  return out;
}
