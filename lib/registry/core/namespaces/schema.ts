/** Schema of core/v1 Namespace: spec.finalizers, status.phase and conditions (a map list keyed by type). */
import { Schema, atomicList, mapList, object, str, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

const namespaceCondition: Schema = object({
  type: str('Type of namespace controller condition.'),
  status: str('Status of the condition: True, False or Unknown.'),
  lastTransitionTime: time(),
  reason: str(),
  message: str(),
}, { required: ['type', 'status'] });

export const namespaceSchema: Schema = kindSchema({
  spec: object({ finalizers: atomicList(str(), 'Values that must be removed before the namespace is removed from storage.') }),
  status: object({
    phase: str('Active or Terminating.'),
    conditions: mapList(namespaceCondition, ['type'], 'The latest available observations of the namespace state.'),
  }),
}, 'Namespace provides a scope for names.');
