/**
 * Kubernetes' ValidateResourceQuota, ValidateResourceQuotaUpdate and
 * ValidateResourceQuotaStatusUpdate (pkg/apis/core/validation) over the quota's JSON: resource
 * names a quota may name, non-negative quantities (whole numbers for object counts and extended
 * resources), scopes valid for the resources and not conflicting, scope selector operators per
 * scope, and scopes immutable on update. Bad values print as Go's %#v of the internal types.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { goQuote, goStrings, invalidGo } from '../../../meta/go-print';
import { isQualifiedName } from '../../../meta/validation';
import { formatQuantity, roundUp, tryParseQuantity } from '../../../meta/quantity';
import { ApiObject } from '../../../scheme/types';
import { validateNonnegativeQuantity } from '../resource-quantities';
import {
  STANDARD_QUOTA_SCOPES, isIntegerResourceName, isScopeValidForResource, isStandardQuotaResourceName, isStandardResourceName,
} from '../quota-resource-names';

export interface ScopedRequirement { scopeName?: string; operator?: string; values?: string[] | null }
export interface ResourceQuotaSpec {
  hard?: Record<string, unknown> | null;
  scopes?: string[] | null;
  scopeSelector?: { matchExpressions?: ScopedRequirement[] | null } | null;
}
export interface ResourceQuotaStatus { hard?: Record<string, unknown> | null; used?: Record<string, unknown> | null }

export const specOf = (obj: ApiObject): ResourceQuotaSpec => (obj.spec ?? {}) as ResourceQuotaSpec;
export const statusOf = (obj: ApiObject): ResourceQuotaStatus => (obj.status ?? {}) as ResourceQuotaStatus;

/** `[]core.ResourceQuotaScope{"A", "B"}`, Go's %#v of the scopes. */
export const goScopes = (scopes: unknown): string =>
  (Array.isArray(scopes) ? `[]core.ResourceQuotaScope{${scopes.map(goQuote).join(', ')}}` : '[]core.ResourceQuotaScope(nil)');

/** Go's %#v of a *core.ScopeSelector (dereferenced, as field errors print pointers). */
function goScopeSelector(sel: ResourceQuotaSpec['scopeSelector']): string {
  if (!sel) return 'null';
  const exprs = Array.isArray(sel.matchExpressions)
    ? `[]core.ScopedResourceSelectorRequirement{${sel.matchExpressions.map((r) =>
      `core.ScopedResourceSelectorRequirement{ScopeName:${goQuote(r.scopeName ?? '')}, Operator:${goQuote(r.operator ?? '')}, Values:${goStrings(r.values ?? undefined)}}`).join(', ')}}`
    : '[]core.ScopedResourceSelectorRequirement(nil)';
  return `core.ScopeSelector{MatchExpressions:${exprs}}`;
}

/** validateResourceName then ValidateResourceQuotaResourceName. */
export function validateQuotaResourceName(name: string, path: string): FieldError[] {
  const msgs = isQualifiedName(name);
  if (msgs.length) return msgs.map((m) => fieldErrors.invalid(path, name, m));
  if (!name.includes('/')) {
    if (!isStandardResourceName(name)) return [fieldErrors.invalid(path, name, 'must be a standard resource type or fully qualified')];
    if (!isStandardQuotaResourceName(name)) return [fieldErrors.invalid(path, name, 'must be a standard resource for quota')];
  }
  return [];
}

/** ValidateResourceQuantityValue: not negative; MilliValue() % 1000 == 0 for integer resources. */
function validateQuantityValue(name: string, raw: unknown, path: string): FieldError[] {
  const errs = validateNonnegativeQuantity(raw, path);
  const q = tryParseQuantity(raw);
  if (q && isIntegerResourceName(name)) {
    const m = roundUp(q, -3);
    const whole = m.scale >= 0 || m.value % (10n ** BigInt(-m.scale)) === 0n;
    if (!whole) errs.push(fieldErrors.invalid(path, formatQuantity(q), 'must be an integer'));
  }
  return errs;
}

/** Every name and quantity of a ResourceList, keys in sorted order. */
function validateResourceList(list: Record<string, unknown> | null | undefined, path: string): FieldError[] {
  return Object.keys(list ?? {}).sort().flatMap((k) =>
    [...validateQuotaResourceName(k, index(path, k)), ...validateQuantityValue(k, (list ?? {})[k], index(path, k))]);
}

