/**
 * Schemas of the authorization group's review kinds (authorization/v1): SubjectAccessReview,
 * LocalSubjectAccessReview, SelfSubjectAccessReview and SelfSubjectRulesReview. Fields and
 * descriptions follow Kubernetes' types; lists are atomic as there.
 */
import { Schema, atomicList, bool, object, str } from '../schema';
import { kindSchema } from './meta';

const requirement = (what: string): Schema => object({
  key: str(`The ${what} key the requirement applies to.`),
  operator: str('In, NotIn, Exists or DoesNotExist.'),
  values: atomicList(str()),
}, { required: ['key', 'operator'] });

const selectorAttributes = (what: string): Schema => object({
  rawSelector: str(`The serialization of a ${what} selector, as it would appear in a query parameter; or requirements, not both.`),
  requirements: atomicList(requirement(what), `The parsed ${what} selector requirements; or rawSelector, not both.`),
});

export const resourceAttributes: Schema = object({
  namespace: str('The namespace of the action; "" means all namespaces for namespaced resources (and is the only value for cluster-scoped ones).'),
  verb: str('A resource API verb (get, list, watch, create, update, delete, proxy...); "*" means all.'),
  group: str('The API group of the resource; "*" means all.'),
  version: str('The API version of the resource; "*" means all.'),
  resource: str('One of the existing resource types; "*" means all.'),
  subresource: str('One of the existing subresources; "" means none.'),
  name: str('The name of the resource asked about; "" means all.'),
  fieldSelector: selectorAttributes('field'),
  labelSelector: selectorAttributes('label'),
});

export const nonResourceAttributes: Schema = object({
  path: str('The URL path of the request.'),
  verb: str('The standard HTTP verb, lower case.'),
});

const subjectAccessReviewSpec: Schema = object({
  resourceAttributes,
  nonResourceAttributes,
  user: str('The user to test; with groups, at least one must be given.'),
  groups: atomicList(str(), 'The groups to test.'),
  extra: { type: 'object', additionalProperties: atomicList(str()), description: 'The extra information of the user (user.Info.GetExtra()).' },
  uid: str('The uid of the user.'),
}, { description: 'Exactly one of resourceAttributes and nonResourceAttributes must be set.' });

const accessReviewStatus: Schema = object({
  allowed: bool('Whether the action would be allowed.'),
  denied: bool('Whether the action would be denied (a mode said no); when false with allowed false, no mode had an opinion.'),
  reason: str('Why the action was allowed or denied.'),
  evaluationError: str('An error met while checking authorization; the answer may be right anyway.'),
}, { required: ['allowed'] });

export const subjectAccessReviewSchema: Schema = kindSchema({
  spec: subjectAccessReviewSpec,
  status: accessReviewStatus,
}, 'SubjectAccessReview checks whether or not a user or group can perform an action.');

export const localSubjectAccessReviewSchema: Schema = kindSchema({
  spec: subjectAccessReviewSpec,
  status: accessReviewStatus,
}, 'LocalSubjectAccessReview checks whether or not a user or group can perform an action in a given namespace; spec.resourceAttributes.namespace must be the namespace of the request.');

export const selfSubjectAccessReviewSchema: Schema = kindSchema({
  spec: object({ resourceAttributes, nonResourceAttributes }, { description: 'Exactly one of resourceAttributes and nonResourceAttributes must be set.' }),
  status: accessReviewStatus,
}, 'SelfSubjectAccessReview checks whether the current user can perform an action.');

export const selfSubjectRulesReviewSchema: Schema = kindSchema({
  spec: object({ namespace: str('The namespace to list the actions of.') }),
  status: object({
    resourceRules: atomicList(object({
      verbs: atomicList(str(), 'The verbs allowed on the resources; "*" means all.'),
      apiGroups: atomicList(str(), 'The API groups of the resources; "*" means all.'),
      resources: atomicList(str(), 'The resources; "*" means all, "*/foo" a subresource of every resource.'),
      resourceNames: atomicList(str(), 'Names the rule is limited to; empty means all.'),
    }, { required: ['verbs'] }), 'What the user may do with resources.'),
    nonResourceRules: atomicList(object({
      verbs: atomicList(str(), 'The verbs allowed on the URLs; "*" means all.'),
      nonResourceURLs: atomicList(str(), 'The URL paths; a "*" may end one.'),
    }, { required: ['verbs'] }), 'What the user may do with non-resource URLs.'),
    incomplete: bool('Whether the list may miss permissions: a mode in the chain (Webhook, Node...) cannot list what it allows.'),
    evaluationError: str('An error met while listing the rules; the list may be incomplete.'),
  }, { required: ['resourceRules', 'nonResourceRules', 'incomplete'] }),
}, 'SelfSubjectRulesReview enumerates the actions the current user can perform within a namespace.');
