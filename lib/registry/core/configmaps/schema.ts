/** Schema of core/v1 ConfigMap: string data, binary data, immutable. */
import { Schema, bool, bytes, stringMap } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

export const configMapSchema: Schema = kindSchema({
  data: stringMap('Configuration data (UTF-8 values).'),
  binaryData: { type: 'object', additionalProperties: bytes(), description: 'Binary configuration data (base64 in JSON).' },
  immutable: bool('If true, data cannot be changed.'),
}, 'ConfigMap holds configuration data for workloads to consume.');
