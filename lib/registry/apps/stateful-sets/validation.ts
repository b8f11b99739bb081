/**
 * Kubernetes 1.32's ValidateStatefulSetSpec, ValidateStatefulSetUpdate and
 * ValidateStatefulSetStatus(Update) (pkg/apis/apps/validation), over the defaulted JSON.
 *
 * As in Kubernetes, the template is checked for its labels, annotations, selection by the
 * selector, restart policy Always and no activeDeadlineSeconds, but its PodSpec is not validated
 * (ValidatePodTemplateSpecForStatefulSet leaves it to the pods: kubernetes#81147), nor are the
 * claim templates (1.32 only warns about them); serviceName is free text until 1.33.
 */
import { FieldError, child, fieldErrors } from '../../../meta/field-errors';
import { validateAnnotations, validateLabels } from '../../../meta/validation';
import { goIntOrString, isNotMoreThan100Percent, validatePositiveIntOrPercent } from '../../../meta/int-or-percent';
import { Json, isObject, record } from '../../core/json-fields';
import { semanticEqual } from '../../core/semantic-equal';
import { validateTemplateNoActiveDeadline, validateTemplateRestartPolicy } from '../../core/pod-template';
import { templateLabels, templateLabelsNotSelected, validateRequiredWorkloadSelector } from '../stateful-workload-rules';
import { goLabelSelector } from '../../../meta/go-print';
import { validateNonNegative as nonNegative } from '../../../meta/validation';

export const SPEC_UPDATE_FORBIDDEN = 'updates to statefulset spec for fields other than \'replicas\', \'ordinals\', \'template\', \'updateStrategy\', \'persistentVolumeClaimRetentionPolicy\' and \'minReadySeconds\' are forbidden';

const RETENTION_POLICIES = ['Retain', 'Delete'];
const POINTER = '0xc000000000';

/** Go's %#v of the internal RollingUpdateStatefulSetStrategy value. */
function goRollingUpdate(r: Json): string {
  const max = r.maxUnavailable === undefined || r.maxUnavailable === null ? 'nil' : POINTER;
  return `apps.RollingUpdateStatefulSetStrategy{Partition:${Number(r.partition ?? 0)}, MaxUnavailable:(*intstr.IntOrString)(${max})}`;
}

/** Go's %#v of the internal StatefulSetUpdateStrategy value. */
function goUpdateStrategy(s: Json): string {
  const rolling = isObject(s.rollingUpdate) ? POINTER : 'nil';
  return `apps.StatefulSetUpdateStrategy{Type:${JSON.stringify(String(s.type ?? ''))}, RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(${rolling})}`;
}

function validateUpdateStrategy(spec: Json, path: string): FieldError[] {
  const strategyPath = child(path, 'updateStrategy');
  const strategy = record(spec, 'updateStrategy') ?? {};
  const rolling = record(strategy, 'rollingUpdate');
  switch (strategy.type ?? '') {
    case '':
      return [fieldErrors.required(strategyPath)];
    case 'OnDelete':
      return rolling ? [{ type: 'FieldValueInvalid', field: child(strategyPath, 'rollingUpdate'), message: `Invalid value: ${goRollingUpdate(rolling)}: only allowed for updateStrategy 'RollingUpdate'` }] : [];
    case 'RollingUpdate': {
      if (!rolling) return [];
      const rollingPath = child(strategyPath, 'rollingUpdate');
      const errs = nonNegative(rolling.partition, child(rollingPath, 'partition'));
      const max = rolling.maxUnavailable;
      if (max !== undefined && max !== null) {
        const maxPath = child(rollingPath, 'maxUnavailable');
        errs.push(...validatePositiveIntOrPercent(max, maxPath));
        const value = typeof max === 'string' ? (/^[0-9]+%$/.test(max) ? Number(max.slice(0, -1)) : 0) : Number(max);
        if (value === 0) errs.push({ type: 'FieldValueInvalid', field: maxPath, message: `Invalid value: ${goIntOrString(max)}: cannot be 0` });
        errs.push(...isNotMoreThan100Percent(max, maxPath));
      }
      return errs;
    }
    default:
      return [{ type: 'FieldValueInvalid', field: strategyPath, message: `Invalid value: ${goUpdateStrategy(strategy)}: must be 'RollingUpdate' or 'OnDelete'` }];
  }
}

