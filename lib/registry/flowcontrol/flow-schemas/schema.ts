/**
 * Schema of flowcontrol.apiserver.k8s.io/v1 FlowSchema: which requests (subjects and resource or
 * non-resource rules) go to which PriorityLevelConfiguration, at what matching precedence and
 * split into flows how; and the status the config consumer writes (the `Dangling` condition).
 * Go type names as Kubernetes' OpenAPI has them.
 */
import { fieldOfType, goType } from '../../../scheme/type-names';
import { Schema, atomicList, bool, int32, mapList, object, setList, str, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

const T = 'io.k8s.api.flowcontrol.v1';

const priorityLevelConfigurationReference = goType(`${T}.PriorityLevelConfigurationReference`, object({
  name: str('`name` is the name of the priority level configuration being referenced Required.'),
}, { required: ['name'], description: 'PriorityLevelConfigurationReference contains information that points to the "request-priority" being used.' }));

const flowDistinguisherMethod = goType(`${T}.FlowDistinguisherMethod`, object({
  type: str('`type` is the type of flow distinguisher method The supported types are "ByUser" and "ByNamespace". Required.'),
}, { required: ['type'], description: 'FlowDistinguisherMethod specifies the method of a flow distinguisher.' }));

const userSubject = goType(`${T}.UserSubject`, object({
  name: str('`name` is the username that matches, or "*" to match all usernames. Required.'),
}, { required: ['name'], description: 'UserSubject holds detailed information for user-kind subject.' }));

const groupSubject = goType(`${T}.GroupSubject`, object({
  name: str('name is the user group that matches, or "*" to match all user groups. See https://github.com/kubernetes/apiserver/blob/master/pkg/authentication/user/user.go for some well-known group names. Required.'),
}, { required: ['name'], description: 'GroupSubject holds detailed information for group-kind subject.' }));

const serviceAccountSubject = goType(`${T}.ServiceAccountSubject`, object({
  namespace: str('`namespace` is the namespace of matching ServiceAccount objects. Required.'),
  name: str('`name` is the name of matching ServiceAccount objects, or "*" to match regardless of name. Required.'),
}, { required: ['namespace', 'name'], description: 'ServiceAccountSubject holds detailed information for service-account-kind subject.' }));

const subject = goType(`${T}.Subject`, object({
  kind: str('`kind` indicates which one of the other fields is non-empty. Required'),
  user: fieldOfType(userSubject, { description: '`user` matches based on username.' }),
  group: fieldOfType(groupSubject, { description: '`group` matches based on user group name.' }),
  serviceAccount: fieldOfType(serviceAccountSubject, { description: '`serviceAccount` matches ServiceAccounts.' }),
}, {
  required: ['kind'],
  description: 'Subject matches the originator of a request, as identified by the request authentication system. There are three ways of matching an originator; by user, group, or service account.'
}));

const resourcePolicyRule = goType(`${T}.ResourcePolicyRule`, object({
  verbs: setList(str(), '`verbs` is a list of matching verbs and may not be empty. "*" matches all verbs and, if present, must be the only entry. Required.'),
  apiGroups: setList(str(), '`apiGroups` is a list of matching API groups and may not be empty. "*" matches all API groups and, if present, must be the only entry. Required.'),
  resources: setList(str(), '`resources` is a list of matching resources (i.e., lowercase and plural) with, if desired, subresource.  For example, [ "services", "nodes/status" ].  This list may not be empty. "*" matches all resources and, if present, must be the only entry. Required.'),
  clusterScope: bool('`clusterScope` indicates whether to match requests that do not specify a namespace (which happens either because the resource is not namespaced or the request targets all namespaces). If this field is omitted or false then the `namespaces` field must contain a non-empty list.'),
  namespaces: setList(str(), '`namespaces` is a list of target namespaces that restricts matches.  A request that specifies a target namespace matches only if either (a) this list contains that target namespace or (b) this list contains "*".  Note that "*" matches any specified namespace but does not match a request that _does not specify_ a namespace (see the `clusterScope` field for that). This list may be empty, but only if `clusterScope` is true.'),
}, { required: ['verbs', 'apiGroups', 'resources'], description: 'ResourcePolicyRule is a predicate that matches some resource requests, testing the request\'s verb and the target resource. A ResourcePolicyRule matches a resource request if and only if: (a) at least one member of verbs matches the request, (b) at least one member of apiGroups matches the request, (c) at least one member of resources matches the request, and (d) either (d1) the request does not specify a namespace (i.e., `Namespace==""`) and clusterScope is true or (d2) the request specifies a namespace and least one member of namespaces matches the request\'s namespace.' }));

const nonResourcePolicyRule = goType(`${T}.NonResourcePolicyRule`, object({
  verbs: setList(str(), '`verbs` is a list of matching verbs and may not be empty. "*" matches all verbs. If it is present, it must be the only entry. Required.'),
  nonResourceURLs: setList(str(), '`nonResourceURLs` is a set of url prefixes that a user should have access to and may not be empty. For example:\n  - "/healthz" is legal\n  - "/hea*" is illegal\n  - "/hea" is legal but matches nothing\n  - "/hea/*" also matches nothing\n  - "/healthz/*" matches all per-component health checks.\n"*" matches all non-resource urls. if it is present, it must be the only entry. Required.'),
}, { required: ['verbs', 'nonResourceURLs'], description: 'NonResourcePolicyRule is a predicate that matches non-resource requests according to their verb and the target non-resource URL. A NonResourcePolicyRule matches a request if and only if both (a) at least one member of verbs matches the request and (b) at least one member of nonResourceURLs matches the request.' }));

const policyRulesWithSubjects = goType(`${T}.PolicyRulesWithSubjects`, object({
  subjects: atomicList(subject, 'subjects is the list of normal user, serviceaccount, or group that this rule cares about. There must be at least one member in this slice. A slice that includes both the system:authenticated and system:unauthenticated user groups matches every request. Required.'),
  resourceRules: atomicList(resourcePolicyRule, '`resourceRules` is a slice of ResourcePolicyRules that identify matching requests according to their verb and the target resource. At least one of `resourceRules` and `nonResourceRules` has to be non-empty.'),
  nonResourceRules: atomicList(nonResourcePolicyRule, '`nonResourceRules` is a list of NonResourcePolicyRules that identify matching requests according to their verb and the target non-resource URL.'),
}, { required: ['subjects'], description: 'PolicyRulesWithSubjects prescribes a test that applies to a request to an apiserver. The test considers the subject making the request, the verb being requested, and the resource to be acted upon. This PolicyRulesWithSubjects matches a request if and only if both (a) at least one member of subjects matches the request and (b) at least one member of resourceRules or nonResourceRules matches the request.' }));

export const flowSchemaSpec = goType(`${T}.FlowSchemaSpec`, object({
  priorityLevelConfiguration: fieldOfType(priorityLevelConfigurationReference, { description: '`priorityLevelConfiguration` should reference a PriorityLevelConfiguration in the cluster. If the reference cannot be resolved, the FlowSchema will be ignored and marked as invalid in its status. Required.' }),
  matchingPrecedence: int32('`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.'),
  distinguisherMethod: fieldOfType(flowDistinguisherMethod, { description: '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.' }),
  rules: atomicList(policyRulesWithSubjects, '`rules` describes which requests will match this flow schema. This FlowSchema matches a request if and only if at least one member of rules matches the request. if it is an empty slice, there will be no requests matching the FlowSchema.'),
}, { required: ['priorityLevelConfiguration'], description: 'FlowSchemaSpec describes how the FlowSchema\'s specification looks like.' }));

const flowSchemaCondition = goType(`${T}.FlowSchemaCondition`, object({
  type: str('`type` is the type of the condition. Required.'),
  status: str('`status` is the status of the condition. Can be True, False, Unknown. Required.'),
  lastTransitionTime: time('`lastTransitionTime` is the last time the condition transitioned from one status to another.'),
  reason: str('`reason` is a unique, one-word, CamelCase reason for the condition\'s last transition.'),
  message: str('`message` is a human-readable message indicating details about last transition.'),
}, { description: 'FlowSchemaCondition describes conditions for a FlowSchema.' }));

export const flowSchemaStatus = goType(`${T}.FlowSchemaStatus`, object({
  conditions: {
    ...mapList(flowSchemaCondition, ['type'], '`conditions` is a list of the current states of FlowSchema.'),
    'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'type',
  },
}, { description: 'FlowSchemaStatus represents the current state of a FlowSchema.' }));

export const flowSchemaSchema: Schema = kindSchema({
  spec: fieldOfType(flowSchemaSpec, { description: '`spec` is the specification of the desired behavior of a FlowSchema. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
  status: fieldOfType(flowSchemaStatus, { description: '`status` is the current status of a FlowSchema. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status' }),
}, 'FlowSchema defines the schema of a group of flows. Note that a flow is made up of a set of inbound API requests with similar attributes and is identified by a pair of strings: the name of the FlowSchema and a "flow distinguisher".');
