/** Schema of core/v1 Secret: base64 data, write-only stringData, type, immutable. */
import { Schema, bool, bytes, str, stringMap } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

export const secretSchema: Schema = kindSchema({
  data: { type: 'object', additionalProperties: bytes(), description: 'Secret data, base64 in JSON.' },
  stringData: stringMap('Write-only string data merged into data on write.'),
  type: str('Used to facilitate programmatic handling of secret data.'),
  immutable: bool('If true, data cannot be changed.'),
}, 'Secret holds secret data of a certain type.');
