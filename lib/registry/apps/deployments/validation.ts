/**
 * Kubernetes' ValidateDeploymentSpec, ValidateDeploymentStrategy, ValidateRollingUpdateDeployment
 * and ValidateDeploymentStatus(Update) (pkg/apis/apps/validation) over a defaulted Deployment's
 * JSON, with the apps/v1 strategy's immutable selector on update. The selector and template
 * rules are the ones ReplicaSet shares (../replica-selector.ts).
 */
import { FieldError, child, fieldErrors } from '../../../meta/field-errors';
import { goIntOrString, isNotMoreThan100Percent, validatePositiveIntOrPercent } from '../../../meta/int-or-percent';
import { Json, isObject } from '../../core/json-fields';
import { VolumeRules } from '../../core/volumes/volume-list';
import { validateReplicaSelectorAndTemplate } from '../replica-selector';
import { validateNonNegative as nonNegative } from '../../../meta/validation';

const PERCENT_RE = /^[0-9]+%$/;

/** getIntOrPercentValue: the percentage's number, or the integer (a bad string counts as 0). */
function intOrPercentValue(v: unknown): number {
  if (typeof v === 'string') return PERCENT_RE.test(v) ? Number(v.slice(0, -1)) : 0;
  return typeof v === 'number' ? v : 0;
}

/** Go's %#v of the internal (value) IntOrString an absent pointer converts to: the zero int. */
const goValue = (v: unknown) => goIntOrString(v === undefined || v === null ? 0 : v);

/** ValidateRollingUpdateDeployment (absent values are the internal type's zero int). */
function validateRollingUpdate(ru: Json, path: string): FieldError[] {
  const unavailablePath = child(path, 'maxUnavailable');
  const value = (v: unknown) => (v === undefined || v === null ? 0 : v);
  const errs = [
    ...validatePositiveIntOrPercent(value(ru.maxUnavailable), unavailablePath),
    ...validatePositiveIntOrPercent(value(ru.maxSurge), child(path, 'maxSurge')),
  ];
  if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
    errs.push({ type: 'FieldValueInvalid', field: unavailablePath, message: `Invalid value: ${goValue(ru.maxUnavailable)}: may not be 0 when \`maxSurge\` is 0` });
  }
  errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, unavailablePath));
  return errs;
}

/** Go's %#v of the internal DeploymentStrategy, the bad value of an unsupported type. */
function goStrategy(strategy: Json): string {
  const ru = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : undefined;
  const rolling = ru ? '(*apps.RollingUpdateDeployment)(0xc000000000)' : '(*apps.RollingUpdateDeployment)(nil)';
  return `apps.DeploymentStrategy{Type:${JSON.stringify(String(strategy.type ?? ''))}, RollingUpdate:${rolling}}`;
}

/** ValidateDeploymentStrategy. */
export function validateDeploymentStrategy(strategy: Json, path: string): FieldError[] {
  const ru = strategy.rollingUpdate;
  switch (strategy.type) {
    case 'Recreate':
      return isObject(ru) ? [fieldErrors.forbidden(child(path, 'rollingUpdate'), "may not be specified when strategy `type` is 'Recreate'")] : [];
    case 'RollingUpdate':
      return isObject(ru) ? validateRollingUpdate(ru, child(path, 'rollingUpdate'))
        : [fieldErrors.required(child(path, 'rollingUpdate'), 'this should be defaulted and never be nil')];
    default:
      return [{
        type: 'FieldValueNotSupported', field: path,
        message: `Unsupported value: ${goStrategy(strategy)}: supported values: "Recreate", "RollingUpdate"`,
      }];
  }
}

/** ValidateDeploymentSpec over a defaulted spec. */
export function validateDeploymentSpec(spec: Json, volumes: VolumeRules, path = 'spec'): FieldError[] {
  const errs = [
    ...nonNegative(spec.replicas, child(path, 'replicas')),
    ...validateReplicaSelectorAndTemplate(spec, path, volumes),
    ...validateDeploymentStrategy(isObject(spec.strategy) ? spec.strategy : {}, child(path, 'strategy')),
    ...nonNegative(spec.minReadySeconds, child(path, 'minReadySeconds')),
    ...nonNegative(spec.revisionHistoryLimit, child(path, 'revisionHistoryLimit')),
  ];
  const deadline = spec.progressDeadlineSeconds;
  if (typeof deadline === 'number') {
    const deadlinePath = child(path, 'progressDeadlineSeconds');
    errs.push(...nonNegative(deadline, deadlinePath));
    const minReady = typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0;
    if (deadline <= minReady) errs.push(fieldErrors.invalid(deadlinePath, deadline, 'must be greater than minReadySeconds'));
  }
  return errs;
}

/** ValidateDeploymentStatus, and ValidateDeploymentStatusUpdate's collisionCount that may not go down. */
export function validateDeploymentStatus(status: Json, old: Json | undefined, path = 'status'): FieldError[] {
  const n = (k: string) => (typeof status[k] === 'number' ? (status[k] as number) : 0);
  const errs: FieldError[] = [];
  for (const f of ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'collisionCount']) {
    errs.push(...nonNegative(status[f], child(path, f)));
  }
  const msg = 'cannot be greater than status.replicas';
  if (n('updatedReplicas') > n('replicas')) errs.push(fieldErrors.invalid(child(path, 'updatedReplicas'), n('updatedReplicas'), msg));
  if (n('readyReplicas') > n('replicas')) errs.push(fieldErrors.invalid(child(path, 'readyReplicas'), n('readyReplicas'), msg));
  if (n('availableReplicas') > n('replicas')) errs.push(fieldErrors.invalid(child(path, 'availableReplicas'), n('availableReplicas'), msg));
  if (n('availableReplicas') > n('readyReplicas')) {
    errs.push(fieldErrors.invalid(child(path, 'availableReplicas'), n('availableReplicas'), 'cannot be greater than readyReplicas'));
  }
  const before = old?.collisionCount;
  if (typeof before === 'number') {
    const now = status.collisionCount;
    // IsDecremented: a set count may not be unset or lowered.
    if (typeof now !== 'number' || now < before) {
      errs.push(fieldErrors.invalid(child(path, 'collisionCount'), typeof now === 'number' ? now : 0, 'cannot be decremented'));
    }
  }
  return errs;
}
