/**
 * PersistentVolumeClaimSpec rules, shared by claims and by claim templates of ephemeral
 * volumes: Kubernetes' ValidatePersistentVolumeClaimSpec, and the data source handling of
 * KEP 1495 (dataSource drops values it never allowed; dataSourceRef keeps and reports them;
 * with AnyVolumeDataSource the two are kept equal).
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1123Subdomain } from '../../../meta/validation';
import { labelSelectorFromObject } from '../../../meta/label-selector';
import { validateAccessModes } from './access-modes';
import { canonicalResourceList, validateNonnegativeQuantity, validatePositiveQuantity } from '../resource-quantities';
import { VOLUME_MODES } from './persistent-volume-spec';

export interface TypedLocalObjectReference { apiGroup?: string | null; kind?: string; name?: string }

export interface PersistentVolumeClaimSpec {
  accessModes?: string[] | null;
  selector?: unknown;
  resources?: { limits?: Record<string, unknown> | null; requests?: Record<string, unknown> | null } | null;
  volumeName?: string;
  storageClassName?: string | null;
  volumeMode?: string | null;
  dataSource?: TypedLocalObjectReference | null;
  dataSourceRef?: TypedLocalObjectReference | null;
}

export interface ClaimSpecOptions {
  allowReadWriteOncePod: boolean;
  /** The AnyVolumeDataSource gate. */
  anyVolumeDataSource: boolean;
  /** The group of VolumeSnapshot, the only non-core kind dataSource accepts. */
  snapshotGroup: string;
}

function validateDataSource(ref: TypedLocalObjectReference, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!ref.name) errs.push(fieldErrors.required(child(path, 'name')));
  if (!ref.kind) errs.push(fieldErrors.required(child(path, 'kind')));
  // A core-group source can only be another claim.
  if (!ref.apiGroup && ref.kind !== 'PersistentVolumeClaim') errs.push(fieldErrors.invalid(path, ref.kind ?? ''));
  return errs;
}

/** ValidatePersistentVolumeClaimSpec at `path`. */
export function validatePersistentVolumeClaimSpec(spec: PersistentVolumeClaimSpec, path: string, opts: ClaimSpecOptions): FieldError[] {
  const errs = validateAccessModes(spec.accessModes, child(path, 'accessModes'), opts.allowReadWriteOncePod, 'at least 1 access mode is required');
  if (spec.selector !== undefined && spec.selector !== null) errs.push(...labelSelectorFromObject(spec.selector, child(path, 'selector')).errors);

  // Kubernetes reports the storage request at `spec.resources[storage]`.
  const storagePath = index(child(path, 'resources'), 'storage');
  const storage = spec.resources?.requests?.storage;
  if (storage === undefined || storage === null) errs.push(fieldErrors.required(storagePath));
  else {
    const positive = validatePositiveQuantity(storage, storagePath);
    errs.push(...(positive.length ? positive : validateNonnegativeQuantity(storage, storagePath)));
  }

  const className = spec.storageClassName ?? '';
  if (className) errs.push(...isDns1123Subdomain(className).map((m) => fieldErrors.invalid(child(path, 'storageClassName'), className, m)));
  if (spec.volumeMode !== undefined && spec.volumeMode !== null && !VOLUME_MODES.includes(spec.volumeMode)) {
    errs.push(fieldErrors.notSupported(child(path, 'volumeMode'), spec.volumeMode, VOLUME_MODES));
  }
  if (spec.dataSource) errs.push(...validateDataSource(spec.dataSource, child(path, 'dataSource')));
  if (spec.dataSourceRef) errs.push(...validateDataSource(spec.dataSourceRef, child(path, 'dataSourceRef')));
  if (spec.dataSource && spec.dataSourceRef && !sameReference(spec.dataSource, spec.dataSourceRef)) {
    errs.push(fieldErrors.invalid(path, child(path, 'dataSource'), 'must match dataSourceRef'));
  }
  return errs;
}

const sameReference = (a: TypedLocalObjectReference, b: TypedLocalObjectReference): boolean =>
  (a.apiGroup ?? null) === (b.apiGroup ?? null) && (a.kind ?? '') === (b.kind ?? '') && (a.name ?? '') === (b.name ?? '');

/** A claim or a volume snapshot: the sources dataSource has always accepted. */
function isClaimOrSnapshot(ref: TypedLocalObjectReference, snapshotGroup: string): boolean {
  const group = ref.apiGroup ?? '';
  return (ref.kind === 'PersistentVolumeClaim' && group === '') || (ref.kind === 'VolumeSnapshot' && group === snapshotGroup);
}

/**
 * Prepares a spec being written over `old` (undefined on create), in Kubernetes' order:
 * drop dataSourceRef when its gate is off (unless already used); drop a dataSource that is no
 * claim or snapshot when nothing else says the client meant it (no old data source, no
 * dataSourceRef); then, with the gate, copy whichever of the two is set into the other.
 * Also fills volumeMode (Filesystem) and stores the resource quantities canonically.
 */
export function prepareClaimSpec(spec: PersistentVolumeClaimSpec, old: PersistentVolumeClaimSpec | undefined, opts: ClaimSpecOptions): void {
  if (!opts.anyVolumeDataSource && !old?.dataSourceRef) delete spec.dataSourceRef;
  if (!old?.dataSource && !spec.dataSourceRef && spec.dataSource && !isClaimOrSnapshot(spec.dataSource, opts.snapshotGroup)) {
    delete spec.dataSource;
  }
  if (opts.anyVolumeDataSource) {
    if (spec.dataSource && !spec.dataSourceRef) spec.dataSourceRef = { ...spec.dataSource };
    else if (spec.dataSourceRef && !spec.dataSource) spec.dataSource = { ...spec.dataSourceRef };
  }
  spec.volumeMode ??= 'Filesystem';
  if (spec.resources && typeof spec.resources === 'object') {
    for (const k of ['limits', 'requests'] as const) {
      if (spec.resources[k]) spec.resources[k] = canonicalResourceList(spec.resources[k]) as Record<string, unknown>;
    }
  }
}
