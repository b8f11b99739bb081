/**
 * Binding (core/v1): ties a pod to a node, as a scheduler does. Not stored: the body of
 * `POST /api/v1/namespaces/<ns>/bindings` (this create-only resource) and of the `pods/binding`
 * subresource, both answered by lib/api/binding/, which sets the pod's spec.nodeName once.
 */
import { ResourceDef } from '../../../scheme/types';
import { Schema, object } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { fieldOfType, goType } from '../../../scheme/type-names';
import { objectReference } from '../object-reference-schema';

const bindingTarget: Schema = goType('io.k8s.api.core.v1.ObjectReference', object({ ...objectReference.properties }, {
  'x-kubernetes-map-type': 'atomic',
  description: 'ObjectReference contains enough information to let you inspect or modify the referred object.',
}));

export const bindingSchema: Schema = {
  ...kindSchema({
    target: fieldOfType(bindingTarget, { description: 'The target object that you want to bind to the standard object.' }),
  }, 'Binding ties one object to another; for example, a pod is bound to a node by a scheduler.'),
  required: ['target'],
};

/** The `bindings` resource: create only, answered by the binding handler. */
export function bindingResource(): ResourceDef {
  return {
    group: '', version: 'v1', kind: 'Binding', listKind: 'BindingList', resource: 'bindings', singular: 'binding',
    namespaced: true, shortNames: [], categories: [], verbs: ['create'], subresources: [],
    deleteReturnsStatus: false, nameValidation: 'dns-subdomain', schema: bindingSchema, strategy: {}, virtual: true,
  };
}
