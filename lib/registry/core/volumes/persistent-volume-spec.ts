/**
 * PersistentVolumeSpec rules, shared by PersistentVolume and by a VolumeAttachment's inline
 * volume spec (`inline`: no claimRef, capacity, node affinity or class; a csi source; Retain
 * and Filesystem only). Kubernetes' ValidatePersistentVolumeSpec, in its order and words.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1123Subdomain } from '../../../meta/validation';
import { validateAccessModes } from './access-modes';
import { validateVolumeNodeAffinity } from '../node-selector';
import { defaultPersistentSources, sourcesOf, validatePersistentSources } from './persistent-sources';
import { canonicalResourceList, validateBasicResource, validatePositiveQuantity } from '../resource-quantities';

export interface PersistentVolumeSpec {
  capacity?: Record<string, unknown> | null;
  accessModes?: string[] | null;
  claimRef?: Record<string, unknown> | null;
  persistentVolumeReclaimPolicy?: string;
  storageClassName?: string;
  mountOptions?: string[] | null;
  volumeMode?: string | null;
  nodeAffinity?: { required?: { nodeSelectorTerms?: unknown[] | null } | null } | null;
  hostPath?: { path?: string } | null;
  csi?: Record<string, unknown> | null;
  local?: Record<string, unknown> | null;
  [source: string]: unknown;
}

export interface PersistentVolumeSpecOptions {
  /** ReadWriteOncePod is accepted (its gate is on, or the old object uses it). */
  allowReadWriteOncePod: boolean;
}

const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
export const VOLUME_MODES = ['Block', 'Filesystem'];
const INLINE = 'may not be specified in the context of inline volumes';

/** `/` after path.Clean: only slashes and dots that stay at the root. */
const cleansToRoot = (p: string): boolean => p.startsWith('/') && p.split('/').every((seg) => seg === '' || seg === '.' || seg === '..');

function validateCapacity(capacity: Record<string, unknown> | null | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const keys = Object.keys(capacity ?? {});
  if (!keys.length) errs.push(fieldErrors.required(path));
  if (!keys.includes('storage') || keys.length > 1) errs.push(fieldErrors.notSupported(path, capacity ?? {}, ['storage']));
  for (const k of keys) {
    const at = index(path, k);
    errs.push(...validateBasicResource(capacity![k], at), ...validatePositiveQuantity(capacity![k], at));
  }
  return errs;
}

/** ValidatePersistentVolumeSpec at `path` (`spec` or `spec.source.inlineVolumeSpec`). */
export function validatePersistentVolumeSpec(spec: PersistentVolumeSpec, pvName: string, inline: boolean, path: string,
  opts: PersistentVolumeSpecOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (inline) {
    if (spec.claimRef) errs.push(fieldErrors.forbidden(child(path, 'claimRef'), INLINE));
    if (Object.keys(spec.capacity ?? {}).length) errs.push(fieldErrors.forbidden(child(path, 'capacity'), INLINE));
    if (!spec.csi) errs.push(fieldErrors.required(child(path, 'csi'), 'has to be specified in the context of inline volumes'));
  }
  errs.push(...validateAccessModes(spec.accessModes, child(path, 'accessModes'), opts.allowReadWriteOncePod));
  if (!inline) errs.push(...validateCapacity(spec.capacity, child(path, 'capacity')));

  const policy = spec.persistentVolumeReclaimPolicy ?? '';
  if (policy && inline && policy !== 'Retain') {
    errs.push(fieldErrors.forbidden(child(path, 'persistentVolumeReclaimPolicy'), 'may only be Retain in the context of inline volumes'));
  } else if (policy && !inline && !RECLAIM_POLICIES.includes(policy)) {
    errs.push(fieldErrors.notSupported(child(path, 'persistentVolumeReclaimPolicy'), policy, RECLAIM_POLICIES));
  }

  if (spec.nodeAffinity) {
    if (inline) errs.push(fieldErrors.forbidden(child(path, 'nodeAffinity'), INLINE));
    else errs.push(...validateVolumeNodeAffinity(spec.nodeAffinity as never, child(path, 'nodeAffinity')));
  }
  errs.push(...validatePersistentSources(spec, pvName, path));
  // A local volume lives on particular nodes, so it must say which.
  if (sourcesOf(spec)[0] === 'local' && (!spec.nodeAffinity || inline)) {
    errs.push(fieldErrors.required(child(path, 'nodeAffinity'), 'Local volume requires node affinity'));
  }
  if (spec.hostPath && cleansToRoot(String(spec.hostPath.path ?? '')) && policy === 'Recycle') {
    errs.push(fieldErrors.forbidden(child(path, 'persistentVolumeReclaimPolicy'), "may not be 'recycle' for a hostPath mount of '/'"));
  }
  const className = spec.storageClassName ?? '';
  if (className) {
    if (inline) errs.push(fieldErrors.forbidden(child(path, 'storageClassName'), INLINE));
    else errs.push(...isDns1123Subdomain(className).map((m) => fieldErrors.invalid(child(path, 'storageClassName'), className, m)));
  }
  const mode = spec.volumeMode;
  if (mode !== undefined && mode !== null) {
    if (inline && mode !== 'Filesystem') {
      errs.push(fieldErrors.forbidden(child(path, 'volumeMode'), 'may not specify volumeMode other than Filesystem in the context of inline volumes'));
    } else if (!inline && !VOLUME_MODES.includes(mode)) {
      errs.push(fieldErrors.notSupported(child(path, 'volumeMode'), mode, VOLUME_MODES));
    }
  }
  return errs;
}

/**
 * Defaults and stored form of a spec: source defaults and canonical capacity; for a volume
 * itself (not inline) also reclaim policy Retain (manual volumes) and volume mode Filesystem.
 */
export function defaultPersistentVolumeSpec(spec: PersistentVolumeSpec, inline: boolean): void {
  defaultPersistentSources(spec);
  if (spec.capacity) spec.capacity = canonicalResourceList(spec.capacity) as Record<string, unknown>;
  if (inline) return;
  if (!spec.persistentVolumeReclaimPolicy) spec.persistentVolumeReclaimPolicy = 'Retain';
  spec.volumeMode ??= 'Filesystem';
}
