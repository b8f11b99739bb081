/** Schemas of the core kinds served today: Namespace, ConfigMap, Secret. */
import { Schema, atomicList, bool, bytes, mapList, object, str, stringMap, time } from '../schema';
import { kindSchema } from './meta';

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

export const configMapSchema: Schema = kindSchema({
  data: stringMap('Configuration data (UTF-8 values).'),
  binaryData: { type: 'object', additionalProperties: bytes(), description: 'Binary configuration data (base64 in JSON).' },
  immutable: bool('If true, data cannot be changed.'),
}, 'ConfigMap holds configuration data for workloads to consume.');

export const secretSchema: Schema = kindSchema({
  data: { type: 'object', additionalProperties: bytes(), description: 'Secret data, base64 in JSON.' },
  stringData: stringMap('Write-only string data merged into data on write.'),
  type: str('Used to facilitate programmatic handling of secret data.'),
  immutable: bool('If true, data cannot be changed.'),
}, 'Secret holds secret data of a certain type.');
