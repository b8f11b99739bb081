/**
 * Kubernetes 1.32's Job validation (pkg/apis/batch/validation, options from
 * pkg/registry/batch/job/strategy.go) over the Job's JSON: ValidateJob on create (the generated
 * selector and labels, the spec, the indexed pods' hostnames), ValidateJobUpdate (immutable
 * fields, the template mutable only in a suspended Job that never started, completions only
 * with parallelism in an Indexed Job) and the core of ValidateJobUpdateStatus.
 */
import { FieldError, child, fieldErrors } from '../../../meta/field-errors';
import { labelSelectorFromObject, matchesLabels } from '../../../meta/label-selector';
import { isDns1123Label, validateNonNegative } from '../../../meta/validation';
import { ApiObject } from '../../../scheme/types';
import { Json, isObject, record, records, text } from '../../core/json-fields';
import { semanticEqual } from '../../core/semantic-equal';
import { VolumeRules } from '../../core/volumes/volume-list';
import { goLabelSelector, goStringMap, invalidGo } from '../../../meta/go-print';
import { isIndexed, validateIndexesFormat, validateJobSpecFields } from '../job-spec-validation';

export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
export const LEGACY_JOB_NAME_LABEL = 'job-name';

export const specOf = (obj: ApiObject): Json => (isObject(obj.spec) ? obj.spec : {});
export const statusOf = (obj: ApiObject): Json => (isObject(obj.status) ? obj.status : {});
const templateLabels = (spec: Json): Json => record(record(record(spec, 'template') ?? {}, 'metadata') ?? {}, 'labels') ?? {};
const set = (v: unknown): boolean => v !== undefined && v !== null;

/**
 * generateSelector (strategy.go): unless manualSelector, the template gets the job-name and
 * controller-uid labels (both spellings; labels the client set are kept, and validation then
 * refuses wrong ones) and the selector matches `batch.kubernetes.io/controller-uid`.
 */
export function generateSelector(obj: ApiObject): void {
  const spec = (obj.spec = specOf(obj));
  if (spec.manualSelector === true) return;
  const template = (spec.template = isObject(spec.template) ? spec.template : {}) as Json;
  const meta = (template.metadata = isObject(template.metadata) ? template.metadata : {}) as Json;
  const labels = (meta.labels = isObject(meta.labels) ? meta.labels : {}) as Json;
  const name = obj.metadata?.name ?? '';
  const uid = obj.metadata?.uid ?? '';
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) if (!(key in labels)) labels[key] = name;
  for (const key of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) if (!(key in labels)) labels[key] = uid;
  const selector = (spec.selector = isObject(spec.selector) ? spec.selector : {}) as Json;
  const matchLabels = (selector.matchLabels = isObject(selector.matchLabels) ? selector.matchLabels : {}) as Json;
  if (!(CONTROLLER_UID_LABEL in matchLabels)) matchLabels[CONTROLLER_UID_LABEL] = uid;
}

/** ValidateHasLabel at spec.template.metadata. */
function hasLabel(labels: Json, key: string, expected: string): FieldError[] {
  const path = `spec.template.metadata.labels[${key}]`;
  if (!(key in labels)) return [fieldErrors.required(path, `must be '${expected}'`)];
  return labels[key] === expected ? [] : [invalidGo(path, goStringMap(labels), `must be '${expected}'`)];
}

/** validateGeneratedSelector: with a generated selector, the labels and selector are the generated ones. */
function validateGeneratedSelector(obj: ApiObject, requirePrefixedLabels: boolean): FieldError[] {
  const spec = specOf(obj);
  if (spec.manualSelector === true || !set(spec.selector)) return [];
  const errs: FieldError[] = [];
  const uid = obj.metadata?.uid ?? '';
  const name = obj.metadata?.name ?? '';
  if (!uid) errs.push(fieldErrors.required('metadata.uid'));
  const labels = templateLabels(spec);
  errs.push(...hasLabel(labels, LEGACY_CONTROLLER_UID_LABEL, uid), ...hasLabel(labels, LEGACY_JOB_NAME_LABEL, name));
  const expected: Record<string, string> = {};
  if (requirePrefixedLabels) {
    errs.push(...hasLabel(labels, CONTROLLER_UID_LABEL, uid), ...hasLabel(labels, JOB_NAME_LABEL, name));
    expected[CONTROLLER_UID_LABEL] = uid;
    expected[JOB_NAME_LABEL] = name;
  }
  expected[LEGACY_CONTROLLER_UID_LABEL] = uid;
  expected[LEGACY_JOB_NAME_LABEL] = name;
  const { selector } = labelSelectorFromObject(spec.selector, 'spec.selector');
  if (selector && !matchesLabels(selector, expected)) errs.push(invalidGo('spec.selector', goLabelSelector(spec.selector), '`selector` not auto-generated'));
  return errs;
}

