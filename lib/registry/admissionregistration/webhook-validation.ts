/**
 * Validation of the webhook configurations as Kubernetes 1.32 does it
 * (pkg/apis/admissionregistration/validation): each webhook's name, rules, policies, timeout,
 * selectors, client config and AdmissionReview versions. Some checks depend on the request's
 * version (v1 wants unique names and no side effects) and, on update, are relaxed for a
 * configuration that already broke them (ratcheting). CEL matchConditions are validated and
 * compiled (match-conditions.ts); on update they are not checked again when no webhook's
 * conditions changed, so a stored configuration stays writable (Kubernetes' ignoreMatchConditions).
 */
import { FieldError, child, fieldErrors, index } from '../../meta/field-errors';
import { isDns1123Subdomain } from '../../meta/validation';
import { labelSelectorFromObject } from '../../meta/label-selector';
import { ApiObject } from '../../scheme/types';
import { validateRuleWithOperations, goSlice } from './rule-validation';
import { validateClientConfig } from './client-config-validation';
import { WebhookVersion } from './webhook-defaults';
import { validateMatchConditions } from './match-conditions';

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const ALL_SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const NO_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
/** The AdmissionReview versions this server sends. */
const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035Label = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** What the checks demand; relaxed on update for what the stored object already did. */
export interface WebhookValidationOptions {
  requireNoSideEffects: boolean;
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
  allowInvalidLabelValueInSelector: boolean;
  /** Update with every webhook's matchConditions as stored: not validated again. */
  ignoreMatchConditions?: boolean;
}

type Hook = Record<string, unknown>;

const hooksOf = (obj: ApiObject | undefined): Hook[] =>
  (Array.isArray(obj?.webhooks) ? obj.webhooks : []).map((h) => (typeof h === 'object' && h !== null ? h as Hook : {}));
const given = (v: unknown) => v !== undefined && v !== null;

