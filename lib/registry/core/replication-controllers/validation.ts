/**
 * Kubernetes' SetDefaults_ReplicationController (core/v1 defaults.go) and
 * ValidateReplicationController / ValidateReplicationControllerStatus (pkg/apis/core/validation)
 * over the controller's JSON: a non-empty map selector that selects the template's labels, a
 * required template whose pods restart Always and have no active deadline, non-negative counts.
 */
import { FieldError, child, fieldErrors } from '../../../meta/field-errors';
import { goStringMap } from '../../../meta/go-print';
import { validateNonNegative as nonNegative } from '../../../meta/validation';
import { ApiObject } from '../../../scheme/types';
import { VolumeRules } from '../volumes/volume-list';
import { Json, isObject, record } from '../json-fields';
import {
  defaultPodTemplateSpec, validatePodTemplateSpec, validateTemplateNoActiveDeadline, validateTemplateRestartPolicy,
} from '../pod-template';

export interface ReplicationControllerStatus {
  replicas?: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: unknown[] | null;
}

export const specOf = (obj: ApiObject): Json => (isObject(obj.spec) ? obj.spec : {});
export const statusOf = (obj: ApiObject): ReplicationControllerStatus => (isObject(obj.status) ? obj.status : {}) as ReplicationControllerStatus;

/** The selector map (string values only). */
export function selectorOf(spec: Json): Record<string, string> {
  const sel = record(spec, 'selector') ?? {};
  return Object.fromEntries(Object.entries(sel).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
}

/**
 * SetDefaults_ReplicationController and the template's defaults: selector and labels from the
 * template's labels when empty, replicas 1. An absent template stays absent (a Go pointer).
 */
export function defaultReplicationController(obj: ApiObject, volumes: VolumeRules): void {
  if (!isObject(obj.spec)) obj.spec = {};
  const spec = obj.spec as Json;
  if (isObject(spec.template)) defaultPodTemplateSpec(spec, 'template', volumes);
  const template = record(spec, 'template');
  const labels = template ? record(record(template, 'metadata') ?? {}, 'labels') : undefined;
  if (labels) {
    if (!isObject(spec.selector) || Object.keys(spec.selector).length === 0) spec.selector = { ...labels };
    const meta = (obj.metadata ??= {});
    if (!isObject(meta.labels) || Object.keys(meta.labels).length === 0) meta.labels = { ...labels } as Record<string, string>;
  }
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
}

/** ValidateReplicationControllerSpec at `spec`. */
export function validateReplicationControllerSpec(spec: Json, volumes: VolumeRules, path = 'spec'): FieldError[] {
  const errs = [...nonNegative(spec.minReadySeconds, child(path, 'minReadySeconds'))];
  const selector = selectorOf(spec);
  const selectorEmpty = Object.keys(selector).length === 0;
  if (selectorEmpty) errs.push(fieldErrors.required(child(path, 'selector')));
  errs.push(...nonNegative(spec.replicas, child(path, 'replicas')));
  const templatePath = child(path, 'template');
  if (!isObject(spec.template)) return [...errs, fieldErrors.required(templatePath)];
  // ValidatePodTemplateSpecForRC.
  const template = spec.template;
  const labels = record(record(template, 'metadata') ?? {}, 'labels');
  if (!selectorEmpty && !Object.entries(selector).every(([k, v]) => labels?.[k] === v)) {
    errs.push({
      type: 'FieldValueInvalid', field: child(child(templatePath, 'metadata'), 'labels'),
      message: `Invalid value: ${goStringMap(labels)}: \`selector\` does not match template \`labels\``,
    });
  }
  errs.push(...validatePodTemplateSpec(template, templatePath, volumes));
  errs.push(...validateTemplateRestartPolicy(template, templatePath, ['Always']));
  errs.push(...validateTemplateNoActiveDeadline(template, templatePath, 'ReplicationController'));
  return errs;
}

/** ValidateReplicationControllerStatus at `status`. */
export function validateReplicationControllerStatus(status: ReplicationControllerStatus, path = 'status'): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'] as const) {
    errs.push(...nonNegative(status[f], child(path, f)));
  }
  const n = (v: number | undefined) => v ?? 0;
  const msg = 'cannot be greater than status.replicas';
  for (const f of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'] as const) {
    if (n(status[f]) > n(status.replicas)) errs.push(fieldErrors.invalid(child(path, f), n(status[f]), msg));
  }
  if (n(status.availableReplicas) > n(status.readyReplicas)) {
    errs.push(fieldErrors.invalid(child(path, 'availableReplicas'), n(status.availableReplicas), 'cannot be greater than readyReplicas'));
  }
  return errs;
}
