/** Schema of core/v1 ServiceAccount: the secrets its pods may use, image pull secrets, token automount. */
import { Schema, atomicList, bool, mapList } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { localObjectReference, objectReference } from '../object-reference-schema';

/** secrets: a map list keyed by name (strategic merge on name); imagePullSecrets atomic. */
export const serviceAccountSchema: Schema = kindSchema({
  secrets: mapList(objectReference, ['name'], 'Secrets in the same namespace that pods running as this ServiceAccount may use.'),
  imagePullSecrets: atomicList(localObjectReference, 'Secrets in the same namespace used to pull the images of pods running as this ServiceAccount.'),
  automountServiceAccountToken: bool('Whether pods running as this ServiceAccount get an API token mounted automatically; pods may override it.'),
}, 'ServiceAccount binds together a name, a principal that can be authenticated and authorized, and a set of secrets.');