/** IsFullyQualifiedName: a DNS subdomain of at least three segments. */
function validateHookName(path: string, name: unknown): FieldError[] {
  if (typeof name !== 'string' || !name) return [fieldErrors.required(path)];
  const errs = isDns1123Subdomain(name);
  if (errs.length) return [fieldErrors.invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [fieldErrors.invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function isDns1035Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push('must be no more than 63 characters');
  if (!dns1035Label.test(v)) {
    errs.push(`a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${DNS1035_LABEL_FMT}')`);
  }
  return errs;
}

function validateReviewVersions(path: string, value: unknown, requireRecognized: boolean): FieldError[] {
  const versions = Array.isArray(value) ? value.map(String) : [];
  if (!versions.length) return [fieldErrors.required(path, `must specify one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldErrors.invalid(index(path, i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const m of isDns1035Label(v)) errs.push(fieldErrors.invalid(index(path, i), v, m));
    if (ACCEPTED_REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) {
    errs.push({ type: 'FieldValueInvalid', field: path, message: `Invalid value: ${goSlice('[]string', versions)}: must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}` });
  }
  return errs;
}

function validateSelector(path: string, value: unknown, opts: WebhookValidationOptions): FieldError[] {
  if (!given(value)) return [];
  return labelSelectorFromObject(value, path, { allowInvalidExpressionValues: opts.allowInvalidLabelValueInSelector }).errors;
}

function validateHook(hook: Hook, path: string, mutating: boolean, opts: WebhookValidationOptions): FieldError[] {
  const errs = validateHookName(child(path, 'name'), hook.name);
  if (Array.isArray(hook.rules)) hook.rules.forEach((r, i) => errs.push(...validateRuleWithOperations(r, index(child(path, 'rules'), i))));
  if (given(hook.failurePolicy) && !FAILURE_POLICIES.includes(String(hook.failurePolicy))) {
    errs.push(fieldErrors.notSupported(child(path, 'failurePolicy'), hook.failurePolicy, FAILURE_POLICIES));
  }
  if (given(hook.matchPolicy) && !MATCH_POLICIES.includes(String(hook.matchPolicy))) {
    errs.push(fieldErrors.notSupported(child(path, 'matchPolicy'), hook.matchPolicy, MATCH_POLICIES));
  }
  const sideEffects = opts.requireNoSideEffects ? NO_SIDE_EFFECTS : ALL_SIDE_EFFECTS;
  if (!given(hook.sideEffects)) errs.push(fieldErrors.required(child(path, 'sideEffects'), `must specify one of ${sideEffects.join(', ')}`));
  else if (!sideEffects.includes(String(hook.sideEffects))) errs.push(fieldErrors.notSupported(child(path, 'sideEffects'), hook.sideEffects, sideEffects));
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1)) {
    errs.push(fieldErrors.invalid(child(path, 'timeoutSeconds'), timeout, 'the timeout value must be between 1 and 30 seconds'));
  }
  errs.push(...validateSelector(child(path, 'namespaceSelector'), hook.namespaceSelector, opts));
  errs.push(...validateSelector(child(path, 'objectSelector'), hook.objectSelector, opts));
  if (mutating && given(hook.reinvocationPolicy) && !REINVOCATION_POLICIES.includes(String(hook.reinvocationPolicy))) {
    errs.push(fieldErrors.notSupported(child(path, 'reinvocationPolicy'), hook.reinvocationPolicy, REINVOCATION_POLICIES));
  }
  errs.push(...validateClientConfig(path, hook.clientConfig));
  if (!opts.ignoreMatchConditions) errs.push(...validateMatchConditions(hook.matchConditions, child(path, 'matchConditions')));
  return errs;
}

/** The errors of a configuration's webhooks (metadata is the store's). */
export function validateWebhookConfiguration(obj: ApiObject, mutating: boolean, opts: WebhookValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  hooksOf(obj).forEach((hook, i) => {
    const path = index('webhooks', i);
    errs.push(...validateHook(hook, path, mutating, opts));
    errs.push(...validateReviewVersions(child(path, 'admissionReviewVersions'), hook.admissionReviewVersions, opts.requireRecognizedAdmissionReviewVersion));
    if (opts.requireUniqueWebhookNames && typeof hook.name === 'string' && hook.name) {
      if (names.has(hook.name)) errs.push(fieldErrors.duplicate(child(path, 'name'), hook.name));
      else names.add(hook.name);
    }
  });
  return errs;
}

/** Create: everything demanded; v1beta1 still accepts side effects and repeated names. */
export function createOptions(version: WebhookVersion): WebhookValidationOptions {
  const v1 = version === 'v1';
  return { requireNoSideEffects: v1, requireRecognizedAdmissionReviewVersion: true, requireUniqueWebhookNames: v1, allowInvalidLabelValueInSelector: false };
}

function hasInvalidSelectorValues(hooks: Hook[]): boolean {
  return hooks.some((h) => [h.namespaceSelector, h.objectSelector].some((s) => given(s) && labelSelectorFromObject(s, '').errors.length > 0));
}

/** Kubernetes' ignore*WebhookMatchConditions: as many webhooks, each with the same conditions as stored. */
function sameMatchConditions(hooks: Hook[], oldHooks: Hook[]): boolean {
  if (hooks.length !== oldHooks.length) return false;
  const key = (h: Hook) => JSON.stringify((Array.isArray(h.matchConditions) ? h.matchConditions : [])
    .map((c) => (typeof c === 'object' && c !== null ? [(c as Hook).name, (c as Hook).expression] : c)));
  return hooks.every((h, i) => key(h) === key(oldHooks[i]));
}

/** Update: a check the stored configuration already failed is not demanded of its successor. */
export function updateOptions(version: WebhookVersion, old: ApiObject, obj?: ApiObject): WebhookValidationOptions {
  const hooks = hooksOf(old);
  const v1 = version === 'v1';
  const names = hooks.map((h) => h.name);
  return {
    requireNoSideEffects: v1 && hooks.every((h) => NO_SIDE_EFFECTS.includes(String(h.sideEffects))),
    requireRecognizedAdmissionReviewVersion: hooks.every((h) => {
      const versions = Array.isArray(h.admissionReviewVersions) ? h.admissionReviewVersions : [];
      return !versions.length || versions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(String(v)));
    }),
    requireUniqueWebhookNames: v1 && new Set(names).size === names.length,
    allowInvalidLabelValueInSelector: hasInvalidSelectorValues(hooks),
    ignoreMatchConditions: obj !== undefined && sameMatchConditions(hooksOf(obj), hooks),
  };
}
