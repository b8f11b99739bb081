/**
 * Pod (core/v1, namespaced): a workload's containers, volumes, service account and node.
 * Pods are stored and validated; nothing runs them. `status` changes only through `/status`
 * (a new Pod starts Pending); a write to the Pod itself keeps the stored status, and may change
 * only container images. DELETE answers the Pod.
 */
import { ApiObject, ResourceDef } from '../../scheme/types';
import { podSchema } from '../../scheme/schemas/pod';
import { decodeProblem } from '../../scheme/decode-check';
import { FeatureGates } from '../../scheme/feature-gates';
import { Naming } from '../../naming';
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { isDns1123Subdomain } from '../../meta/validation';
import { storageNames } from './storage-annotations';
import { Json, isObject, records, text } from './volumes/json-fields';
import { VolumeRules, volumeRules } from './volumes/volume-list';
import { validateContainers } from './pod-containers';
import { defaultPod } from './pod-defaults';
import { podQOSClass } from './pod-qos';
import { validatePodSpecUpdate } from './pod-update';
import { initialPodStatus, normalizePodStatusIPs, validatePodStatusUpdate } from './pod-status';
import { podTable } from './pod-table';

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];

const specOf = (obj: ApiObject): Json => {
  if (!isObject(obj.spec)) obj.spec = {};
  return obj.spec as Json;
};
const statusOf = (obj: ApiObject): Json => (isObject(obj.status) ? obj.status : {});

function oneOf(value: string, supported: string[], path: string): FieldError[] {
  if (!value) return [fieldErrors.required(path)];
  return supported.includes(value) ? [] : [fieldErrors.notSupported(path, value, supported)];
}

function subdomain(value: string, path: string): FieldError[] {
  return value ? isDns1123Subdomain(value).map((m) => fieldErrors.invalid(path, value, m)) : [];
}

/** ValidatePodSpec for the fields served here; `name` is the Pod's (for ephemeral claims). */
function validatePodSpec(spec: Json, name: string, volumes: VolumeRules): FieldError[] {
  const vols = volumes.validate(records(spec, 'volumes'), name, 'spec.volumes');
  const errs = [...vols.errors, ...validateContainers(records(spec, 'containers'), vols.valid, 'spec.containers')];
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) {
    errs.push(fieldErrors.required('spec.terminationGracePeriodSeconds'));
  }
  errs.push(...oneOf(text(spec, 'restartPolicy'), RESTART_POLICIES, 'spec.restartPolicy'));
  errs.push(...oneOf(text(spec, 'dnsPolicy'), DNS_POLICIES, 'spec.dnsPolicy'));
  if (text(spec, 'dnsPolicy') === 'None' && !isObject(spec.dnsConfig)) errs.push(fieldErrors.required('spec.dnsConfig', 'must provide `dnsConfig` when `dnsPolicy` is None'));
  errs.push(...subdomain(text(spec, 'serviceAccountName'), 'spec.serviceAccountName'));
  errs.push(...subdomain(text(spec, 'nodeName'), 'spec.nodeName'));
  return errs;
}

/** The Pod kind; volume and claim rules follow the server's feature gates. */
export function podResource(naming: Naming, gates: FeatureGates = new FeatureGates()): ResourceDef {
  const volumes = volumeRules({
    allowReadWriteOncePod: gates.enabled('ReadWriteOncePod'),
    anyVolumeDataSource: gates.enabled('AnyVolumeDataSource'),
    snapshotGroup: storageNames(naming).snapshotGroup,
  });
  const validate = (obj: ApiObject) => validatePodSpec(specOf(obj), obj.metadata?.name ?? '', volumes);
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
    }],
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
      validate,
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
      selectableFields: ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork',
        'status.phase', 'status.podIP', 'status.nominatedNodeName'],
    },
  };
}
