/**
 * StatefulSet (apps/v1, namespaced, short name `sts`, category `all`): pods with stable
 * identities and their own claims. Defaults and validation are Kubernetes 1.32's (./defaults.ts,
 * ./validation.ts); the name must be a DNS label. metadata.generation starts at 1 and counts spec
 * changes; status is cleared on create and written only through `/status`, which keeps the spec.
 * `/scale` reads and writes spec.replicas as an autoscaling/v1 Scale. PUT does not create.
 * kubectl's NAME READY AGE table (wide: CONTAINERS IMAGES); the field selector
 * `status.successful` is accepted, as apps/v1's conversion accepts it (no object has the field).
 * Deleting one without a propagation policy deletes its dependents (DeleteDependents).
 *
 * Not here: the StatefulSet controller that creates the pods and claims and fills the status.
 */
import { ApiObject, ResourceDef, ScaleMapping } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { FeatureGates } from '../../../scheme/feature-gates';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { Naming } from '../../../naming';
import { statusSubresource } from '../../status-subresource';
import { Json, isObject } from '../../core/json-fields';
import { semanticEqual } from '../../core/semantic-equal';
import { podVolumeRules } from '../../core/pod-template';
import { APPS_GROUP } from '../group';
import { templateContainerCells } from '../../core/template-columns';
import { labelSelectorString } from '../../../meta/label-format';
import { statefulSetSchema } from './schema';
import { defaultStatefulSet, dropDisabledFields, normalizeStatus, specOf } from './defaults';
import { validateCollisionCountUpdate, validateStatefulSetSpec, validateStatefulSetStatus, validateStatefulSetUpdate } from './validation';

const KIND = 'StatefulSet';

const statusOf = (obj: ApiObject): Json => (isObject(obj.status) ? obj.status : {});
const count = (o: Json, key: string): number => (typeof o[key] === 'number' ? (o[key] as number) : 0);

/** printStatefulSet: READY is readyReplicas/replicas. */
const statefulSetTable: TableColumns = {
  columns: [
    nameColumn,
    column('Ready', 'string', 'Number of the pod with ready state'),
    ageColumn,
    column('Containers', 'string', 'Names of each container in the template.', { priority: 1 }),
    column('Images', 'string', 'Images referenced by each container in the template.', { priority: 1 }),
  ],
  cells: (obj, now) => {
    const spec = isObject(obj.spec) ? obj.spec : {};
    const [containers, images] = templateContainerCells(spec.template);
    return [
      obj.metadata?.name ?? '', `${count(statusOf(obj as ApiObject), 'readyReplicas')}/${count(spec, 'replicas')}`,
      translateTimestampSince(obj.metadata?.creationTimestamp, now), containers, images,
    ];
  },
};

/** The StatefulSet as an autoscaling/v1 Scale. */
export const statefulSetScale: ScaleMapping = {
  specReplicas: (obj) => count(isObject(obj.spec) ? obj.spec : {}, 'replicas'),
  statusReplicas: (obj) => count(statusOf(obj), 'replicas'),
  selector: (obj) => labelSelectorString(isObject(obj.spec) ? obj.spec.selector : undefined) ?? '',
  withReplicas: (obj, replicas) => ({ ...obj, spec: { ...(isObject(obj.spec) ? obj.spec : {}), replicas } }),
};

/** The StatefulSet kind; pod volume rules follow the server's flavor and feature gates. */
export function statefulSetResource(naming: Naming, gates: FeatureGates = new FeatureGates()): ResourceDef {
  const volumes = podVolumeRules(naming, gates);
  const maxUnavailableGate = gates.enabled('MaxUnavailableStatefulSet');
  const defaults = (obj: ApiObject) => defaultStatefulSet(obj as Json, volumes);
  return {
    group: APPS_GROUP, version: 'v1', kind: KIND, listKind: 'StatefulSetList',
    resource: 'statefulsets', singular: 'statefulset', namespaced: true, shortNames: ['sts'], categories: ['all'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [
      statusSubresource(KIND, (status) => normalizeStatus(status)),
      { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'], scale: statefulSetScale },
    ],
    deleteReturnsStatus: false,
    nameValidation: 'dns-label',
    schema: statefulSetSchema,
    table: statefulSetTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      defaultGarbageCollectionPolicy: 'DeleteDependents',
      checkDecode: (obj) => decodeProblem(obj, statefulSetSchema, KIND),
      default: defaults,
      prepareForCreate: (obj) => {
        defaults(obj);
        obj.status = normalizeStatus({});
        dropDisabledFields(obj as Json, undefined, maxUnavailableGate);
      },
      prepareForUpdate: (obj, old) => {
        defaults(obj);
        obj.status = old.status;
        dropDisabledFields(obj as Json, old as Json, maxUnavailableGate);
      },
      specChanged: (obj, old) => !semanticEqual(obj.spec ?? {}, old.spec ?? {}),
      validate: (obj) => validateStatefulSetSpec(specOf(obj as Json)),
      // Main writes carry the stored status and /status writes the stored spec: checking both is
      // what each of Kubernetes' two strategies checks.
      validateUpdate: (obj, old) => [
        ...validateStatefulSetUpdate(specOf(obj as Json), specOf(old as Json)),
        ...validateStatefulSetStatus(statusOf(obj)),
        ...validateCollisionCountUpdate(statusOf(obj), statusOf(old)),
      ],
      fieldSet: () => ({ 'status.successful': '' }),
      selectableFields: ['status.successful'],
    },
  };
}
