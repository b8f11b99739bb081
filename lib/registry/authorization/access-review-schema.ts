/**
 * What the access reviews (authorization/v1) share: the resource and non-resource attributes
 * asked about, the SubjectAccessReview spec and the answer. Fields and descriptions follow
 * Kubernetes' types; lists are atomic as there.
 */
import { Schema, atomicList, bool, object, str } from '../../scheme/schema';

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

export const subjectAccessReviewSpec: Schema = object({
  resourceAttributes,
  nonResourceAttributes,
  user: str('The user to test; with groups, at least one must be given.'),
  groups: atomicList(str(), 'The groups to test.'),
  extra: { type: 'object', additionalProperties: atomicList(str()), description: 'The extra information of the user (user.Info.GetExtra()).' },
  uid: str('The uid of the user.'),
}, { description: 'Exactly one of resourceAttributes and nonResourceAttributes must be set.' });

export const accessReviewStatus: Schema = object({
  allowed: bool('Whether the action would be allowed.'),
  denied: bool('Whether the action would be denied (a mode said no); when false with allowed false, no mode had an opinion.'),
  reason: str('Why the action was allowed or denied.'),
  evaluationError: str('An error met while checking authorization; the answer may be right anyway.'),
}, { required: ['allowed'] });