/** ValidateJobSpec: the shared spec rules, and a selector that is given and matches the template. */
function validateJobSpec(spec: Json, volumes: VolumeRules): FieldError[] {
  const errs = validateJobSpecFields(spec, 'spec', volumes);
  if (!set(spec.selector)) {
    errs.push(fieldErrors.required('spec.selector'));
    return errs;
  }
  const parsed = labelSelectorFromObject(spec.selector, 'spec.selector');
  errs.push(...parsed.errors);
  if (parsed.selector && !matchesLabels(parsed.selector, templateLabels(spec) as Record<string, string>)) {
    const given = record(record(spec, 'template') ?? {}, 'metadata')?.labels;
    errs.push(invalidGo('spec.template.metadata.labels', goStringMap(given), '`selector` does not match template `labels`'));
  }
  return errs;
}

/** ValidateJob. `requirePrefixedLabels`: the batch.kubernetes.io labels are checked too (always on create). */
export function validateJob(obj: ApiObject, volumes: VolumeRules, requirePrefixedLabels = true): FieldError[] {
  const spec = specOf(obj);
  const errs = [...validateGeneratedSelector(obj, requirePrefixedLabels), ...validateJobSpec(spec, volumes)];
  const completions = spec.completions;
  if (isIndexed(spec) && typeof completions === 'number' && completions > 0) {
    const name = obj.metadata?.name ?? '';
    const hostname = `${name}-${completions - 1}`;
    if (isDns1123Label(hostname).length) {
      errs.push(fieldErrors.invalid('metadata.name', name, `will not able to create pod with invalid DNS label: ${hostname}`));
    }
  }
  return errs;
}

/**
 * The old template with what a suspended Job that never started may change taken from the new
 * one (validatePodTemplateUpdate with AllowMutableSchedulingDirectives).
 */
function comparableOldTemplate(template: Json, oldTemplate: Json): Json {
  const old = structuredClone(oldTemplate);
  const spec = (old.spec = isObject(old.spec) ? old.spec : {}) as Json;
  const newSpec = record(template, 'spec') ?? {};
  const affinity = record(newSpec, 'affinity');
  const oldAffinity = record(spec, 'affinity');
  if (!affinity && oldAffinity) {
    delete oldAffinity.nodeAffinity;
    if (!Object.keys(oldAffinity).length) delete spec.affinity;
  } else if (affinity && !oldAffinity) {
    spec.affinity = set(affinity.nodeAffinity) ? { nodeAffinity: affinity.nodeAffinity } : {};
  } else if (affinity && oldAffinity) {
    if (set(affinity.nodeAffinity)) oldAffinity.nodeAffinity = affinity.nodeAffinity;
    else delete oldAffinity.nodeAffinity;
  }
  for (const key of ['nodeSelector', 'tolerations', 'schedulingGates']) {
    if (set(newSpec[key])) spec[key] = newSpec[key];
    else delete spec[key];
  }
  const meta = (old.metadata = isObject(old.metadata) ? old.metadata : {}) as Json;
  const newMeta = record(template, 'metadata') ?? {};
  for (const key of ['labels', 'annotations']) {
    if (set(newMeta[key])) meta[key] = newMeta[key];
    else delete meta[key];
  }
  return old;
}

const immutable = (spec: Json, oldSpec: Json, key: string): FieldError[] =>
  (semanticEqual(spec[key], oldSpec[key]) ? [] : [fieldErrors.immutable(`spec.${key}`, spec[key])]);

/** ValidateJobSpecUpdate's own rules (ValidateJobSpec aside). */
function validateJobSpecChange(spec: Json, oldSpec: Json, allowMutableSchedulingDirectives: boolean): FieldError[] {
  const errs: FieldError[] = [];
  // validateCompletions: an Indexed Job may change completions together with parallelism (ElasticIndexedJob, GA).
  if (!semanticEqual(spec.completions, oldSpec.completions)) {
    if (!isIndexed(spec)) errs.push(...immutable(spec, oldSpec, 'completions'));
    else if (set(spec.completions) && spec.completions !== spec.parallelism) {
      errs.push(fieldErrors.invalid('spec.completions', spec.completions, 'can only be modified in tandem with spec.parallelism'));
    }
  }
  if (!semanticEqual(spec.selector, oldSpec.selector)) errs.push(invalidGo('spec.selector', goLabelSelector(spec.selector), 'field is immutable'));
  const template = record(spec, 'template') ?? {};
  const oldTemplate = record(oldSpec, 'template') ?? {};
  const compared = allowMutableSchedulingDirectives ? comparableOldTemplate(template, oldTemplate) : oldTemplate;
  if (!semanticEqual(template, compared)) errs.push(fieldErrors.immutable('spec.template', template));
  for (const key of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy']) {
    errs.push(...immutable(spec, oldSpec, key));
  }
  return errs;
}

