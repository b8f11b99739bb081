/**
 * The pod template: a core/v1 PodTemplateSpec ({ metadata, spec }) wherever a kind holds one:
 * PodTemplate's `template`, and next the workloads' `spec.template` (ReplicationController,
 * Deployment, ReplicaSet, StatefulSet, DaemonSet, Job; CronJob's `spec.jobTemplate.spec.template`).
 * It is built on the PodSpec machinery of ./pod-spec/ (the schema, defaults and validation a Pod
 * uses), so a template is checked exactly as a Pod's spec is, at the template's field path.
 *
 * What a kind that holds a template uses:
 * - `podTemplateSpecSchema`: the schema of the template (ObjectMeta and the shared PodSpec), to
 *   put at the template's place in the kind's schema.
 * - `podVolumeRules(naming, gates)`: the volume rules of the server's flavor and feature gates,
 *   built once per def (the Pod kind uses the same).
 * - `defaultPodTemplateSpec(template, volumes)`: Kubernetes' defaults of a template, in place
 *   (SetDefaults_PodSpec and everything below it, as SetObjectDefaults_PodTemplate and the
 *   workloads' SetObjectDefaults do). A template does not get SetDefaults_Pod's rules (requests
 *   from limits, enableServiceLinks, host ports on the host network): those are the Pod's.
 *   An absent template, metadata or spec is created, as Go's value structs are always there,
 *   and the template's zero creationTimestamp is written as null, as Go writes it.
 * - `validatePodTemplateSpec(template, path, volumes)`: ValidatePodTemplateSpec: labels at
 *   `<path>.labels` and annotations at `<path>.annotations` (Kubernetes' paths: not under
 *   `metadata`), the spec as a PodSpec at `<path>.spec` (not a Pod's own: an unset host port is
 *   allowed on the host network, ephemeral claims are not named), and no ephemeral containers.
 *   `path` is the template's path: `template` for a PodTemplate, `spec.template` for a workload.
 * - `validateTemplateRestartPolicy`, `validateTemplateNoActiveDeadline` and
 *   `validateTemplateLabelsSelected`: the rules workload kinds add about their template
 *   (ValidatePodTemplateSpecForReplicaSet and its siblings). PodTemplate itself has none of them:
 *   its template may have any restart policy.
 *
 * What stays with each kind: which of those extra rules apply, the generation bump on a template
 * change, and where the template sits in the kind.
 */
import { FieldError, child, fieldErrors } from '../../meta/field-errors';
import { validateAnnotations, validateLabels } from '../../meta/validation';
import { objectMeta } from '../../scheme/meta-schema';
import { Schema, object } from '../../scheme/schema';
import { FeatureGates } from '../../scheme/feature-gates';
import { fieldOfType, goType } from '../../scheme/type-names';
import { Naming } from '../../naming';
import { Json, isObject, record, records, text } from './json-fields';
import { VolumeRules, volumeRules } from './volumes/volume-list';
import { storageNames } from './storage-annotations';
import { podSpec } from './pod-spec/spec-schema';
import { defaultPodSpecFields } from './pod-spec/defaults';
import { validatePodSpec } from './pod-spec/spec-validation';

/** core/v1 PodTemplateSpec. */
export const podTemplateSpecSchema: Schema = goType('io.k8s.api.core.v1.PodTemplateSpec', object({
  metadata: objectMeta,
  spec: fieldOfType(podSpec, { description: 'Specification of the desired behavior of the pod. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
}, { description: 'PodTemplateSpec describes the data a pod should have when created from a template' }));

/** The volume rules of a PodSpec on this server (flavor and feature gates). */
export function podVolumeRules(naming: Naming, gates: FeatureGates = new FeatureGates()): VolumeRules {
  return volumeRules({
    allowReadWriteOncePod: gates.enabled('ReadWriteOncePod'),
    anyVolumeDataSource: gates.enabled('AnyVolumeDataSource'),
    snapshotGroup: storageNames(naming).snapshotGroup,
  });
}

/** The template's spec, created when absent. */
function specOf(template: Json): Json {
  if (!isObject(template.spec)) template.spec = {};
  return template.spec as Json;
}

/** Kubernetes' defaults of a template, in place; returns the template (created when `holder[key]` is absent). */
export function defaultPodTemplateSpec(holder: Json, key: string, volumes: VolumeRules): Json {
  if (!isObject(holder[key])) holder[key] = {};
  const template = holder[key] as Json;
  // Go writes the template's ObjectMeta whole: its zero creationTimestamp is written as null.
  if (!isObject(template.metadata)) template.metadata = {};
  const meta = template.metadata as Json;
  if (meta.creationTimestamp === undefined) meta.creationTimestamp = null;
  defaultPodSpecFields(specOf(template), volumes);
  return template;
}

/** ValidatePodTemplateSpec of `template` (absent: an empty one) at `path`. */
export function validatePodTemplateSpec(template: unknown, path: string, volumes: VolumeRules): FieldError[] {
  const t: Json = isObject(template) ? template : {};
  const meta = record(t, 'metadata') ?? {};
  const spec = record(t, 'spec') ?? {};
  const specPath = child(path, 'spec');
  const errs = [
    ...validateLabels(meta.labels, child(path, 'labels')),
    ...validateAnnotations(meta.annotations, child(path, 'annotations')),
    ...validatePodSpec(spec, { path: specPath, podName: '', isPod: false }, volumes),
  ];
  if (records(spec, 'ephemeralContainers').length) {
    errs.push(fieldErrors.forbidden(child(specPath, 'ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  }
  return errs;
}

/** A workload's rule on its template's restartPolicy: one of `allowed` (e.g. ['Always']). */
export function validateTemplateRestartPolicy(template: unknown, path: string, allowed: string[]): FieldError[] {
  const spec = isObject(template) ? record(template, 'spec') ?? {} : {};
  const policy = text(spec, 'restartPolicy');
  return allowed.includes(policy) ? [] : [fieldErrors.notSupported(child(child(path, 'spec'), 'restartPolicy'), policy, allowed)];
}

/** A workload's rule that its template sets no activeDeadlineSeconds (`kind` names it in the message). */
export function validateTemplateNoActiveDeadline(template: unknown, path: string, kind: string): FieldError[] {
  const spec = isObject(template) ? record(template, 'spec') ?? {} : {};
  const deadline = spec.activeDeadlineSeconds;
  return deadline === undefined || deadline === null ? []
    : [fieldErrors.forbidden(child(child(path, 'spec'), 'activeDeadlineSeconds'), `activeDeadlineSeconds in ${kind} is not Supported`)];
}

/**
 * A workload's rule that its selector selects its template's labels: `matches` tells whether
 * the (already parsed) selector matches the labels given.
 */
export function validateTemplateLabelsSelected(template: unknown, path: string, matches: (labels: Record<string, string>) => boolean): FieldError[] {
  const meta = isObject(template) ? record(template, 'metadata') ?? {} : {};
  const labels = (isObject(meta.labels) ? meta.labels : {}) as Record<string, string>;
  return matches(labels) ? [] : [fieldErrors.invalid(child(child(path, 'metadata'), 'labels'), labels, '`selector` does not match template `labels`')];
}
