/**
 * PersistentVolumeClaim (core/v1, namespaced, short name `pvc`): a request for storage.
 * volumeMode defaults to Filesystem; dataSource/dataSourceRef per KEP 1495; the spec is
 * immutable except a first volumeName, the beta class annotation upgrade, and the storage
 * request of a bound claim (which may not shrink). `status` (phase Pending on create,
 * conditions merged by type) changes only through `/status`; allocatedResources and
 * resizeStatus need RecoverVolumeExpansionFailure. DELETE answers the object.
 *
 * Admission seam: the default storage class (DefaultStorageClass), the in-use protection
 * finalizer (`kubernetes.io/pvc-protection`) and the rule that only classes with
 * allowVolumeExpansion may grow a claim (PersistentVolumeClaimResize) are admission plugins on
 * the AdmissionChain (lib/admission/interfaces.ts); this strategy only has the API rules.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { persistentVolumeClaimSchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { FeatureGates } from '../../../scheme/feature-gates';
import { FieldError, fieldErrors, index } from '../../../meta/field-errors';
import { compareQuantities, parseQuantity, tryParseQuantity } from '../../../meta/quantity';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { Naming } from '../../../naming';
import { statusSubresource } from '../../status-subresource';
import { ClaimSpecOptions, PersistentVolumeClaimSpec, prepareClaimSpec, validatePersistentVolumeClaimSpec } from '../volumes/persistent-volume-claim-spec';
import { accessModesString, usesReadWriteOncePod } from '../volumes/access-modes';
import { canonicalResourceList, validateBasicResource, validateNonnegativeQuantity } from '../resource-quantities';
import { StorageNames, storageNames } from '../storage-annotations';
import { describeDiff, semanticEqual } from '../semantic-equal';

interface ClaimStatus {
  phase?: string;
  capacity?: Record<string, unknown> | null;
  allocatedResources?: Record<string, unknown> | null;
  resizeStatus?: string | null;
  [key: string]: unknown;
}

const specOf = (obj: ApiObject): PersistentVolumeClaimSpec => (obj.spec ?? {}) as PersistentVolumeClaimSpec;
const statusOf = (obj: ApiObject): ClaimStatus => (obj.status ?? {}) as ClaimStatus;
const ZERO = parseQuantity('0');
const requestOf = (obj: ApiObject) => tryParseQuantity(specOf(obj).resources?.requests?.storage) ?? ZERO;
const capacityOf = (obj: ApiObject) => tryParseQuantity(statusOf(obj).capacity?.storage) ?? ZERO;

const RESIZE_STATUSES = ['', 'ControllerExpansionFailed', 'ControllerExpansionInProgress', 'NodeExpansionFailed',
  'NodeExpansionInProgress', 'NodeExpansionPending'];

function claimTable(names: StorageNames): TableColumns {
  return {
    columns: [
      nameColumn,
      column('Status', 'string', 'phase represents the current phase of PersistentVolumeClaim.'),
      column('Volume', 'string', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
      column('Capacity', 'string', 'capacity represents the actual resources of the underlying volume.'),
      column('Access Modes', 'string', 'accessModes contains the actual access modes the volume backing the PVC has.'),
      column('StorageClass', 'string', 'StorageClass of the pvc'),
      ageColumn,
      column('VolumeMode', 'string', 'volumeMode defines what type of volume is required by the claim.', { priority: 1 }),
    ],
    cells: (obj, now) => {
      const claim = obj as ApiObject;
      const spec = specOf(claim);
      const status = statusOf(claim);
      const bound = !!spec.volumeName;
      const phase = claim.metadata?.deletionTimestamp ? 'Terminating' : String(status.phase ?? '');
      return [
        claim.metadata?.name ?? '', phase, spec.volumeName ?? '',
        bound ? String(status.capacity?.storage ?? '0') : '', bound ? accessModesString(status.accessModes) : '',
        claim.metadata?.annotations?.[names.storageClassAnnotation] ?? spec.storageClassName ?? '',
        translateTimestampSince(claim.metadata?.creationTimestamp, now), spec.volumeMode ?? '<unset>',
      ];
    },
  };
}

export function persistentVolumeClaimResource(naming: Naming, gates: FeatureGates): ResourceDef {
  const names = storageNames(naming);
  const recover = () => gates.enabled('RecoverVolumeExpansionFailure');
  const options = (old?: ApiObject): ClaimSpecOptions => ({
    allowReadWriteOncePod: gates.enabled('ReadWriteOncePod') || (!!old && usesReadWriteOncePod(specOf(old).accessModes)),
    anyVolumeDataSource: gates.enabled('AnyVolumeDataSource'),
    snapshotGroup: names.snapshotGroup,
  });

  /** A status as stored: phase defaulted, quantities canonical, alpha fields only with their gate (or already in use). */
  const normalizeStatus = (status: ClaimStatus, current?: ApiObject): ClaimStatus => {
    const old = current ? statusOf(current) : {};
    const out: ClaimStatus = { ...status, phase: status.phase || 'Pending' };
    if (!recover() && !old.allocatedResources) delete out.allocatedResources;
    if (!recover() && !old.resizeStatus) delete out.resizeStatus;
    for (const k of ['capacity', 'allocatedResources'] as const) if (out[k]) out[k] = canonicalResourceList(out[k]) as Record<string, unknown>;
    return out;
  };

  const validateStatus = (status: ClaimStatus): FieldError[] => {
    const errs = Object.entries(status.capacity ?? {}).flatMap(([k, q]) => validateBasicResource(q, index('status.capacity', k)));
    if (!recover()) return errs;
    if (status.resizeStatus !== undefined && status.resizeStatus !== null && !RESIZE_STATUSES.includes(status.resizeStatus)) {
      errs.push(fieldErrors.notSupported('status.resizeStatus', status.resizeStatus, RESIZE_STATUSES));
    }
    for (const [k, q] of Object.entries(status.allocatedResources ?? {})) {
      if (k !== 'storage') errs.push(fieldErrors.notSupported('status.allocatedResources', k, ['storage']));
      else {
        const basic = validateBasicResource(q, index('status.allocatedResources', k));
        errs.push(...(basic.length ? basic : validateNonnegativeQuantity(q, index('status.allocatedResources', k))));
      }
    }
    return errs;
  };

  const validateUpdate = (obj: ApiObject, old: ApiObject): FieldError[] => {
    const errs = [...validatePersistentVolumeClaimSpec(specOf(obj), 'spec', options(old)), ...validateStatus(statusOf(obj))];
    const spec: PersistentVolumeClaimSpec = structuredClone(specOf(obj));
    const oldSpec: PersistentVolumeClaimSpec = structuredClone(specOf(old));
    // Objects stored before the gate normalized data sources compare as if they had been.
    prepareClaimSpec(oldSpec, oldSpec, options(old));
    // The binder sets volumeName once.
    if (!oldSpec.volumeName) oldSpec.volumeName = spec.volumeName;
    const ann = names.storageClassAnnotation;
    const oldAnn = old.metadata?.annotations?.[ann];
    const newAnn = obj.metadata?.annotations?.[ann];
    const classUpgrade = oldAnn !== undefined && (oldSpec.storageClassName === undefined || oldSpec.storageClassName === null)
      && typeof spec.storageClassName === 'string' && spec.storageClassName === oldAnn && (newAnn === undefined || newAnn === oldAnn);
    if (classUpgrade) delete spec.storageClassName;
    else if ((newAnn ?? '') !== (oldAnn ?? '')) errs.push(fieldErrors.immutable(`metadata.annotations.${ann}`, newAnn ?? ''));
    // A bound claim may change its storage request (expansion).
    if (statusOf(obj).phase === 'Bound' && spec.resources?.requests) spec.resources.requests.storage = oldSpec.resources?.requests?.storage;
    for (const s of [spec, oldSpec]) if (!s.volumeName) delete s.volumeName;
    if (!semanticEqual(spec, oldSpec)) {
      errs.push(fieldErrors.forbidden('spec', `spec is immutable after creation except resources.requests for bound claims\n${
        describeDiff(oldSpec as Record<string, unknown>, spec as Record<string, unknown>, 'core.PersistentVolumeClaimSpec')}`));
    }
    const newSize = requestOf(obj);
    if (compareQuantities(newSize, requestOf(old)) < 0) {
      if (!recover()) errs.push(fieldErrors.forbidden('spec.resources.requests.storage', 'field can not be less than previous value'));
      else if (compareQuantities(newSize, capacityOf(old)) <= 0) {
        errs.push(fieldErrors.forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
      }
    }
    if (!semanticEqual(specOf(obj).volumeMode, specOf(old).volumeMode)) errs.push(fieldErrors.immutable('volumeMode', specOf(obj).volumeMode ?? null));
    return errs;
  };

  return {
    group: '', version: 'v1', kind: 'PersistentVolumeClaim', listKind: 'PersistentVolumeClaimList',
    resource: 'persistentvolumeclaims', singular: 'persistentvolumeclaim', namespaced: true, shortNames: ['pvc'], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [statusSubresource('PersistentVolumeClaim', (status, current) => normalizeStatus(status, current))],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: persistentVolumeClaimSchema,
    table: claimTable(names),
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, persistentVolumeClaimSchema, 'PersistentVolumeClaim'),
      prepareForCreate: (obj) => {
        prepareClaimSpec((obj.spec ??= {}) as PersistentVolumeClaimSpec, undefined, options());
        obj.status = { phase: 'Pending' };
      },
      prepareForUpdate: (obj, old) => {
        prepareClaimSpec((obj.spec ??= {}) as PersistentVolumeClaimSpec, specOf(old), options(old));
        obj.status = old.status;
      },
      validate: (obj) => validatePersistentVolumeClaimSpec(specOf(obj), 'spec', options()),
      validateUpdate,
      // Kubernetes keeps a field selector `name` (a bug it supports for compatibility).
      fieldSet: (obj) => ({ name: String(obj.metadata?.name ?? '') }),
      selectableFields: ['name'],
    },
  };
}
