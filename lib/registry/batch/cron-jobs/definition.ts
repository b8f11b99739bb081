/**
 * CronJob (batch/v1, namespaced, short name `cj`, category `all`): Jobs created on a schedule.
 * Defaults as Kubernetes 1.32's SetDefaults_CronJob (concurrencyPolicy Allow, suspend false,
 * history limits 3 and 1), the jobTemplate's pod template defaults and its pod failure policy's
 * pattern status (True); the rest of SetDefaults_Job is the Jobs' own, when they are created. metadata.generation
 * starts at 1 and counts spec changes; status is reset on create and written only through
 * `/status`, which keeps the spec. A DELETE without a propagation policy deletes the Jobs in
 * the background (DeleteDependents at batch/v1).
 *
 * Not here: the cronjob controller that creates the Jobs.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { FeatureGates } from '../../../scheme/feature-gates';
import { Naming } from '../../../naming';
import { statusSubresource } from '../../status-subresource';
import { Json, isObject } from '../../core/json-fields';
import { defaultPodTemplateSpec, podVolumeRules } from '../../core/pod-template';
import { semanticEqual } from '../../core/semantic-equal';
import { BATCH_GROUP, BATCH_VERSION } from '../group';
import { defaultPodFailurePolicyPatterns } from '../job-defaults';
import { cronJobSchema } from './schema';
import { cronJobTable } from './table';
import { validateCronJobCreate, validateCronJobUpdate } from './validation';

const KIND = 'CronJob';
const unset = (v: unknown) => v === undefined || v === null;

/** SetObjectDefaults_CronJob, in place. */
function defaultCronJob(obj: Json, volumes: ReturnType<typeof podVolumeRules>): void {
  if (!isObject(obj.spec)) obj.spec = {};
  const spec = obj.spec as Json;
  if (!spec.concurrencyPolicy) spec.concurrencyPolicy = 'Allow';
  if (unset(spec.suspend)) spec.suspend = false;
  if (unset(spec.successfulJobsHistoryLimit)) spec.successfulJobsHistoryLimit = 3;
  if (unset(spec.failedJobsHistoryLimit)) spec.failedJobsHistoryLimit = 1;
  if (!isObject(spec.jobTemplate)) spec.jobTemplate = {};
  const jobTemplate = spec.jobTemplate as Json;
  // Go writes the JobTemplateSpec's ObjectMeta and JobSpec structs whole.
  if (!isObject(jobTemplate.metadata)) jobTemplate.metadata = {};
  const meta = jobTemplate.metadata as Json;
  if (meta.creationTimestamp === undefined) meta.creationTimestamp = null;
  if (!isObject(jobTemplate.spec)) jobTemplate.spec = {};
  defaultPodFailurePolicyPatterns(jobTemplate.spec as Json);
  defaultPodTemplateSpec(jobTemplate.spec as Json, 'template', volumes);
}

/** The CronJob kind; the template's volume rules follow the server's flavor and feature gates. */
export function cronJobResource(naming: Naming, gates: FeatureGates = new FeatureGates()): ResourceDef {
  const volumes = podVolumeRules(naming, gates);
  const defaults = (obj: ApiObject) => defaultCronJob(obj as Json, volumes);
  return {
    group: BATCH_GROUP, version: BATCH_VERSION, kind: KIND, listKind: 'CronJobList', resource: 'cronjobs', singular: 'cronjob',
    namespaced: true, shortNames: ['cj'], categories: ['all'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [statusSubresource(KIND)],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: cronJobSchema,
    table: cronJobTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, cronJobSchema, KIND),
      default: defaults,
      prepareForCreate: (obj) => { defaults(obj); obj.status = {}; },
      prepareForUpdate: (obj, old) => { defaults(obj); obj.status = old.status ?? {}; },
      specChanged: (obj, old) => !semanticEqual(obj.spec, old.spec),
      validate: (obj) => validateCronJobCreate(obj, volumes),
      // Kubernetes' status strategy validates nothing but metadata: a write that changes only the
      // status (a /status write) skips the spec's rules.
      validateUpdate: (obj, old) => (!semanticEqual(obj.spec, old.spec) || semanticEqual(obj.status, old.status)
        ? validateCronJobUpdate(obj, old, volumes) : []),
      defaultGarbageCollectionPolicy: 'DeleteDependents',
    },
  };
}
