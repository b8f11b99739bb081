/**
 * Kubernetes' ValidateLeaseSpec (pkg/apis/coordination/validation) and the MicroTime decoding
 * of the two times (lib/meta/micro-time.ts). Pure functions over the Lease's JSON.
 */
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { microTimesProblem } from '../../../meta/micro-time';
import { isQualifiedName } from '../../../meta/validation';
import { ApiObject } from '../../../scheme/types';

/** The one Kubernetes-defined coordinated strategy; others must be `<domain>/<name>`. */
export const LEASE_STRATEGIES = ['OldestEmulationVersion'];

/** The spec as written by clients (every field optional, as Go's pointers). */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
  strategy?: string;
  preferredHolder?: string;
}

/** The decode problem of acquireTime / renewTime, if any. */
export function leaseTimesProblem(obj: ApiObject): string | undefined {
  const spec = obj.spec as Record<string, unknown> | undefined;
  return microTimesProblem([spec?.acquireTime, spec?.renewTime]);
}

/** ValidateCoordinatedLeaseStrategy; the doubled `strategy` in the path is Kubernetes' own. */
export function validateLeaseStrategy(strategy: string, path: string): FieldError[] {
  const field = `${path}.strategy`;
  if (!strategy.includes('/')) {
    return LEASE_STRATEGIES.includes(strategy) ? [] : [fieldErrors.notSupported(field, strategy, LEASE_STRATEGIES)];
  }
  return isQualifiedName(strategy).map((msg) => fieldErrors.invalid(field, strategy, msg));
}

/** ValidateLeaseSpec: a positive duration, non-negative transitions, a known strategy. */
export function validateLeaseSpec(spec: LeaseSpec | undefined, path = 'spec'): FieldError[] {
  const errs: FieldError[] = [];
  if (!spec) return errs;
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds !== null && spec.leaseDurationSeconds <= 0) {
    errs.push(fieldErrors.invalid(`${path}.leaseDurationSeconds`, spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions !== null && spec.leaseTransitions < 0) {
    errs.push(fieldErrors.invalid(`${path}.leaseTransitions`, spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  const hasStrategy = typeof spec.strategy === 'string';
  if (hasStrategy) errs.push(...validateLeaseStrategy(spec.strategy as string, `${path}.strategy`));
  if (spec.preferredHolder && !spec.strategy) {
    errs.push(fieldErrors.forbidden(`${path}.preferredHolder`, 'may only be specified if `strategy` is defined'));
  }
  return errs;
}
