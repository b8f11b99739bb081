/**
 * What the two webhook configuration kinds (admissionregistration v1 and v1beta1, which have the
 * same shape) share: a webhook's fields, its rules and client config. As in Kubernetes' types,
 * `webhooks` and `matchConditions` are map lists keyed by name (strategic merge and apply merge
 * them by name), `rules` and every string list are atomic.
 */
import { fieldOfType } from '../../scheme/type-names';
import { Schema, atomicList, bytes, int32, mapList, object, str } from '../../scheme/schema';
import { labelSelector } from '../../scheme/meta-schema';

/** RuleWithOperations: operations on resources of API groups and versions (Rule inlined). */
export const ruleWithOperations: Schema = object({
  operations: atomicList(str(), "The operations the rule matches: CREATE, UPDATE, DELETE, CONNECT, or '*' for all."),
  apiGroups: atomicList(str(), "The API groups the resources belong to; '*' is every group, '' the core group."),
  apiVersions: atomicList(str(), "The API versions the resources belong to; '*' is every version."),
  resources: atomicList(str(), "The resources the rule applies to: 'pods', 'pods/status', '*', '*/scale', '*/*'."),
  scope: str('Cluster, Namespaced or "*" (the default): which scope of resources the rule matches.'),
}, { description: 'RuleWithOperations is a tuple of Operations and Resources.' });

const serviceReference: Schema = object({
  namespace: str('The namespace of the service.'),
  name: str('The name of the service.'),
  path: str('An optional URL path requests are sent to.'),
  port: int32('The port of the service (default 443); 1-65535.'),
}, { required: ['namespace', 'name'], description: 'ServiceReference holds a reference to a Service.' });

const clientConfig: Schema = object({
  url: str('The location of the webhook as a URL (https://host[:port][/path]); exactly one of url or service.'),
  service: serviceReference,
  caBundle: bytes('A PEM encoded CA bundle used to validate the webhook\'s server certificate; the system trust roots when absent.'),
}, { description: 'WebhookClientConfig contains the information to make a TLS connection with the webhook.' });

const matchCondition: Schema = object({
  name: str('An identifier of this match condition.'),
  expression: str('A CEL expression (not evaluated by this server: configurations with match conditions are refused).'),
}, { required: ['name', 'expression'], description: 'MatchCondition represents a condition which must be fulfilled for a request to be sent to a webhook.' });

/** The fields common to both webhook kinds, in Kubernetes' JSON order. */
export function webhookFields(): Record<string, Schema> {
  return {
    name: str('The name of the webhook, fully qualified (e.g. imagepolicy.example.com).'),
    clientConfig,
    rules: atomicList(ruleWithOperations, 'The operations and resources the webhook cares about; a request matching any rule is sent.'),
    failurePolicy: str('How errors calling the webhook are handled: Ignore or Fail.'),
    matchPolicy: str('Exact or Equivalent: whether a request to an equivalent resource or version (converted) is sent too.'),
    namespaceSelector: fieldOfType(labelSelector, { description: 'Decides by the labels of the object\'s namespace whether to call the webhook.' }),
    objectSelector: fieldOfType(labelSelector, { description: 'Decides by the labels of the object whether to call the webhook.' }),
    sideEffects: str('None or NoneOnDryRun (v1beta1 also Unknown and Some): whether the webhook has side effects.'),
    timeoutSeconds: int32('How long to wait for the webhook, 1 to 30 seconds.'),
    admissionReviewVersions: atomicList(str(), 'The AdmissionReview versions the webhook accepts, in order of preference.'),
  };
}

export const matchConditions = mapList(matchCondition, ['name'], 'CEL conditions a request must meet to be sent to the webhook.');