const CONFLICTING = [['BestEffort', 'NotBestEffort'], ['Terminating', 'NotTerminating']];
const EXISTS_ONLY = ['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity'];

/** validateResourceQuotaScopes. */
function validateScopes(spec: ResourceQuotaSpec, path: string): FieldError[] {
  const scopes = spec.scopes ?? [];
  if (!scopes.length) return [];
  const at = child(path, 'scopes');
  const printed = goScopes(spec.scopes);
  const hard = Object.keys(spec.hard ?? {}).sort();
  const errs: FieldError[] = [];
  for (const scope of scopes) {
    if (!STANDARD_QUOTA_SCOPES.has(scope)) errs.push(invalidGo(at, printed, 'unsupported scope'));
    for (const k of hard) {
      if (isStandardQuotaResourceName(k) && !isScopeValidForResource(scope, k)) errs.push(invalidGo(at, printed, 'unsupported scope applied to resource'));
    }
  }
  for (const pair of CONFLICTING) if (pair.every((s) => scopes.includes(s))) errs.push(invalidGo(at, printed, 'conflicting scopes'));
  return errs;
}

/** validateScopeSelector / validateScopedResourceSelectorRequirement. */
function validateScopeSelector(spec: ResourceQuotaSpec, path: string): FieldError[] {
  const sel = spec.scopeSelector;
  if (!sel) return [];
  const at = child(child(path, 'scopeSelector'), 'matchExpressions');
  const hard = Object.keys(spec.hard ?? {}).sort();
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  for (const req of sel.matchExpressions ?? []) {
    const scope = req.scopeName ?? '';
    const op = req.operator ?? '';
    const values = req.values ?? [];
    if (!STANDARD_QUOTA_SCOPES.has(scope)) errs.push(invalidGo(child(at, 'scopeName'), goQuote(scope), 'unsupported scope'));
    for (const k of hard) {
      if (isStandardQuotaResourceName(k) && !isScopeValidForResource(scope, k)) errs.push(invalidGo(at, goScopeSelector(sel), 'unsupported scope applied to resource'));
    }
    if (EXISTS_ONLY.includes(scope) && op !== 'Exists') {
      errs.push(invalidGo(child(at, 'operator'), goQuote(op),
        "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"));
    }
    if (op === 'In' || op === 'NotIn') {
      if (!values.length) errs.push(fieldErrors.required(child(at, 'values'), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length) errs.push(invalidGo(child(at, 'values'), goStrings(values), "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
    } else {
      errs.push(invalidGo(child(at, 'operator'), goQuote(op), 'not a valid selector operator'));
    }
    seen.add(scope);
  }
  for (const pair of CONFLICTING) if (pair.every((s) => seen.has(s))) errs.push(invalidGo(at, goScopes(spec.scopes), 'conflicting scopes'));
  return errs;
}

/** ValidateResourceQuotaSpec. */
export function validateResourceQuotaSpec(spec: ResourceQuotaSpec, path = 'spec'): FieldError[] {
  return [...validateResourceList(spec.hard, child(path, 'hard')), ...validateScopes(spec, path), ...validateScopeSelector(spec, path)];
}

/** ValidateResourceQuotaStatus (hard and used). */
export function validateResourceQuotaStatus(status: ResourceQuotaStatus, path = 'status'): FieldError[] {
  return [...validateResourceList(status.hard, child(path, 'hard')), ...validateResourceList(status.used, child(path, 'used'))];
}

/** ValidateResourceQuotaUpdate: the spec as on create, and the set of scopes unchanged. */
export function validateResourceQuotaUpdate(obj: ApiObject, old: ApiObject): FieldError[] {
  const errs = validateResourceQuotaSpec(specOf(obj));
  const now = new Set(specOf(obj).scopes ?? []);
  const before = new Set(specOf(old).scopes ?? []);
  const same = now.size === before.size && [...now].every((s) => before.has(s));
  if (!same) errs.push(invalidGo('spec.scopes', goScopes(specOf(obj).scopes), 'field is immutable'));
  return errs;
}
