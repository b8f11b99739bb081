/**
 * SetDefaults of the webhook configuration kinds, per API version: v1beta1 kept the lenient
 * defaults of its time (Ignore, Exact, 30 s, sideEffects Unknown, AdmissionReview v1beta1); v1
 * fails closed (Fail, Equivalent, 10 s) and leaves sideEffects and admissionReviewVersions to
 * the author (validation then requires them). Both: rules' scope "*", selectors {}, mutating
 * reinvocationPolicy Never, a service's port 443.
 */
import { ApiObject } from '../../scheme/types';

/** The served versions of admissionregistration. */
export type WebhookVersion = 'v1' | 'v1beta1';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const unset = (v: unknown) => v === undefined || v === null;

function defaultWebhook(hook: Json, version: WebhookVersion, mutating: boolean): void {
  const beta = version === 'v1beta1';
  if (unset(hook.failurePolicy)) hook.failurePolicy = beta ? 'Ignore' : 'Fail';
  if (unset(hook.matchPolicy)) hook.matchPolicy = beta ? 'Exact' : 'Equivalent';
  if (unset(hook.namespaceSelector)) hook.namespaceSelector = {};
  if (unset(hook.objectSelector)) hook.objectSelector = {};
  if (beta && unset(hook.sideEffects)) hook.sideEffects = 'Unknown';
  if (unset(hook.timeoutSeconds)) hook.timeoutSeconds = beta ? 30 : 10;
  if (mutating && unset(hook.reinvocationPolicy)) hook.reinvocationPolicy = 'Never';
  if (beta && (!Array.isArray(hook.admissionReviewVersions) || hook.admissionReviewVersions.length === 0)) {
    hook.admissionReviewVersions = ['v1beta1'];
  }
  if (Array.isArray(hook.rules)) {
    for (const rule of hook.rules) if (isObject(rule) && unset(rule.scope)) rule.scope = '*';
  }
  const cc = hook.clientConfig;
  if (isObject(cc) && isObject(cc.service) && unset(cc.service.port)) cc.service.port = 443;
}

/** Fills the defaults of `version` into every webhook of a configuration, in place. */
export function defaultWebhookConfiguration(obj: ApiObject, version: WebhookVersion, mutating: boolean): void {
  if (!Array.isArray(obj.webhooks)) return;
  for (const hook of obj.webhooks) if (isObject(hook)) defaultWebhook(hook, version, mutating);
}
