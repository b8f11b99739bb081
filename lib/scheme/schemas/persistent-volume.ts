/** Schema of core/v1 PersistentVolume: the spec (persistent-volume-spec.ts) and the status. */
import { Schema, object, str } from '../schema';
import { kindSchema } from './meta';
import { persistentVolumeSpec } from './persistent-volume-spec';

export const persistentVolumeSchema: Schema = kindSchema({
  spec: persistentVolumeSpec,
  status: object({
    phase: str('Pending, Available, Bound, Released or Failed.'),
    message: str('a human-readable message indicating details about why the volume is in this state.'),
    reason: str('a brief CamelCase string that describes any failure.'),
  }),
}, 'PersistentVolume (PV) is a storage resource provisioned by an administrator.');
