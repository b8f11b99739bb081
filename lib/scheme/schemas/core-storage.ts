/**
 * Schemas of the core storage kinds (PersistentVolumeClaim, PersistentVolume) and of the
 * selector and reference types they share with the storage group.
 */
import { Schema, atomicList, mapList, object, str, stringMap, time } from '../schema';
import { kindSchema } from './meta';
import { objectReference, persistentSources } from './persistent-sources';

const atomic = { 'x-kubernetes-map-type': 'atomic' } as const;

/** resource.Quantity: a string such as `1Gi` (JSON numbers are accepted on input). */
export const quantity = (description?: string): Schema => ({
  type: 'string', format: 'quantity', 'x-kubernetes-int-or-string': true, ...(description ? { description } : {}),
});

/** ResourceList: quantities by resource name. */
export const resourceList = (description?: string): Schema => ({
  type: 'object', additionalProperties: quantity(), ...(description ? { description } : {}),
});

/** metav1.LabelSelector (atomic). */
export const labelSelector: Schema = object({
  matchLabels: stringMap('{key,value} pairs, each equivalent to an In requirement with one value.'),
  matchExpressions: atomicList(object({
    key: str('the label key that the selector applies to.'),
    operator: str('In, NotIn, Exists or DoesNotExist.'),
    values: atomicList(str()),
  }, { required: ['key', 'operator'] }), 'a list of label selector requirements, ANDed.'),
}, atomic);

/** TypedLocalObjectReference (atomic): a typed object in the same namespace. */
export const typedLocalObjectReference: Schema = object({
  apiGroup: str('the group of the referenced resource; empty means the core group.'),
  kind: str('the type of resource being referenced.'),
  name: str('the name of resource being referenced.'),
}, { required: ['kind', 'name'], ...atomic });

const nodeSelectorRequirement: Schema = object({
  key: str('The label key that the selector applies to.'),
  operator: str('In, NotIn, Exists, DoesNotExist, Gt or Lt.'),
  values: atomicList(str()),
}, { required: ['key', 'operator'] });

/** NodeSelectorTerm (atomic): requirements ANDed; an empty term matches nothing. */
export const nodeSelectorTerm: Schema = object({
  matchExpressions: atomicList(nodeSelectorRequirement, 'requirements by node labels.'),
  matchFields: atomicList(nodeSelectorRequirement, 'requirements by node fields.'),
}, atomic);

/** NodeSelector (atomic): terms ORed. */
export const nodeSelector: Schema = object({
  nodeSelectorTerms: atomicList(nodeSelectorTerm, 'Required. A list of node selector terms. The terms are ORed.'),
}, { required: ['nodeSelectorTerms'], ...atomic });

/** TopologySelectorTerm (atomic): label requirements ANDed. */
export const topologySelectorTerm: Schema = object({
  matchLabelExpressions: atomicList(object({
    key: str('The label key that the selector applies to.'),
    values: atomicList(str(), 'An array of string values; one must match the label to be selected.'),
  }, { required: ['key', 'values'] })),
}, atomic);

/** PersistentVolumeSpec: also the inline spec of a VolumeAttachment source. */
export const persistentVolumeSpec: Schema = object({
  capacity: resourceList("capacity is the description of the persistent volume's resources and capacity."),
  ...persistentSources,
  accessModes: atomicList(str(), 'accessModes contains all ways the volume can be mounted.'),
  claimRef: { ...objectReference, 'x-kubernetes-map-type': 'granular', description: 'claimRef is part of a bi-directional binding between a volume and a claim.' },
  persistentVolumeReclaimPolicy: str('Retain (default for manually created volumes), Delete (default for dynamically provisioned volumes) or Recycle (deprecated).'),
  storageClassName: str('the name of StorageClass to which this persistent volume belongs; empty means no class.'),
  mountOptions: atomicList(str(), 'the list of mount options, e.g. ["ro", "soft"]; not validated.'),
  volumeMode: str('Block or Filesystem; Filesystem when absent.'),
  nodeAffinity: object({ required: nodeSelector }, { description: 'the constraints on the nodes this volume can be accessed from.' }),
});

export const persistentVolumeSchema: Schema = kindSchema({
  spec: persistentVolumeSpec,
  status: object({
    phase: str('Pending, Available, Bound, Released or Failed.'),
    message: str('a human-readable message indicating details about why the volume is in this state.'),
    reason: str('a brief CamelCase string that describes any failure.'),
  }),
}, 'PersistentVolume (PV) is a storage resource provisioned by an administrator.');

const claimCondition: Schema = object({
  type: str(),
  status: str(),
  lastProbeTime: time('the time we probed the condition.'),
  lastTransitionTime: time('the time the condition transitioned from one status to another.'),
  reason: str('a unique, short, machine-understandable reason; "ResizeStarted" means the volume is being resized.'),
  message: str('the human-readable message indicating details about last transition.'),
}, { required: ['type', 'status'] });

/** PersistentVolumeClaimSpec: also the spec of an ephemeral volume's claim template. */
export const persistentVolumeClaimSpec: Schema = object({
  accessModes: atomicList(str(), 'the desired access modes the volume should have.'),
  selector: labelSelector,
  resources: object({
    limits: resourceList('the maximum amount of compute resources allowed.'),
    requests: resourceList('the minimum amount of compute resources required.'),
  }),
  volumeName: str('the binding reference to the PersistentVolume backing this claim.'),
  storageClassName: str('the name of the StorageClass required by the claim.'),
  volumeMode: str('what type of volume is required by the claim; Filesystem when absent.'),
  dataSource: typedLocalObjectReference,
  dataSourceRef: typedLocalObjectReference,
});

export const persistentVolumeClaimSchema: Schema = kindSchema({
  spec: persistentVolumeClaimSpec,
  status: object({
    phase: str('Pending, Bound or Lost.'),
    accessModes: atomicList(str(), 'the actual access modes the volume backing the PVC has.'),
    capacity: resourceList('the actual resources of the underlying volume.'),
    conditions: mapList(claimCondition, ['type'], 'the current conditions of the claim.'),
    allocatedResources: resourceList('the storage resource within AllocatedResources tracks the capacity allocated to a PVC (alpha).'),
    resizeStatus: str('the status of the resize operation; empty when no expansion is in progress (alpha).'),
  }),
}, 'PersistentVolumeClaim is a user\'s request for and claim to a persistent volume.');
