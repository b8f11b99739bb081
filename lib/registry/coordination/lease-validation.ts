/**
 * Kubernetes' ValidateLeaseSpec (pkg/apis/coordination/validation) and the MicroTime decoding
 * of the two times. Pure functions over the Lease's JSON.
 */
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { isQualifiedName } from '../../meta/validation';
import { ApiObject } from '../../scheme/types';

/** The one Kubernetes-defined coordinated strategy; others must be `<domain>/<name>`. */
export const LEASE_STRATEGIES = ['OldestEmulationVersion'];

/** Go's metav1.RFC3339Micro layout, which MicroTime's JSON must match. */
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';
const MICRO = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{6})(Z|[+-]\d{2}:\d{2})$/;
const SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

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

/** Why a MicroTime value does not decode (Go's time.Parse message), or undefined. */
export function microTimeProblem(value: string): string | undefined {
  const m = MICRO.exec(value);
  if (m && !Number.isNaN(Date.parse(`${m[1]}.${m[2].slice(0, 3)}${m[3]}`))) return undefined;
  const head = SECONDS.exec(value);
  // Go reports the first part of the value that does not match the layout.
  const rest = head ? value.slice(head[0].length) : value;
  const layoutRest = head ? RFC3339_MICRO.slice(19, 26) : RFC3339_MICRO;
  return `parsing time ${JSON.stringify(value)} as ${JSON.stringify(RFC3339_MICRO)}: cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(head ? layoutRest : '2006')}`;
}

/** A MicroTime in Go's output form: UTC, six fraction digits. */
export function canonicalMicroTime(value: string): string {
  const m = MICRO.exec(value);
  if (!m) return value;
  const ms = Date.parse(`${m[1]}${m[3]}`);
  return `${new Date(ms).toISOString().slice(0, 19)}.${m[2]}Z`;
}

/** The decode problem of the first malformed MicroTime among `values` (strings; others skipped), if any. */
export function microTimesProblem(values: unknown[]): string | undefined {
  for (const v of values) {
    const problem = typeof v === 'string' ? microTimeProblem(v) : undefined;
    if (problem) return problem;
  }
  return undefined;
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
