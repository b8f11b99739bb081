/**
 * Pod (core/v1, namespaced): a workload's containers, volumes, service account and node.
 * Pods are stored and validated; nothing runs them. `status` changes only through `/status`
 * (a new Pod starts Pending); a write to the Pod itself keeps the stored status, and may change
 * only container images. DELETE answers the Pod; a Pod on a node is deleted gracefully (it stays
 * Terminating until a delete with gracePeriodSeconds=0, its kubelet's).
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { podSchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { FeatureGates } from '../../../scheme/feature-gates';
import { Naming } from '../../../naming';
import { Json, integer, isObject, records, text } from '../json-fields';
import { podVolumeRules } from '../pod-template';
import { validatePodSpec, validatePodSpecCreate } from '../pod-spec/spec-validation';
import { defaultPod } from '../pod-spec/defaults';
import { podQOSClass } from './qos';
import { validatePodSpecUpdate } from './update';
import { initialPodStatus, normalizePodStatusIPs, validatePodStatusUpdate } from './status';
import { podTable } from './table';
import { ephemeralContainersSubresource } from './ephemeral-containers';

const specOf = (obj: ApiObject): Json => {
  if (!isObject(obj.spec)) obj.spec = {};
  return obj.spec as Json;
};
const statusOf = (obj: ApiObject): Json => (isObject(obj.status) ? obj.status : {});

/**
 * Kubernetes' CheckGracefulDelete for pods: the delete's period, else the pod's
 * terminationGracePeriodSeconds; 0 for a pod no node runs (unscheduled or finished); a
 * negative period becomes 1.
 */
function podGracePeriod(obj: ApiObject, requested: number | undefined): number {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const phase = text(statusOf(obj), 'phase');
  if (!text(spec, 'nodeName') || phase === 'Succeeded' || phase === 'Failed') return 0;
  const period = requested ?? integer(spec, 'terminationGracePeriodSeconds') ?? 0;
  return period < 0 ? 1 : period;
}

/** The Pod kind; volume and claim rules follow the server's feature gates. */
export function podResource(naming: Naming, gates: FeatureGates = new FeatureGates()): ResourceDef {
  const volumes = podVolumeRules(naming, gates);
  const validate = (obj: ApiObject) => validatePodSpec(specOf(obj), { path: 'spec', podName: obj.metadata?.name ?? '', isPod: true }, volumes);
  return {
    group: '', version: 'v1', kind: 'Pod', listKind: 'PodList', resource: 'pods', singular: 'pod',
    namespaced: true, shortNames: ['po'], categories: ['all'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [{
      name: 'status', kind: 'Pod', verbs: ['get', 'patch', 'update'],
      // Only status is taken from the request; spec and metadata stay as stored.
      applyUpdate: (incoming, current) => {
        const status = isObject(incoming.status) ? incoming.status : {};
        normalizePodStatusIPs(status);
        return { ...current, status };
      },
    },
    // The budget-respecting delete (lib/api/eviction/); the body is a policy/v1 (or v1beta1) Eviction.
    { name: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] },
    // A scheduler's bind (lib/api/binding/); the body is a core/v1 Binding.
    { name: 'binding', kind: 'Binding', verbs: ['create'] },
    ephemeralContainersSubresource(volumes, `${naming.labelDomain}/config.mirror`)],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: podSchema,
    table: podTable,
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, podSchema, 'Pod'),
      default: (obj) => defaultPod(obj as Json, volumes),
      prepareForCreate: (obj) => {
        obj.status = undefined;
        defaultPod(obj as Json, volumes);
        obj.status = initialPodStatus(podQOSClass(specOf(obj)));
      },
      prepareForUpdate: (obj, old) => {
        obj.status = old.status;
        defaultPod(obj as Json, volumes);
      },
      validate: (obj) => [...validate(obj), ...validatePodSpecCreate(specOf(obj))],
      validateUpdate: (obj, old) => [
        ...validate(obj),
        ...validatePodSpecUpdate(specOf(obj), isObject(old.spec) ? old.spec : {}),
        ...validatePodStatusUpdate(statusOf(obj), statusOf(old), text(isObject(old.spec) ? old.spec : {}, 'restartPolicy')),
      ],
      fieldSet: (obj) => {
        const spec = isObject(obj.spec) ? obj.spec : {};
        const status = statusOf(obj);
        const podIPs = records(status, 'podIPs');
        return {
          'spec.nodeName': text(spec, 'nodeName'),
          'spec.restartPolicy': text(spec, 'restartPolicy'),
          'spec.schedulerName': text(spec, 'schedulerName'),
          'spec.serviceAccountName': text(spec, 'serviceAccountName'),
          'spec.hostNetwork': String(spec.hostNetwork === true),
          'status.phase': text(status, 'phase'),
          'status.podIP': podIPs.length ? text(podIPs[0], 'ip') : '',
          'status.nominatedNodeName': text(status, 'nominatedNodeName'),
        };
      },
      gracePeriod: podGracePeriod,
      selectableFields: ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork',
        'status.phase', 'status.podIP', 'status.nominatedNodeName'],
      // Kubernetes' NodeNameTriggerFunc and spec.nodeName indexer: each kubelet watches and lists its node's pods.
      indexedField: 'spec.nodeName',
    },
  };
}
