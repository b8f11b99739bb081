/**
 * Schema of admissionregistration/v1 ValidatingAdmissionPolicyBinding: the policy it binds, its
 * paramRef, the narrowing matchResources and validationActions (a set), as Kubernetes' OpenAPI has them.
 */
import { Schema, object, setList, str } from '../../../scheme/schema';
import { kindSchema, labelSelector } from '../../../scheme/meta-schema';
import { fieldOfType } from '../../../scheme/type-names';
import { matchResources } from '../policy-match-resources';

const paramRef: Schema = object({
  name: str('name is the name of the resource being referenced. One of `name` or `selector` must be set, but `name` and `selector` are mutually exclusive properties.'),
  namespace: str('namespace is the namespace of the referenced resource. Allows limiting the search for params to a specific namespace.'),
  selector: fieldOfType(labelSelector, { description: 'selector can be used to match multiple param objects based on their labels. Supply selector: {} to match all resources of the ParamKind.' }),
  parameterNotFoundAction: str('parameterNotFoundAction controls the behavior of the binding when the resource exists, and name or selector is valid, but there are no parameters matched by the binding: Allow or Deny. Required'),
}, { description: 'ParamRef describes how to locate the params to be used as input to expressions of rules applied by a policy binding.', 'x-kubernetes-map-type': 'atomic' });

const spec: Schema = object({
  policyName: str('PolicyName references a ValidatingAdmissionPolicy name which the ValidatingAdmissionPolicyBinding binds to. Required.'),
  paramRef,
  matchResources,
  validationActions: setList(str(), 'validationActions declares how Validations of the referenced ValidatingAdmissionPolicy are enforced: Deny, Warn, Audit. Required.'),
}, { description: 'ValidatingAdmissionPolicyBindingSpec is the specification of the ValidatingAdmissionPolicyBinding.' });

export const validatingAdmissionPolicyBindingSchema: Schema = kindSchema({ spec },
  'ValidatingAdmissionPolicyBinding binds the ValidatingAdmissionPolicy with paramerized resources.');
