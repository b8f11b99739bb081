/**
 * Eviction (policy/v1 and policy/v1beta1): not a resource of its own but the body of
 * `POST /api/v1/namespaces/<ns>/pods/<name>/eviction`: the pod's name and namespace in metadata
 * and optional DeleteOptions for the pod's deletion. The handler is lib/api/eviction/.
 */
import { ResourceDef } from '../../../scheme/types';
import { Schema, atomicList, bool, int64, object, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

/** metav1.DeleteOptions as an Eviction holds it. */
const deleteOptions: Schema = object({
  apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
  kind: str('Kind is a string value representing the REST resource this object represents.'),
  gracePeriodSeconds: int64('The duration in seconds before the object should be deleted. Value must be non-negative integer. The value zero indicates delete immediately. If this value is nil, the default grace period for the specified type will be used. Defaults to a per object value if not specified. zero means delete immediately.'),
  preconditions: object({
    uid: str('Specifies the target UID.'),
    resourceVersion: str('Specifies the target ResourceVersion'),
  }, { description: 'Must be fulfilled before a deletion is carried out. If not possible, a 409 Conflict status will be returned.' }),
  orphanDependents: bool('Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. Should the dependent objects be orphaned. If true/false, the "orphan" finalizer will be added to/removed from the object\'s finalizers list. Either this field or PropagationPolicy may be set, but not both.'),
  propagationPolicy: str('Whether and how garbage collection will be performed. Either this field or OrphanDependents may be set, but not both. The default policy is decided by the existing finalizer set in the metadata.finalizers and the resource-specific default policy. Acceptable values are: \'Orphan\' - orphan the dependents; \'Background\' - allow the garbage collector to delete the dependents in the background; \'Foreground\' - a cascading policy that deletes all dependents in the foreground.'),
  dryRun: atomicList(str(), 'When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed'),
  ignoreStoreReadErrorWithClusterBreakingPotential: bool('if set to true, it will trigger an unsafe deletion of the resource in case the normal deletion flow fails with a corrupt object error. A resource is considered corrupt if it can not be retrieved from the underlying storage successfully because of a) its data can not be transformed e.g. decryption failure, or b) it fails to decode into an object. NOTE: unsafe deletion ignores finalizer constraints, skips precondition checks, and removes the object from the storage. WARNING: This may potentially break the cluster if the workload associated with the resource being unsafe-deleted relies on normal deletion flow. Use only if you REALLY know what you are doing. The default value is false, and the user must opt in to enable it'),
}, { description: 'DeleteOptions may be provided' });

export const evictionSchema: Schema = kindSchema({ deleteOptions },
  'Eviction evicts a pod from its node subject to certain policies and safety constraints. This is a subresource of Pod.  A request to cause such an eviction is created by POSTing to .../pods/<pod name>/evictions.');

/** Eviction at `version` as a body kind (what the eviction handler decodes). */
export function evictionKind(version: 'v1' | 'v1beta1'): ResourceDef {
  return {
    group: 'policy', version, kind: 'Eviction', listKind: 'EvictionList', resource: 'evictions', singular: 'eviction',
    namespaced: true, shortNames: [], categories: [], verbs: ['create'], subresources: [],
    deleteReturnsStatus: false, nameValidation: 'dns-subdomain', schema: evictionSchema, strategy: {}, virtual: true,
  };
}