/** The strategy's ValidateUpdate: ValidateJob and ValidateJobUpdate (which validates the spec again), as Kubernetes appends them. */
export function validateJobUpdate(obj: ApiObject, old: ApiObject, volumes: VolumeRules): FieldError[] {
  const oldSpec = specOf(old);
  const oldLabels = templateLabels(oldSpec);
  const requirePrefixed = JOB_NAME_LABEL in oldLabels && CONTROLLER_UID_LABEL in oldLabels;
  const allowScheduling = oldSpec.suspend === true && !set(statusOf(old).startTime);
  const spec = specOf(obj);
  return [
    ...validateJob(obj, volumes, requirePrefixed),
    ...validateJobSpec(spec, volumes),
    ...validateJobSpecChange(spec, oldSpec, allowScheduling),
  ];
}

/** A metav1.Time as Go's Time.String() prints it (UTC): 2026-01-02 03:04:05 +0000 UTC. */
function goTime(v: unknown): string {
  const d = new Date(String(v));
  return Number.isNaN(d.getTime()) ? String(v) : `${d.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;
}

const conditionTrue = (status: Json, type: string): boolean =>
  records(status, 'conditions').some((c) => text(c, 'type') === type && text(c, 'status') === 'True');
const count = (status: Json, key: string): number => (typeof status[key] === 'number' ? status[key] as number : 0);

/** batch.UncountedTerminatedPods{...} as Go prints it. */
function goUncounted(u: Json): string {
  const uids = (v: unknown) => (Array.isArray(v) ? `[]types.UID{${v.map((x) => JSON.stringify(String(x))).join(', ')}}` : '[]types.UID(nil)');
  return `batch.UncountedTerminatedPods{Succeeded:${uids(u.succeeded)}, Failed:${uids(u.failed)}}`;
}

const changed = (a: Json, b: Json, key: string) => !semanticEqual(a[key], b[key]);
const invalidNoValue = (field: string, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, message: `Invalid value: ${detail}` });

/** validateJobStatus with the options Kubernetes 1.32 sets (JobManagedBy on): the rules on the new status alone. */
function validateJobStatus(obj: ApiObject, old: ApiObject): FieldError[] {
  const status = statusOf(obj);
  const oldStatus = statusOf(old);
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  for (const key of ['active', 'succeeded', 'failed', 'ready', 'terminating']) {
    errs.push(...validateNonNegative(status[key], `status.${key}`));
  }
  const uncounted = record(status, 'uncountedTerminatedPods');
  if (uncounted) {
    const seen = new Set<string>();
    for (const which of ['succeeded', 'failed']) {
      (Array.isArray(uncounted[which]) ? uncounted[which] as unknown[] : []).forEach((uid, i) => {
        const p = `status.uncountedTerminatedPods.${which}[${i}]`;
        if (uid === '') errs.push(fieldErrors.invalid(p, uid, 'must not be empty'));
        else if (seen.has(String(uid))) errs.push(fieldErrors.duplicate(p, uid));
        else seen.add(String(uid));
      });
    }
  }
  const complete = conditionTrue(status, 'Complete');
  const failed = conditionTrue(status, 'Failed');
  const finished = complete || failed;
  const completeChanged = complete !== conditionTrue(oldStatus, 'Complete');
  const failedChanged = failed !== conditionTrue(oldStatus, 'Failed');
  const finishedChanged = finished !== (conditionTrue(oldStatus, 'Complete') || conditionTrue(oldStatus, 'Failed'));
  const failureTargetChanged = conditionTrue(status, 'FailureTarget') !== conditionTrue(oldStatus, 'FailureTarget');
  const activeChanged = count(status, 'active') !== count(oldStatus, 'active');
  const startChanged = changed(status, oldStatus, 'startTime');
  const completionChanged = changed(status, oldStatus, 'completionTime');
  if ((completeChanged || failedChanged) && complete && failed) errs.push(invalidNoValue('status.conditions', 'cannot set Complete=True and Failed=true conditions'));
  if ((completeChanged || failureTargetChanged) && complete && conditionTrue(status, 'FailureTarget')) {
    errs.push(invalidNoValue('status.conditions', 'cannot set Complete=True and FailureTarget=true conditions'));
  }
  if ((completeChanged || completionChanged) && set(status.completionTime) && !complete) {
    errs.push(invalidGo('status.completionTime', goTime(status.completionTime), 'cannot set completionTime when there is no Complete=True condition'));
  }
  if ((completeChanged || completionChanged) && !set(status.completionTime) && complete) {
    errs.push(fieldErrors.required('status.completionTime', 'completionTime is required for Complete jobs'));
  }
  if ((startChanged || completionChanged) && set(status.startTime) && set(status.completionTime)
    && Date.parse(String(status.completionTime)) < Date.parse(String(status.startTime))) {
    errs.push(invalidGo('status.completionTime', goTime(status.completionTime), 'completionTime cannot be set before startTime'));
  }
  if ((finishedChanged || activeChanged) && finished && count(status, 'active') > 0) {
    errs.push(fieldErrors.invalid('status.active', count(status, 'active'), 'active>0 is invalid for finished job'));
  }
  if ((finishedChanged || startChanged) && finished && !set(status.startTime)) {
    errs.push(fieldErrors.required('status.startTime', 'startTime is required for finished job'));
  }
  const uncountedCount = uncounted ? [uncounted.succeeded, uncounted.failed].reduce<number>((n, v) => n + (Array.isArray(v) ? v.length : 0), 0) : 0;
  if ((finishedChanged || changed(status, oldStatus, 'uncountedTerminatedPods')) && finished && uncounted && uncountedCount > 0) {
    errs.push(invalidGo('status.uncountedTerminatedPods', goUncounted(uncounted), 'uncountedTerminatedPods needs to be empty for finished job'));
  }
  const completedIndexes = typeof status.completedIndexes === 'string' ? status.completedIndexes : '';
  if (changed(status, oldStatus, 'completedIndexes')) {
    if (typeof spec.completions === 'number') {
      const parsed = validateIndexesFormat(completedIndexes, spec.completions);
      if (parsed.error) errs.push(fieldErrors.invalid('status.completedIndexes', completedIndexes, `error parsing completedIndexes: ${parsed.error}`));
    }
    if (completedIndexes && !isIndexed(spec)) {
      errs.push(fieldErrors.invalid('status.completedIndexes', completedIndexes, 'cannot set non-empty completedIndexes when non-indexed completion mode'));
    }
  }
  if (changed(status, oldStatus, 'failedIndexes') && set(status.failedIndexes) && !set(spec.backoffLimitPerIndex)) {
    errs.push(fieldErrors.invalid('status.failedIndexes', status.failedIndexes, 'cannot set non-null failedIndexes when backoffLimitPerIndex is null'));
  }
  const terminating = typeof status.terminating === 'number' ? status.terminating : 0;
  if ((finishedChanged || changed(status, oldStatus, 'terminating')) && finished && terminating > 0) {
    errs.push(fieldErrors.invalid('status.terminating', terminating, 'terminating>0 is invalid for finished job'));
  }
  if ((changed(status, oldStatus, 'ready') || activeChanged) && typeof status.ready === 'number' && status.ready > count(status, 'active')) {
    errs.push(fieldErrors.invalid('status.ready', status.ready, 'cannot set more ready pods than active'));
  }
  return errs;
}

/**
 * ValidateJobUpdateStatus with Kubernetes 1.32's options (JobManagedBy on), but for the
 * SuccessCriteriaMet and FailureTarget transition rules and the failed/completed indexes
 * overlap: validateJobStatus, then a terminal condition (Complete, Failed, FailureTarget) is
 * never turned off, the failed and succeeded counters never decrease (succeeded may in an
 * Indexed Job with completions == parallelism), completionTime never changes once set, and
 * startTime is not removed or changed while the Job is not suspended.
 */
export function validateJobStatusUpdate(obj: ApiObject, old: ApiObject): FieldError[] {
  const status = statusOf(obj);
  const oldStatus = statusOf(old);
  const spec = specOf(obj);
  const errs = validateJobStatus(obj, old);
  for (const type of ['Failed', 'Complete', 'FailureTarget']) {
    if (conditionTrue(oldStatus, type) && !conditionTrue(status, type)) {
      errs.push(invalidNoValue('status.conditions', `cannot disable the terminal ${type}=True condition`));
    }
  }
  if (count(status, 'failed') < count(oldStatus, 'failed')) {
    errs.push(fieldErrors.invalid('status.failed', count(status, 'failed'), 'cannot decrease the failed counter'));
  }
  const scalable = isIndexed(spec) && set(spec.completions) && spec.completions === spec.parallelism;
  if (!scalable && count(status, 'succeeded') < count(oldStatus, 'succeeded')) {
    errs.push(fieldErrors.invalid('status.succeeded', count(status, 'succeeded'), 'cannot decrease the succeeded counter'));
  }
  if (set(status.completionTime) && set(oldStatus.completionTime) && status.completionTime !== oldStatus.completionTime) {
    errs.push(invalidGo('status.completionTime', goTime(status.completionTime), 'completionTime cannot be mutated'));
  }
  if (set(oldStatus.startTime) && oldStatus.startTime !== status.startTime && spec.suspend !== true) {
    errs.push(fieldErrors.required('status.startTime', 'startTime cannot be removed for unsuspended job'));
  }
  return errs;
}
