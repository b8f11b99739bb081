/**
 * CSIDriver (storage/v1, cluster-scoped): how the cluster talks to one CSI driver. Defaults:
 * attachRequired true, podInfoOnMount/storageCapacity/requiresRepublish false, fsGroupPolicy
 * ReadWriteOnceWithFSType, volumeLifecycleModes [Persistent]. attachRequired, fsGroupPolicy,
 * podInfoOnMount and volumeLifecycleModes are immutable; a change to the others counts in
 * metadata.generation. tokenRequests audiences are unique (so at most one is empty).
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { csiDriverSchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { FieldError, fieldErrors, index } from '../../../meta/field-errors';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { Naming } from '../../../naming';
import { semanticEqual } from '../../core/semantic-equal';

interface CsiDriverSpec {
  attachRequired?: boolean | null;
  podInfoOnMount?: boolean | null;
  volumeLifecycleModes?: string[] | null;
  storageCapacity?: boolean | null;
  fsGroupPolicy?: string | null;
  tokenRequests?: Array<{ audience?: string; expirationSeconds?: number | null }> | null;
  requiresRepublish?: boolean | null;
}

const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
const MIN_TOKEN_SECONDS = 10 * 60;
const MAX_TOKEN_SECONDS = 2 ** 32;

const specOf = (obj: ApiObject): CsiDriverSpec => (obj.spec ?? {}) as CsiDriverSpec;

/** SetDefaults_CSIDriver. */
function setDefaults(spec: CsiDriverSpec): void {
  spec.attachRequired ??= true;
  spec.podInfoOnMount ??= false;
  spec.storageCapacity ??= false;
  spec.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
  if (!spec.volumeLifecycleModes?.length) spec.volumeLifecycleModes = ['Persistent'];
  spec.requiresRepublish ??= false;
}

function validateTokenRequests(requests: CsiDriverSpec['tokenRequests']): FieldError[] {
  const errs: FieldError[] = [];
  const audiences = new Set<string>();
  (requests ?? []).forEach((r, i) => {
    const path = index('spec.tokenRequests', i);
    const audience = r?.audience ?? '';
    if (audiences.has(audience)) {
      errs.push(fieldErrors.duplicate(`${path}.audience`, audience));
      return;
    }
    audiences.add(audience);
    const seconds = r?.expirationSeconds;
    if (seconds === undefined || seconds === null) return;
    if (seconds < MIN_TOKEN_SECONDS) errs.push(fieldErrors.invalid(`${path}.expirationSeconds`, seconds, 'may not specify a duration less than 10 minutes'));
    if (seconds > MAX_TOKEN_SECONDS) errs.push(fieldErrors.invalid(`${path}.expirationSeconds`, seconds, 'may not specify a duration larger than 2^32 seconds'));
  });
  return errs;
}

/** validateCSIDriverSpec; Kubernetes names attachRequired `spec.attachedRequired` in its errors. */
function validate(obj: ApiObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  for (const [key, at] of [['attachRequired', 'attachedRequired'], ['podInfoOnMount', 'podInfoOnMount'], ['storageCapacity', 'storageCapacity']] as const) {
    if (spec[key] === undefined || spec[key] === null) errs.push(fieldErrors.required(`spec.${at}`));
  }
  if (spec.fsGroupPolicy && !FS_GROUP_POLICIES.includes(spec.fsGroupPolicy)) {
    errs.push(fieldErrors.notSupported('spec.fsGroupPolicy', spec.fsGroupPolicy, FS_GROUP_POLICIES));
  }
  errs.push(...validateTokenRequests(spec.tokenRequests));
  const modes = spec.volumeLifecycleModes ?? [];
  modes.forEach((mode, i) => {
    if (!LIFECYCLE_MODES.includes(mode)) errs.push(fieldErrors.notSupported('spec.volumeLifecycleModes', mode, LIFECYCLE_MODES));
    // A set (listType=set): each mode once.
    else if (modes.indexOf(mode) < i) errs.push(fieldErrors.duplicate(index('spec.volumeLifecycleModes', i), mode));
  });
  return errs;
}

function validateUpdate(obj: ApiObject, old: ApiObject): FieldError[] {
  const errs = validate(obj);
  const spec = specOf(obj);
  const oldSpec = specOf(old);
  const immutable: Array<[keyof CsiDriverSpec, string]> = [
    ['attachRequired', 'spec.attachedRequired'], ['fsGroupPolicy', 'spec.fsGroupPolicy'],
    ['podInfoOnMount', 'spec.podInfoOnMount'], ['volumeLifecycleModes', 'spec.volumeLifecycleModes'],
  ];
  for (const [key, path] of immutable) if (!semanticEqual(spec[key], oldSpec[key])) errs.push(fieldErrors.immutable(path, spec[key] ?? null));
  return errs;
}

const driverTable: TableColumns = {
  columns: [
    nameColumn,
    column('AttachRequired', 'boolean', 'attachRequired indicates this CSI volume driver requires an attach operation.'),
    column('PodInfoOnMount', 'boolean', 'podInfoOnMount indicates this CSI volume driver requires additional pod information during mount operations.'),
    column('StorageCapacity', 'boolean', 'storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report.'),
    column('TokenRequests', 'string', 'tokenRequests indicates the CSI driver needs pods\' service account tokens it is mounting volume for to do necessary authentication.'),
    column('RequiresRepublish', 'boolean', 'requiresRepublish indicates the CSI driver wants NodePublishVolume being periodically called to reflect any possible change in the mounted volume.'),
    column('Modes', 'string', 'volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.'),
    ageColumn,
  ],
  cells: (obj, now) => {
    const spec = specOf(obj as ApiObject);
    const audiences = (spec.tokenRequests ?? []).map((t) => t?.audience ?? '');
    return [
      obj.metadata?.name ?? '', spec.attachRequired ?? true, spec.podInfoOnMount ?? false, spec.storageCapacity ?? false,
      audiences.length ? audiences.join(',') : '<unset>', spec.requiresRepublish ?? false,
      (spec.volumeLifecycleModes ?? []).join(',') || '<none>', translateTimestampSince(obj.metadata?.creationTimestamp, now),
    ];
  },
};

export function csiDriverResource(naming: Naming): ResourceDef {
  return {
    group: naming.group('storage'), version: 'v1', kind: 'CSIDriver', listKind: 'CSIDriverList', resource: 'csidrivers',
    singular: 'csidriver', namespaced: false, shortNames: [], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: csiDriverSchema,
    table: driverTable,
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, csiDriverSchema, 'CSIDriver'),
      prepareForCreate: (obj) => setDefaults((obj.spec ??= {}) as CsiDriverSpec),
      prepareForUpdate: (obj, old) => {
        setDefaults((obj.spec ??= {}) as CsiDriverSpec);
        // Kubernetes counts changes of the mutable fields in metadata.generation (none on create).
        if (!semanticEqual(obj.spec, old.spec) && obj.metadata) obj.metadata.generation = (old.metadata?.generation ?? 0) + 1;
      },
      validate,
      validateUpdate,
    },
  };
}
