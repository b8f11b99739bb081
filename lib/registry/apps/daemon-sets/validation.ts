/**
 * Kubernetes 1.32's ValidateDaemonSetSpec, the DaemonSet strategy's update rules (the selector
 * is immutable at apps/v1) and validateDaemonSetStatus / ValidateDaemonSetStatusUpdate
 * (pkg/apis/apps/validation), over the defaulted JSON. Unlike a StatefulSet's, the template is
 * validated whole, as a Pod's spec is (ValidatePodTemplateSpec).
 */
import { FieldError, child, fieldErrors } from '../../../meta/field-errors';
import { labelSelectorFromObject, matchesLabels } from '../../../meta/label-selector';
import { goIntOrString, isNotMoreThan100Percent, validatePositiveIntOrPercent } from '../../../meta/int-or-percent';
import { Json, isObject, record } from '../../core/json-fields';
import { semanticEqual } from '../../core/semantic-equal';
import { validatePodTemplateSpec, validateTemplateNoActiveDeadline, validateTemplateRestartPolicy } from '../../core/pod-template';
import { VolumeRules } from '../../core/volumes/volume-list';
import { templateLabels, templateLabelsNotSelected } from '../stateful-workload-rules';
import { goLabelSelector } from '../../../meta/go-print';
import { validateNonNegative as nonNegative } from '../../../meta/validation';

/** getIntOrPercentValue: a valid percentage's number, an integer, or 0 (a string that is neither). */
function intOrPercentValue(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    if (/^[0-9]+%$/.test(v)) return Number(v.slice(0, -1));
    return /^-?[0-9]+$/.test(v) ? Number(v) : 0;
  }
  return 0;
}

/** ValidateRollingUpdateDaemonSet (an unset value is the internal zero IntOrString). */
function validateRollingUpdate(rolling: Json, path: string): FieldError[] {
  const maxUnavailable = rolling.maxUnavailable ?? 0;
  const maxSurge = rolling.maxSurge ?? 0;
  const unavailablePath = child(path, 'maxUnavailable');
  const surgePath = child(path, 'maxSurge');
  const errs = [
    ...validatePositiveIntOrPercent(maxUnavailable, unavailablePath),
    ...validatePositiveIntOrPercent(maxSurge, surgePath),
    ...isNotMoreThan100Percent(maxUnavailable, unavailablePath),
    ...isNotMoreThan100Percent(maxSurge, surgePath),
  ];
  const hasUnavailable = intOrPercentValue(maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(maxSurge) !== 0;
  if (hasUnavailable && hasSurge) {
    errs.push({ type: 'FieldValueInvalid', field: surgePath, message: `Invalid value: ${goIntOrString(maxSurge)}: may not be set when maxUnavailable is non-zero` });
  } else if (!hasUnavailable && !hasSurge) {
    errs.push(fieldErrors.required(unavailablePath, 'cannot be 0 when maxSurge is 0'));
  }
  return errs;
}

/** ValidateDaemonSetUpdateStrategy. */
function validateUpdateStrategy(strategy: Json, path: string): FieldError[] {
  switch (strategy.type) {
    case 'OnDelete':
      return [];
    case 'RollingUpdate': {
      const rolling = record(strategy, 'rollingUpdate');
      return rolling ? validateRollingUpdate(rolling, child(path, 'rollingUpdate')) : [fieldErrors.required(child(path, 'rollingUpdate'))];
    }
    default: {
      const rolling = isObject(strategy.rollingUpdate) ? '0xc000000000' : 'nil';
      const value = `apps.DaemonSetUpdateStrategy{Type:${JSON.stringify(String(strategy.type ?? ''))}, RollingUpdate:(*apps.RollingUpdateDaemonSet)(${rolling})}`;
      return [{ type: 'FieldValueNotSupported', field: path, message: `Unsupported value: ${value}: supported values: "RollingUpdate", "OnDelete"` }];
    }
  }
}

/** ValidateDaemonSetSpec at `path`. */
export function validateDaemonSetSpec(spec: Json, volumes: VolumeRules, opts: { allowInvalidLabelValueInSelector?: boolean } = {}, path = 'spec'): FieldError[] {
  const errs: FieldError[] = [];
  const selPath = child(path, 'selector');
  const templatePath = child(path, 'template');
  const sel = spec.selector;
  if (isObject(sel)) {
    const parsed = labelSelectorFromObject(sel, selPath, { allowInvalidExpressionValues: opts.allowInvalidLabelValueInSelector });
    errs.push(...parsed.errors);
    const converted = parsed.errors.length ? labelSelectorFromObject(sel, selPath).selector : parsed.selector;
    const labels = templateLabels(spec.template);
    if (converted && !matchesLabels(converted, labels ?? {})) errs.push(templateLabelsNotSelected(templatePath, labels));
    const size = (isObject(sel.matchLabels) ? Object.keys(sel.matchLabels).length : 0) + (Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0);
    if (size === 0) errs.push({ type: 'FieldValueInvalid', field: selPath, message: `Invalid value: ${goLabelSelector(sel)}: empty selector is invalid for daemonset` });
  } else {
    // LabelSelectorAsSelector(nil) selects nothing: no template labels can match it.
    errs.push(templateLabelsNotSelected(templatePath, templateLabels(spec.template)));
  }
  errs.push(...validatePodTemplateSpec(spec.template, templatePath, volumes));
  errs.push(...validateTemplateRestartPolicy(spec.template, templatePath, ['Always']));
  errs.push(...validateTemplateNoActiveDeadline(spec.template, templatePath, 'DaemonSet'));
  errs.push(...nonNegative(spec.minReadySeconds, child(path, 'minReadySeconds')));
  errs.push(...validateUpdateStrategy(record(spec, 'updateStrategy') ?? {}, child(path, 'updateStrategy')));
  errs.push(...nonNegative(spec.revisionHistoryLimit, child(path, 'revisionHistoryLimit')));
  return errs;
}

/** Whether a stored selector has label values that no longer validate (they stay accepted on update). */
export function hasInvalidLabelValueInSelector(spec: Json): boolean {
  return isObject(spec.selector) && labelSelectorFromObject(spec.selector).errors.length > 0;
}

/** The update: a valid spec, and at apps/v1 the selector unchanged. */
export function validateDaemonSetUpdate(spec: Json, oldSpec: Json, volumes: VolumeRules): FieldError[] {
  const errs = validateDaemonSetSpec(spec, volumes, { allowInvalidLabelValueInSelector: hasInvalidLabelValueInSelector(oldSpec) });
  if (!semanticEqual(spec.selector ?? null, oldSpec.selector ?? null)) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.selector', message: `Invalid value: ${goLabelSelector(spec.selector)}: field is immutable` });
  }
  return errs;
}

const STATUS_COUNTS = ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'observedGeneration',
  'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable', 'collisionCount'];

/** validateDaemonSetStatus, and collisionCount not decremented (ValidateDaemonSetStatusUpdate). */
export function validateDaemonSetStatusUpdate(status: Json, oldStatus: Json, path = 'status'): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of STATUS_COUNTS) errs.push(...nonNegative(status[f], child(path, f)));
  const before = oldStatus.collisionCount;
  const now = status.collisionCount;
  if (typeof before === 'number' && (typeof now !== 'number' || now < before)) {
    errs.push(fieldErrors.invalid(child(path, 'collisionCount'), typeof now === 'number' ? now : 0, 'cannot be decremented'));
  }
  return errs;
}
