/** Schema of storage/v1 VolumeAttachment: the attacher, the volume (by name or an inline spec) and the node; the attach status. */
import { Schema, bool, object, str, stringMap, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { persistentVolumeSpec } from '../../core/volumes/persistent-volume-spec-schema';

const volumeError: Schema = object({
  time: time('the time the error was encountered.'),
  message: str('the error encountered during Attach or Detach; may be logged, so no sensitive information.'),
});

export const volumeAttachmentSchema: Schema = kindSchema({
  spec: object({
    attacher: str('the name of the volume driver that MUST handle this request.'),
    source: object({
      persistentVolumeName: str('the name of the persistent volume to attach.'),
      inlineVolumeSpec: { ...persistentVolumeSpec, description: 'the source information for an inline volume being migrated to CSI (beta).' },
    }, { description: 'the volume that should be attached: exactly one member.' }),
    nodeName: str('the node that the volume should be attached to.'),
  }, { required: ['attacher', 'source', 'nodeName'] }),
  status: object({
    attached: bool('whether the volume is successfully attached; set only by the attacher.'),
    attachmentMetadata: stringMap('information returned by a successful attach, passed to later wait-for-attach or mount calls.'),
    attachError: volumeError,
    detachError: volumeError,
  }, { required: ['attached'] }),
}, 'VolumeAttachment captures the intent to attach or detach the specified volume to/from the specified node.');
