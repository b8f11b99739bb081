/**
 * Schema of admissionregistration/v1 ValidatingAdmissionPolicy: Kubernetes' field names, list types
 * (validations, auditAnnotations, variables atomic; matchConditions a map list by name; conditions a
 * map list by type) and descriptions from its OpenAPI.
 */
import { Schema, atomicList, int64, mapList, object, str, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { matchConditions } from '../webhook-schema';
import { matchResources } from '../policy-match-resources';

/** metav1.Condition, as the status controller writes it. */
const metaCondition: Schema = object({
  type: str('type of condition in CamelCase or in foo.example.com/CamelCase.'),
  status: str('status of the condition, one of True, False, Unknown.'),
  observedGeneration: int64('observedGeneration represents the .metadata.generation that the condition was set based upon.'),
  lastTransitionTime: time('lastTransitionTime is the last time the condition transitioned from one status to another.'),
  reason: str('reason contains a programmatic identifier indicating the reason for the condition\'s last transition.'),
  message: str('message is a human readable message indicating details about the transition. This may be an empty string.'),
}, { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'], description: 'Condition contains details for one aspect of the current state of this API Resource.' });

const paramKind: Schema = object({
  apiVersion: str('APIVersion is the API group version the resources belong to. In format of "group/version". Required.'),
  kind: str('Kind is the API kind the resources belong to. Required.'),
}, { description: 'ParamKind is a tuple of Group Kind and Version.', 'x-kubernetes-map-type': 'atomic' });

const validation: Schema = object({
  expression: str('Expression represents the expression which will be evaluated by CEL. CEL expressions have access to the contents of the API request/response, organized into CEL variables (object, oldObject, request, params, namespaceObject, authorizer, variables). Required.'),
  message: str('Message represents the message displayed when validation fails. If the Expression contains line breaks, Message is required.'),
  reason: str('Reason represents a machine-readable description of why this validation failed: Unauthorized, Forbidden, Invalid, RequestEntityTooLarge. Defaults to Invalid.'),
  messageExpression: str('messageExpression declares a CEL expression that evaluates to the validation failure message that is returned when this rule fails. It must evaluate to a string.'),
}, { required: ['expression'], description: 'Validation specifies the CEL expression which is used to apply the validation.' });

const auditAnnotation: Schema = object({
  key: str('key specifies the audit annotation key, combined with the policy name as "{ValidatingAdmissionPolicy name}/{key}". Required.'),
  valueExpression: str('valueExpression represents the expression which is evaluated by CEL to produce an audit annotation value: a string or null. Required.'),
}, { required: ['key', 'valueExpression'], description: 'AuditAnnotation describes how to produce an audit annotation for an API request.' });

const variable: Schema = object({
  name: str('Name is the name of the variable. The name must be a valid CEL identifier and unique among all variables. The variable can be accessed in other expressions through `variables`.'),
  expression: str('Expression is the expression that will be evaluated as the value of the variable.'),
}, { required: ['name', 'expression'], description: 'Variable is the definition of a variable that is used for composition.', 'x-kubernetes-map-type': 'atomic' });

const expressionWarning: Schema = object({
  fieldRef: str('The path to the field that refers the expression. For example, the reference to the expression of the first item of validations is "spec.validations[0].expression"'),
  warning: str('The content of type checking information in a human-readable form.'),
}, { required: ['fieldRef', 'warning'], description: 'ExpressionWarning is a warning information that targets a specific expression.' });

const spec: Schema = object({
  paramKind,
  matchConstraints: matchResources,
  validations: atomicList(validation, 'Validations contain CEL expressions which is used to apply the validation.'),
  failurePolicy: str('failurePolicy defines how to handle failures for the admission policy: Ignore or Fail. Defaults to Fail.'),
  auditAnnotations: atomicList(auditAnnotation, 'auditAnnotations contains CEL expressions which are used to produce audit annotations for the audit event of the API request.'),
  matchConditions,
  variables: atomicList(variable, 'Variables contain definitions of variables that can be used in composition of other expressions.'),
}, { description: 'ValidatingAdmissionPolicySpec is the specification of the desired behavior of the AdmissionPolicy.' });

const status: Schema = object({
  observedGeneration: int64('The generation observed by the controller.'),
  typeChecking: object({
    expressionWarnings: atomicList(expressionWarning, 'The type checking warnings for each expression.'),
  }, { description: 'TypeChecking contains results of type checking the expressions in the ValidatingAdmissionPolicy' }),
  conditions: mapList(metaCondition, ['type'], 'The conditions represent the latest available observations of a policy\'s current state.'),
}, { description: 'ValidatingAdmissionPolicyStatus represents the status of an admission validation policy.' });

export const validatingAdmissionPolicySchema: Schema = kindSchema({ spec, status },
  'ValidatingAdmissionPolicy describes the definition of an admission validation policy that accepts or rejects an object without changing it.');
