/**
 * ReplicaSet (apps/v1, namespaced, short name `rs`, category `all`): a number of pods from one
 * template. spec.replicas defaults to 1 and the template as every workload's does; validation is
 * Kubernetes 1.32's (./validation.ts); the selector is immutable. Status is reset on create
 * (`replicas: 0`, which Go writes without omitempty) and written only through `/status`;
 * metadata.generation starts at 1 and is bumped by spec changes only. `/scale` reads and writes
 * spec.replicas as an autoscaling/v1 Scale. PUT does not create; a delete without a propagation
 * policy deletes dependents in the background. Field selectors: metadata.name and
 * metadata.namespace only, as apps/v1 registers no field label conversion for ReplicaSet.
 *
 * Not here: the replica set controller that creates the pods and fills the status.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { FeatureGates } from '../../../scheme/feature-gates';
import { Naming } from '../../../naming';
import { Json, isObject, setDefault } from '../../core/json-fields';
import { semanticEqual } from '../../core/semantic-equal';
import { defaultPodTemplateSpec, podVolumeRules } from '../../core/pod-template';
import { statusSubresource } from '../../status-subresource';
import { APPS_GROUP } from '../group';
import { replicaScaleSubresource } from '../replica-scale';
import { immutableSelector } from '../replica-selector';
import { omitGoZeros, omitGoZerosInList } from '../replica-omitempty';
import { replicaSetSchema } from './schema';
import { replicaSetTable } from './table';
import { validateReplicaSetSpec, validateReplicaSetStatus } from './validation';

const KIND = 'ReplicaSet';
const specOf = (obj: ApiObject): Json => (isObject(obj.spec) ? obj.spec : {});
const statusOf = (obj: ApiObject): Json => (isObject(obj.status) ? obj.status : {});

/** The status as Go writes it: `replicas` has no omitempty, the other values have. */
function normalizeStatus(status: Record<string, unknown>): Record<string, unknown> {
  const out = { ...status, replicas: typeof status.replicas === 'number' ? status.replicas : 0 };
  omitGoZeros(out, ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration', 'conditions']);
  omitGoZerosInList(out, 'conditions', ['reason', 'message']);
  return out;
}

/** Go's omitempty on the spec's and status' value fields (../replica-omitempty.ts). */
function omitZeros(obj: ApiObject): void {
  omitGoZeros(obj.spec, ['minReadySeconds']);
  if (isObject(obj.status)) obj.status = normalizeStatus(obj.status);
}

/** The ReplicaSet kind; the template's volume rules follow the server's feature gates. */
export function replicaSetResource(naming: Naming, gates: FeatureGates = new FeatureGates()): ResourceDef {
  const volumes = podVolumeRules(naming, gates);
  // SetDefaults_ReplicaSet and the template's defaults (SetObjectDefaults_ReplicaSet).
  const defaults = (obj: ApiObject) => {
    if (!isObject(obj.spec)) obj.spec = {};
    setDefault(obj.spec as Json, 'replicas', 1);
    defaultPodTemplateSpec(obj.spec as Json, 'template', volumes);
    omitZeros(obj);
  };
  return {
    group: APPS_GROUP, version: 'v1', kind: KIND, listKind: 'ReplicaSetList', resource: 'replicasets', singular: 'replicaset',
    namespaced: true, shortNames: ['rs'], categories: ['all'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [statusSubresource(KIND, (status) => normalizeStatus(status)), replicaScaleSubresource()],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: replicaSetSchema,
    table: replicaSetTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      defaultGarbageCollectionPolicy: 'DeleteDependents',
      checkDecode: (obj) => decodeProblem(obj, replicaSetSchema, KIND),
      default: defaults,
      prepareForCreate: (obj) => { defaults(obj); obj.status = normalizeStatus({}); },
      prepareForUpdate: (obj, old) => { defaults(obj); obj.status = old.status ?? normalizeStatus({}); },
      canonicalize: omitZeros,
      specChanged: (obj, old) => !semanticEqual(obj.spec, old.spec),
      validate: (obj) => validateReplicaSetSpec(specOf(obj), volumes),
      // Main writes carry the stored status and /status writes the stored spec: checking both is
      // what each of Kubernetes' two strategies checks.
      validateUpdate: (obj, old) => [
        ...validateReplicaSetSpec(specOf(obj), volumes),
        ...immutableSelector(specOf(obj).selector, specOf(old).selector, 'spec.selector'),
        ...validateReplicaSetStatus(statusOf(obj)),
      ],
    },
  };
}
