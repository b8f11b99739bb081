/**
 * VolumeAttachment (storage/v1, cluster-scoped): the intent to attach a volume to a node.
 * The spec (attacher, nodeName, and a source with exactly one of persistentVolumeName and
 * inlineVolumeSpec) cannot change; `status` (attached false on create) is the attacher's and
 * changes only through `/status`. DELETE answers the object.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { volumeAttachmentSchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { isDns1123Subdomain } from '../../../meta/validation';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { Naming } from '../../../naming';
import { statusSubresource } from '../../status-subresource';
import { PersistentVolumeSpec, defaultPersistentVolumeSpec, validatePersistentVolumeSpec } from '../../core/volumes/persistent-volume-spec';
import { validateCsiDriverName } from '../../core/volumes/persistent-sources';
import { semanticEqual } from '../../core/semantic-equal';

interface AttachmentSpec {
  attacher?: string;
  nodeName?: string;
  source?: { persistentVolumeName?: string | null; inlineVolumeSpec?: PersistentVolumeSpec | null } | null;
}
interface AttachmentStatus {
  attached?: boolean;
  attachmentMetadata?: Record<string, string> | null;
  attachError?: { message?: string } | null;
  detachError?: { message?: string } | null;
}

const MAX_METADATA_BYTES = 256 * 1024;
const MAX_ERROR_MESSAGE = 1024;
const EXACTLY_ONE = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';

const specOf = (obj: ApiObject): AttachmentSpec => (obj.spec ?? {}) as AttachmentSpec;
const statusOf = (obj: ApiObject): AttachmentStatus => (obj.status ?? {}) as AttachmentStatus;
const set = (v: unknown): boolean => v !== undefined && v !== null;

function validateSource(source: AttachmentSpec['source']): FieldError[] {
  const s = source ?? {};
  const path = 'spec.source';
  if (!set(s.persistentVolumeName) && !set(s.inlineVolumeSpec)) return [fieldErrors.required(path, EXACTLY_ONE)];
  if (set(s.persistentVolumeName) && set(s.inlineVolumeSpec)) return [fieldErrors.forbidden(path, EXACTLY_ONE)];
  if (set(s.persistentVolumeName)) {
    return s.persistentVolumeName ? [] : [fieldErrors.required(`${path}.persistentVolumeName`, 'must specify non empty persistentVolumeName')];
  }
  // Inline specs are validated without the ReadWriteOncePod mode, as Kubernetes does.
  return validatePersistentVolumeSpec(s.inlineVolumeSpec as PersistentVolumeSpec, '', true, `${path}.inlineVolumeSpec`, { allowReadWriteOncePod: false });
}

function validateStatus(status: AttachmentStatus): FieldError[] {
  const errs: FieldError[] = [];
  const size = Object.entries(status.attachmentMetadata ?? {}).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(String(v ?? '')), 0);
  if (size > MAX_METADATA_BYTES) errs.push(fieldErrors.tooLong('status.attachmentMetadata', MAX_METADATA_BYTES));
  for (const k of ['attachError', 'detachError'] as const) {
    // Kubernetes checks 1024 characters but names the metadata limit in the message.
    if ((status[k]?.message ?? '').length > MAX_ERROR_MESSAGE) errs.push(fieldErrors.tooLong(`status.${k}.message`, MAX_METADATA_BYTES));
  }
  return errs;
}

/** ValidateVolumeAttachment: the spec and the status. */
function validate(obj: ApiObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  if (!spec.attacher) errs.push(fieldErrors.required('spec.attacher'));
  errs.push(...validateSource(spec.source));
  const node = spec.nodeName ?? '';
  errs.push(...isDns1123Subdomain(node).map((m) => fieldErrors.invalid('spec.nodeName', node, m)));
  return [...errs, ...validateStatus(statusOf(obj))];
}

/** The tighter checks of new v1 attachments: attacher is a CSI driver name, the volume name a volume name. */
function validateCreate(obj: ApiObject): FieldError[] {
  const spec = specOf(obj);
  const errs = validate(obj);
  if (spec.attacher) errs.push(...validateCsiDriverName(spec.attacher, 'spec.attacher'));
  const pv = spec.source?.persistentVolumeName;
  if (typeof pv === 'string') errs.push(...isDns1123Subdomain(pv).map((m) => fieldErrors.invalid('spec.source.persistentVolumeName', pv, m)));
  return errs;
}

function validateUpdate(obj: ApiObject, old: ApiObject): FieldError[] {
  const errs = validate(obj);
  // The spec is read-only; allowing changes would need metadata.generation to count them.
  if (!semanticEqual(specOf(obj), specOf(old))) errs.push(fieldErrors.immutable('spec', specOf(obj)));
  return errs;
}

function defaultSpec(obj: ApiObject): void {
  const inline = specOf(obj).source?.inlineVolumeSpec;
  if (inline && typeof inline === 'object') defaultPersistentVolumeSpec(inline, true);
}

const attachmentTable: TableColumns = {
  columns: [
    nameColumn,
    column('Attacher', 'string', 'attacher indicates the name of the volume driver that MUST handle this request.', { format: 'name' }),
    column('PV', 'string', 'persistentVolumeName represents the name of the persistent volume to attach.'),
    column('Node', 'string', 'nodeName represents the node that the volume should be attached to.'),
    column('Attached', 'boolean', 'attached indicates the volume is successfully attached.'),
    ageColumn,
  ],
  cells: (obj, now) => {
    const spec = specOf(obj as ApiObject);
    return [obj.metadata?.name ?? '', spec.attacher ?? '', spec.source?.persistentVolumeName ?? '', spec.nodeName ?? '',
      statusOf(obj as ApiObject).attached ?? false, translateTimestampSince(obj.metadata?.creationTimestamp, now)];
  },
};

export function volumeAttachmentResource(naming: Naming): ResourceDef {
  return {
    group: naming.group('storage'), version: 'v1', kind: 'VolumeAttachment', listKind: 'VolumeAttachmentList',
    resource: 'volumeattachments', singular: 'volumeattachment', namespaced: false, shortNames: [], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [statusSubresource('VolumeAttachment', (status) => ({ ...status, attached: status.attached ?? false }))],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: volumeAttachmentSchema,
    table: attachmentTable,
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, volumeAttachmentSchema, 'VolumeAttachment'),
      prepareForCreate: (obj) => { defaultSpec(obj); obj.status = { attached: false }; },
      prepareForUpdate: (obj, old) => { defaultSpec(obj); obj.status = old.status; },
      validate: validateCreate,
      validateUpdate,
    },
  };
}