/** ValidateStatefulSetSpec at `path`. */
export function validateStatefulSetSpec(spec: Json, path = 'spec'): FieldError[] {
  const errs: FieldError[] = [];
  const policy = spec.podManagementPolicy ?? '';
  if (policy === '') errs.push(fieldErrors.required(child(path, 'podManagementPolicy')));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') {
    errs.push(fieldErrors.invalid(child(path, 'podManagementPolicy'), policy, 'must be \'OrderedReady\' or \'Parallel\''));
  }
  errs.push(...validateUpdateStrategy(spec, path));

  const retention = record(spec, 'persistentVolumeClaimRetentionPolicy');
  if (retention) {
    const retentionPath = child(path, 'persistentVolumeClaimRetentionPolicy');
    for (const f of ['whenDeleted', 'whenScaled']) {
      const v = String(retention[f] ?? '');
      if (!RETENTION_POLICIES.includes(v)) errs.push(fieldErrors.notSupported(child(retentionPath, f), v, RETENTION_POLICIES));
    }
  }

  errs.push(...nonNegative(spec.replicas, child(path, 'replicas')));
  errs.push(...nonNegative(spec.minReadySeconds, child(path, 'minReadySeconds')));
  const ordinals = record(spec, 'ordinals');
  if (ordinals) errs.push(...nonNegative(ordinals.start, child(path, 'ordinals.start')));

  const selector = validateRequiredWorkloadSelector(spec, path, 'statefulset');
  errs.push(...selector.errors);
  const templatePath = child(path, 'template');
  const template = spec.template;
  if (!selector.selects) {
    errs.push({ type: 'FieldValueInvalid', field: child(path, 'selector'), message: `Invalid value: ${goLabelSelector(spec.selector)}` });
  } else {
    // ValidatePodTemplateSpecForStatefulSet: an empty selector (everything) needs no check.
    const labels = templateLabels(template);
    if (!selector.selects(labels)) errs.push(templateLabelsNotSelected(templatePath, labels));
    const meta = isObject(template) ? record(template, 'metadata') ?? {} : {};
    errs.push(...validateLabels(meta.labels, child(templatePath, 'labels')));
    errs.push(...validateAnnotations(meta.annotations, child(templatePath, 'annotations')));
  }
  errs.push(...validateTemplateRestartPolicy(template, templatePath, ['Always']));
  errs.push(...validateTemplateNoActiveDeadline(template, templatePath, 'StatefulSet'));
  return errs;
}

const MUTABLE = ['replicas', 'template', 'updateStrategy', 'minReadySeconds', 'ordinals', 'persistentVolumeClaimRetentionPolicy'];

/** ValidateStatefulSetUpdate: the new spec is valid, and only the mutable fields changed. */
export function validateStatefulSetUpdate(spec: Json, oldSpec: Json): FieldError[] {
  const errs = validateStatefulSetSpec(spec);
  const rest = (s: Json) => Object.fromEntries(Object.entries(s).filter(([k]) => !MUTABLE.includes(k)));
  if (!semanticEqual(rest(spec), rest(oldSpec))) errs.push(fieldErrors.forbidden('spec', SPEC_UPDATE_FORBIDDEN));
  return errs;
}

/** ValidateStatefulSetStatus at `path`. */
export function validateStatefulSetStatus(status: Json, path = 'status'): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount']) {
    errs.push(...nonNegative(status[f], child(path, f)));
  }
  const n = (f: string): number => (typeof status[f] === 'number' ? (status[f] as number) : 0);
  const msg = 'cannot be greater than status.replicas';
  for (const f of ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas']) {
    if (n(f) > n('replicas')) errs.push(fieldErrors.invalid(child(path, f), n(f), msg));
  }
  if (n('availableReplicas') > n('readyReplicas')) {
    errs.push(fieldErrors.invalid(child(path, 'availableReplicas'), n('availableReplicas'), 'cannot be greater than status.readyReplicas'));
  }
  return errs;
}

/** ValidateStatefulSetStatusUpdate's own rule: collisionCount may not go down. */
export function validateCollisionCountUpdate(status: Json, oldStatus: Json, path = 'status'): FieldError[] {
  const now = status.collisionCount;
  const before = oldStatus.collisionCount;
  if (typeof before !== 'number') return [];
  const value = typeof now === 'number' ? now : 0;
  return typeof now !== 'number' || now < before ? [fieldErrors.invalid(child(path, 'collisionCount'), value, 'cannot be decremented')] : [];
}
