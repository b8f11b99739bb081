/**
 * DaemonSet (apps/v1, namespaced, short name `ds`, category `all`): one pod per node.
 * Defaults are Kubernetes 1.32's (updateStrategy RollingUpdate with maxUnavailable 1 and
 * maxSurge 0, revisionHistoryLimit 10, the pod template's); validation is ValidateDaemonSetSpec
 * with the template validated whole, restart policy Always, and an immutable selector on update.
 * metadata.generation starts at 1 and counts spec changes; the internal templateGeneration (1 on
 * create, +1 on each template change) is served, as apps/v1 converts it, in the annotation
 * `deprecated.daemonset.template.generation`. Status is reset on create and written only through
 * `/status`. kubectl's NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE table
 * (wide: CONTAINERS IMAGES SELECTOR). Deleting one without a propagation policy deletes its
 * dependents. PUT does not create.
 *
 * Not here: the DaemonSet controller that places the pods and fills the status.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { FeatureGates } from '../../../scheme/feature-gates';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { Naming } from '../../../naming';
import { statusSubresource } from '../../status-subresource';
import { Json, isObject, record } from '../../core/json-fields';
import { semanticEqual } from '../../core/semantic-equal';
import { defaultPodTemplateSpec, podVolumeRules } from '../../core/pod-template';
import { APPS_GROUP } from '../group';
import { templateContainerCells } from '../../core/template-columns';
import { formatLabelSelector, formatLabels } from '../../../meta/label-format';
import { daemonSetSchema } from './schema';
import { validateDaemonSetSpec, validateDaemonSetStatusUpdate, validateDaemonSetUpdate } from './validation';

const KIND = 'DaemonSet';
/** apps/v1's annotation for the internal spec.templateGeneration. */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

const specOf = (obj: ApiObject): Json => {
  if (!isObject(obj.spec)) obj.spec = {};
  return obj.spec as Json;
};
const statusOf = (obj: ApiObject): Json => (isObject(obj.status) ? obj.status : {});
const count = (o: Json, key: string): number => (typeof o[key] === 'number' ? (o[key] as number) : 0);

/** printDaemonSet. */
const daemonSetTable: TableColumns = {
  columns: [
    nameColumn,
    column('Desired', 'integer', 'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/'),
    column('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/'),
    column('Ready', 'integer', 'numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.'),
    column('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
    column('Available', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)'),
    column('Node Selector', 'string', 'NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node\'s labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/'),
    ageColumn,
    column('Containers', 'string', 'Names of each container in the template.', { priority: 1 }),
    column('Images', 'string', 'Images referenced by each container in the template.', { priority: 1 }),
    column('Selector', 'string', 'A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template\'s labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors', { priority: 1 }),
  ],
  cells: (obj, now) => {
    const spec = isObject(obj.spec) ? obj.spec : {};
    const status = statusOf(obj as ApiObject);
    const template = isObject(spec.template) ? spec.template : {};
    const [containers, images] = templateContainerCells(template);
    return [
      obj.metadata?.name ?? '', count(status, 'desiredNumberScheduled'), count(status, 'currentNumberScheduled'), count(status, 'numberReady'),
      count(status, 'updatedNumberScheduled'), count(status, 'numberAvailable'), formatLabels((record(template, 'spec') ?? {}).nodeSelector),
      translateTimestampSince(obj.metadata?.creationTimestamp, now), containers, images, formatLabelSelector(spec.selector),
    ];
  },
};

/** SetDefaults_DaemonSet and the template's defaults, in place. */
function defaultDaemonSet(obj: ApiObject, volumes: ReturnType<typeof podVolumeRules>): void {
  const spec = specOf(obj);
  if (!isObject(spec.updateStrategy)) spec.updateStrategy = {};
  const strategy = spec.updateStrategy as Json;
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    if (!isObject(strategy.rollingUpdate)) strategy.rollingUpdate = {};
    const rolling = strategy.rollingUpdate as Json;
    if (rolling.maxUnavailable === undefined || rolling.maxUnavailable === null) rolling.maxUnavailable = 1;
    if (rolling.maxSurge === undefined || rolling.maxSurge === null) rolling.maxSurge = 0;
  }
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  defaultPodTemplateSpec(spec, 'template', volumes);
}

/** The status as Go writes it: the four counts without omitempty always present, empty values dropped. */
function normalizeStatus(status: Json): Json {
  const out: Json = {};
  const keep = ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady'];
  for (const [k, v] of Object.entries(status)) {
    if (v === null || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    if (v === 0 && !keep.includes(k) && k !== 'collisionCount') continue;
    out[k] = v;
  }
  for (const k of keep) out[k] ??= 0;
  return out;
}

/** The templateGeneration an object carries in its annotation (0 when absent or not a number). */
function templateGeneration(obj: ApiObject): number {
  const raw = obj.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  return raw !== undefined && /^[0-9]+$/.test(raw) ? Number(raw) : 0;
}

function setTemplateGeneration(obj: ApiObject, value: number): void {
  obj.metadata ??= {};
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [TEMPLATE_GENERATION_ANNOTATION]: String(value) };
}

/** The DaemonSet kind; pod volume rules follow the server's flavor and feature gates. */
export function daemonSetResource(naming: Naming, gates: FeatureGates = new FeatureGates()): ResourceDef {
  const volumes = podVolumeRules(naming, gates);
  return {
    group: APPS_GROUP, version: 'v1', kind: KIND, listKind: 'DaemonSetList',
    resource: 'daemonsets', singular: 'daemonset', namespaced: true, shortNames: ['ds'], categories: ['all'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [statusSubresource(KIND, (status) => normalizeStatus(status))],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: daemonSetSchema,
    table: daemonSetTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      defaultGarbageCollectionPolicy: 'DeleteDependents',
      checkDecode: (obj) => decodeProblem(obj, daemonSetSchema, KIND),
      default: (obj) => defaultDaemonSet(obj, volumes),
      prepareForCreate: (obj) => {
        defaultDaemonSet(obj, volumes);
        obj.status = normalizeStatus({});
        setTemplateGeneration(obj, Math.max(templateGeneration(obj), 1));
      },
      prepareForUpdate: (obj, old) => {
        defaultDaemonSet(obj, volumes);
        obj.status = old.status;
        // The client cannot set templateGeneration: it is the stored one, +1 on a template change.
        const changed = !semanticEqual(specOf(obj).template, specOf(old).template);
        setTemplateGeneration(obj, templateGeneration(old) + (changed ? 1 : 0));
      },
      specChanged: (obj, old) => !semanticEqual(obj.spec ?? {}, old.spec ?? {}),
      validate: (obj) => validateDaemonSetSpec(specOf(obj), volumes),
      // Main writes carry the stored status and /status writes the stored spec.
      validateUpdate: (obj, old) => [
        ...validateDaemonSetUpdate(specOf(obj), specOf(old), volumes),
        ...validateDaemonSetStatusUpdate(statusOf(obj), statusOf(old)),
      ],
    },
  };
}
