/**
 * What the workload kinds' removed versions (apps/v1beta1, apps/v1beta2, extensions/v1beta1) have
 * that apps/v1 lacks, carried across conversion as Kubernetes carries it
 * (pkg/apis/apps/v1/conversion.go):
 *
 * - Deployment `spec.rollbackTo` (apps/v1beta1, extensions/v1beta1) is stored in the annotation
 *   `deprecated.deployment.rollback.to` (its revision); read back, a non-empty annotation becomes
 *   `spec.rollbackTo` and leaves the annotations.
 * - DaemonSet `spec.templateGeneration` (extensions/v1beta1) is stored in the annotation
 *   `deprecated.daemonset.template.generation` (always written, 0 included); read back, a
 *   numeric annotation becomes the field and leaves the annotations.
 *
 * And the old versions' selector default (SetDefaults_Deployment, _DaemonSet, _ReplicaSet and
 * _StatefulSet of extensions/v1beta1 and apps/v1beta1): a template with labels gives an absent
 * selector its matchLabels, and empty object labels the template's labels.
 */
import { ApiObject } from '../../scheme/types';
import { Json, isObject, record } from '../core/json-fields';
import { TEMPLATE_GENERATION_ANNOTATION } from './daemon-sets/definition';

/** apps/v1's annotation for the internal spec.rollbackTo (appsv1.DeprecatedRollbackTo). */
export const ROLLBACK_TO_ANNOTATION = 'deprecated.deployment.rollback.to';

const specOf = (obj: ApiObject): Json => {
  if (!isObject(obj.spec)) obj.spec = {};
  return obj.spec as Json;
};

function setAnnotation(obj: ApiObject, key: string, value: string): void {
  obj.metadata = { ...(obj.metadata ?? {}), annotations: { ...(obj.metadata?.annotations ?? {}), [key]: value } };
}

/** Removes an annotation; the map goes when it is left empty (Go writes an empty map as absent). */
function takeAnnotation(obj: ApiObject, key: string): string | undefined {
  const annotations = obj.metadata?.annotations;
  if (!annotations || !(key in annotations)) return undefined;
  const value = annotations[key];
  const rest = { ...annotations };
  delete rest[key];
  obj.metadata = { ...obj.metadata };
  if (Object.keys(rest).length) obj.metadata.annotations = rest;
  else delete obj.metadata.annotations;
  return value;
}

/** A Deployment with spec.rollbackTo, as apps/v1 stores it (a copy). */
export function rollbackToAnnotation(obj: ApiObject): ApiObject {
  const out = structuredClone(obj);
  const spec = specOf(out);
  const rollbackTo = spec.rollbackTo;
  delete spec.rollbackTo;
  if (isObject(rollbackTo)) setAnnotation(out, ROLLBACK_TO_ANNOTATION, String(typeof rollbackTo.revision === 'number' ? rollbackTo.revision : 0));
  else takeAnnotation(out, ROLLBACK_TO_ANNOTATION);
  return out;
}

/** A stored apps/v1 Deployment as a version with spec.rollbackTo serves it (a copy). */
export function rollbackToField(obj: ApiObject): ApiObject {
  const out = structuredClone(obj);
  const revision = obj.metadata?.annotations?.[ROLLBACK_TO_ANNOTATION];
  if (revision === undefined || revision === '' || !/^-?[0-9]+$/.test(revision)) return out;
  takeAnnotation(out, ROLLBACK_TO_ANNOTATION);
  const n = Number(revision);
  // RollbackConfig.revision has omitempty.
  specOf(out).rollbackTo = n === 0 ? {} : { revision: n };
  return out;
}

/** A DaemonSet with spec.templateGeneration, as apps/v1 stores it (a copy). */
export function templateGenerationAnnotation(obj: ApiObject): ApiObject {
  const out = structuredClone(obj);
  const spec = specOf(out);
  const generation = typeof spec.templateGeneration === 'number' ? spec.templateGeneration : 0;
  delete spec.templateGeneration;
  setAnnotation(out, TEMPLATE_GENERATION_ANNOTATION, String(generation));
  return out;
}

/** A stored apps/v1 DaemonSet as extensions/v1beta1 serves it (a copy). */
export function templateGenerationField(obj: ApiObject): ApiObject {
  const out = structuredClone(obj);
  const value = obj.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  if (value === undefined || !/^-?[0-9]+$/.test(value)) return out;
  takeAnnotation(out, TEMPLATE_GENERATION_ANNOTATION);
  const n = Number(value);
  // templateGeneration has omitempty.
  if (n !== 0) specOf(out).templateGeneration = n;
  return out;
}

/** The selector and labels the old versions default from the template's labels, in place. */
export function defaultSelectorFromTemplate(obj: ApiObject): void {
  const spec = specOf(obj);
  const template = record(spec, 'template');
  const labels = template && record(template, 'metadata')?.labels;
  if (!isObject(labels)) return;
  if (spec.selector === undefined || spec.selector === null) spec.selector = { matchLabels: { ...labels } };
  if (!obj.metadata?.labels || !Object.keys(obj.metadata.labels).length) {
    obj.metadata = { ...(obj.metadata ?? {}), labels: { ...(labels as Record<string, string>) } };
  }
}
