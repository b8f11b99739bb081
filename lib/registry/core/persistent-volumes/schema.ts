/** Schema of core/v1 PersistentVolume: the spec (persistent-volume-spec.ts) and the status. */
import { Schema, object, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { persistentVolumeSpec } from '../volumes/persistent-volume-spec-schema';

export const persistentVolumeSchema: Schema = kindSchema({
  spec: persistentVolumeSpec,
  status: object({
    phase: str('Pending, Available, Bound, Released or Failed.'),
    message: str('a human-readable message indicating details about why the volume is in this state.'),
    reason: str('a brief CamelCase string that describes any failure.'),
  }),
}, 'PersistentVolume (PV) is a storage resource provisioned by an administrator.');
