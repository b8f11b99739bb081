/**
 * ReplicationController (core/v1, namespaced, short name `rc`, category `all`): keeps
 * `spec.replicas` pods of its template running (the replication manager of
 * kube-controller-manager does that; this server stores, defaults, validates and serves it).
 * Selector and labels default from the template's labels, replicas to 1. Status is reset on
 * create (`replicas: 0`, as Go writes it) and written only through `/status`, which keeps the
 * spec; metadata.generation starts at 1 and counts spec changes. `/scale` reads and writes it as
 * an autoscaling/v1 Scale. A delete through core/v1 orphans the pods by default, as Kubernetes
 * does for this version. Field selector: `status.replicas`.
 */
import { ApiObject, ResourceDef, ScaleMapping } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { FeatureGates } from '../../../scheme/feature-gates';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { Naming } from '../../../naming';
import { statusSubresource } from '../../status-subresource';
import { semanticEqual } from '../semantic-equal';
import { Json } from '../json-fields';
import { containersColumn, imagesColumn, selectorColumn, templateContainerCells } from '../template-columns';
import { selectorFromSetString } from '../../../meta/label-format';
import { podVolumeRules } from '../pod-template';
import { replicationControllerSchema } from './schema';
import {
  ReplicationControllerStatus, defaultReplicationController, selectorOf, specOf, statusOf,
  validateReplicationControllerSpec, validateReplicationControllerStatus,
} from './validation';

const KIND = 'ReplicationController';
const WHAT_IS = 'More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller';

const desired = (obj: ApiObject): number => (typeof specOf(obj).replicas === 'number' ? specOf(obj).replicas as number : 1);

/** printReplicationController: NAME DESIRED CURRENT READY AGE, wide CONTAINERS IMAGES SELECTOR. */
const replicationControllerTable: TableColumns = {
  columns: [
    nameColumn,
    column('Desired', 'integer', `Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. ${WHAT_IS}`),
    column('Current', 'integer', `Replicas is the most recently observed number of replicas. ${WHAT_IS}`),
    column('Ready', 'integer', 'The number of ready replicas for this replication controller.'),
    ageColumn,
    containersColumn, imagesColumn,
    selectorColumn('Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors'),
  ],
  cells: (obj, now) => {
    const spec = specOf(obj as ApiObject);
    const status = statusOf(obj as ApiObject);
    const [containers, images] = templateContainerCells(spec.template);
    return [
      obj.metadata?.name ?? '', desired(obj as ApiObject), status.replicas ?? 0, status.readyReplicas ?? 0,
      translateTimestampSince(obj.metadata?.creationTimestamp, now), containers, images,
      selectorFromSetString(selectorOf(spec)) || '<none>',
    ];
  },
};

/** The status as Go writes it: `replicas` always (no omitempty), the rest only when set. */
function normalizeStatus(status: ReplicationControllerStatus): Json {
  const out: Json = { replicas: status.replicas ?? 0 };
  for (const f of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'] as const) {
    if (status[f]) out[f] = status[f];
  }
  if (status.conditions?.length) out.conditions = status.conditions;
  return out;
}

/** autoscaling/v1 Scale of a controller: spec.replicas, status.replicas, the selector as a string. */
const replicationControllerScale: ScaleMapping = {
  specReplicas: desired,
  statusReplicas: (obj) => statusOf(obj).replicas ?? 0,
  selector: (obj) => selectorFromSetString(selectorOf(specOf(obj))),
  withReplicas: (obj, replicas) => ({ ...obj, spec: { ...specOf(obj), replicas } }),
};

/** The ReplicationController kind; the template's volume rules follow the server's feature gates. */
export function replicationControllerResource(naming: Naming, gates: FeatureGates = new FeatureGates()): ResourceDef {
  const volumes = podVolumeRules(naming, gates);
  const validate = (obj: ApiObject) => validateReplicationControllerSpec(specOf(obj), volumes);
  return {
    group: '', version: 'v1', kind: KIND, listKind: 'ReplicationControllerList',
    resource: 'replicationcontrollers', singular: 'replicationcontroller', namespaced: true, shortNames: ['rc'], categories: ['all'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [
      { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'], scale: replicationControllerScale },
      statusSubresource(KIND, (status) => normalizeStatus(status as ReplicationControllerStatus)),
    ],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: replicationControllerSchema,
    table: replicationControllerTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, replicationControllerSchema, KIND),
      default: (obj) => defaultReplicationController(obj, volumes),
      prepareForCreate: (obj) => { defaultReplicationController(obj, volumes); obj.status = normalizeStatus({}); },
      prepareForUpdate: (obj, old) => { defaultReplicationController(obj, volumes); obj.status = old.status; },
      specChanged: (obj, old) => !semanticEqual(obj.spec ?? {}, old.spec ?? {}),
      validate,
      // Main writes carry the stored status and /status writes the stored spec: checking both is
      // what Kubernetes' two strategies check between them.
      validateUpdate: (obj) => [...validate(obj), ...validateReplicationControllerStatus(statusOf(obj))],
      fieldSet: (obj) => ({ 'status.replicas': String(statusOf(obj).replicas ?? 0) }),
      selectableFields: ['status.replicas'],
      // core/v1 keeps the pods of a deleted controller unless told otherwise (for back compatibility).
      defaultGarbageCollectionPolicy: 'OrphanDependents',
    },
  };
}
