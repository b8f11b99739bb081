/** Schemas of the core kinds served today: Namespace, ConfigMap, Secret, ServiceAccount. */
import { Schema, atomicList, bool, bytes, mapList, object, str, stringMap, time } from '../schema';
import { kindSchema } from './meta';
import { objectReference } from './persistent-sources';
import { localObjectReference } from './volume';

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

/** secrets: a map list keyed by name (strategic merge on name); imagePullSecrets atomic. */
export const serviceAccountSchema: Schema = kindSchema({
  secrets: mapList(objectReference, ['name'], 'Secrets in the same namespace that pods running as this ServiceAccount may use.'),
  imagePullSecrets: atomicList(localObjectReference, 'Secrets in the same namespace used to pull the images of pods running as this ServiceAccount.'),
  automountServiceAccountToken: bool('Whether pods running as this ServiceAccount get an API token mounted automatically; pods may override it.'),
}, 'ServiceAccount binds together a name, a principal that can be authenticated and authorized, and a set of secrets.');
