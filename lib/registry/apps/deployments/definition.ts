/**
 * Deployment (apps/v1, namespaced, short name `deploy`, category `all`): declarative updates of
 * pods through ReplicaSets. Defaults and validation are Kubernetes 1.32's (./defaults.ts,
 * ./validation.ts); the selector is immutable. Status is reset on create and written only through
 * `/status`; metadata.generation starts at 1 and is bumped by changes of the spec or of the
 * annotations (Kubernetes copies annotations to the ReplicaSets, so they count as desired state).
 * `/scale` reads and writes spec.replicas as an autoscaling/v1 Scale. PUT does not create; a
 * delete without a propagation policy deletes dependents in the background.
 *
 * Not here: the deployment controller that creates the ReplicaSets and fills the status.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { FeatureGates } from '../../../scheme/feature-gates';
import { Naming } from '../../../naming';
import { Json, isObject } from '../../core/json-fields';
import { semanticEqual } from '../../core/semantic-equal';
import { podVolumeRules } from '../../core/pod-template';
import { statusSubresource } from '../../status-subresource';
import { APPS_GROUP } from '../group';
import { replicaScaleSubresource } from '../replica-scale';
import { immutableSelector } from '../replica-selector';
import { omitGoZeros, omitGoZerosInList } from '../replica-omitempty';
import { deploymentSchema } from './schema';
import { defaultDeployment } from './defaults';
import { deploymentTable } from './table';
import { validateDeploymentSpec, validateDeploymentStatus } from './validation';

const KIND = 'Deployment';
const STATUS_VALUES = ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'conditions'];

/** Go's omitempty on the spec's and status' value fields (../replica-omitempty.ts). */
function omitZeros(obj: ApiObject): void {
  omitGoZeros(obj.spec, ['minReadySeconds', 'paused']);
  omitGoZeros(obj.status, STATUS_VALUES);
  omitGoZerosInList(obj.status, 'conditions', ['reason', 'message']);
}
const specOf = (obj: ApiObject): Json => (isObject(obj.spec) ? obj.spec : {});
const statusOf = (obj: ApiObject): Json => (isObject(obj.status) ? obj.status : {});

/** The Deployment kind; the template's volume rules follow the server's feature gates. */
export function deploymentResource(naming: Naming, gates: FeatureGates = new FeatureGates()): ResourceDef {
  const volumes = podVolumeRules(naming, gates);
  const defaults = (obj: ApiObject) => { defaultDeployment(obj as Json, volumes); omitZeros(obj); };
  return {
    group: APPS_GROUP, version: 'v1', kind: KIND, listKind: 'DeploymentList', resource: 'deployments', singular: 'deployment',
    namespaced: true, shortNames: ['deploy'], categories: ['all'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [statusSubresource(KIND, (status) => { const out = { status }; omitZeros(out); return out.status; }, { annotationsFromRequest: true }), replicaScaleSubresource()],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: deploymentSchema,
    table: deploymentTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      defaultGarbageCollectionPolicy: 'DeleteDependents',
      checkDecode: (obj) => decodeProblem(obj, deploymentSchema, KIND),
      default: defaults,
      // Go writes the status struct even when empty.
      prepareForCreate: (obj) => { defaults(obj); obj.status = {}; },
      prepareForUpdate: (obj, old) => { defaults(obj); obj.status = old.status ?? {}; },
      canonicalize: omitZeros,
      specChanged: (obj, old) => !semanticEqual(obj.spec, old.spec) || !semanticEqual(obj.metadata?.annotations, old.metadata?.annotations),
      validate: (obj) => validateDeploymentSpec(specOf(obj), volumes),
      // Main writes carry the stored status and /status writes the stored spec: checking both is
      // what each of Kubernetes' two strategies checks.
      validateUpdate: (obj, old) => [
        ...validateDeploymentSpec(specOf(obj), volumes),
        ...immutableSelector(specOf(obj).selector, specOf(old).selector, 'spec.selector'),
        ...validateDeploymentStatus(statusOf(obj), statusOf(old)),
      ],
    },
  };
}
