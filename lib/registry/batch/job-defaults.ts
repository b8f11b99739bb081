/**
 * Kubernetes 1.32's SetDefaults_Job (pkg/apis/batch/v1/defaults.go) over a JobSpec's JSON, with
 * the gates of 1.32's defaults (JobPodReplacementPolicy on): completions and parallelism 1 when
 * both are unset (parallelism 1 when only it is), backoffLimit 6 (max int32 with
 * backoffLimitPerIndex), completionMode NonIndexed, suspend false, podReplacementPolicy Failed
 * with a podFailurePolicy and TerminatingOrFailed without, manualSelector false, onPodConditions
 * status True; then the pod template's defaults. A CronJob's jobTemplate gets only the template's (its Jobs are
 * defaulted when created).
 */
import { Json, isObject, records } from '../core/json-fields';
import { VolumeRules } from '../core/volumes/volume-list';
import { defaultPodTemplateSpec } from '../core/pod-template';

const MAX_INT32 = 2147483647;
const unset = (v: unknown) => v === undefined || v === null;

/** SetDefaults_Job's JobSpec part, in place. */
export function defaultJobSpec(spec: Json): void {
  if (unset(spec.completions) && unset(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  if (unset(spec.parallelism)) spec.parallelism = 1;
  if (unset(spec.backoffLimit)) spec.backoffLimit = unset(spec.backoffLimitPerIndex) ? 6 : MAX_INT32;
  if (unset(spec.completionMode)) spec.completionMode = 'NonIndexed';
  if (unset(spec.suspend)) spec.suspend = false;
  defaultPodFailurePolicyPatterns(spec);
  if (unset(spec.podReplacementPolicy)) spec.podReplacementPolicy = isObject(spec.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed';
  if (unset(spec.manualSelector)) spec.manualSelector = false;
}

/**
 * SetDefaults_PodFailurePolicyOnPodConditionsPattern: a pattern's status is True when unset.
 * Kubernetes applies it wherever the type appears, a CronJob's jobTemplate included.
 */
export function defaultPodFailurePolicyPatterns(spec: Json): void {
  const pfp = isObject(spec.podFailurePolicy) ? spec.podFailurePolicy : undefined;
  for (const rule of pfp ? records(pfp, 'rules') : []) {
    for (const pattern of records(rule, 'onPodConditions')) if (!pattern.status) pattern.status = 'True';
  }
}

/**
 * SetDefaults_Job's label rule: a Job without labels takes its template's. Kubernetes applies it
 * on every decode, from storage too, so a Job created without labels reads back with the
 * template's generated labels; the store here applies it again after generating them.
 */
export function labelsFromTemplate(obj: Json): void {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const template = isObject(spec.template) ? spec.template : {};
  const templateLabels = isObject(template.metadata) ? (template.metadata as Json).labels : undefined;
  const meta = (isObject(obj.metadata) ? obj.metadata : (obj.metadata = {})) as Json;
  if (isObject(templateLabels) && !(isObject(meta.labels) && Object.keys(meta.labels).length)) meta.labels = { ...templateLabels };
}

/** SetObjectDefaults_Job: the spec (created when absent), the Job's labels from the template's, the template. */
export function defaultJob(obj: Json, volumes: VolumeRules): void {
  if (!isObject(obj.spec)) obj.spec = {};
  defaultJobSpec(obj.spec as Json);
  labelsFromTemplate(obj);
  defaultPodTemplateSpec(obj.spec as Json, 'template', volumes);
}
