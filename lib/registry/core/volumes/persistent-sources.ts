/**
 * The persistent-volume sources (hostPath, nfs, iscsi, csi, local, ...): their defaults and
 * Kubernetes' checks of each, and the rule that a volume spec names exactly one of them.
 * Paths and messages are Kubernetes' own, quirks included (gcePersistentDisk fields are
 * reported under `persistentDisk`, an extra cephfs under `cephFS`).
 */
import { FieldError, child, fieldErrors } from '../../../meta/field-errors';
import { isDns1123Label, isDns1123Subdomain } from '../../../meta/validation';

// Sources are decoded JSON already type-checked against the schema (decode-check), so fields are read loosely.
type Source = Record<string, any>;
type Check = (s: Source, path: string, pvName: string) => FieldError[];

const required = (s: Source, path: string, ...keys: string[]): FieldError[] =>
  keys.filter((k) => !s[k]).map((k) => fieldErrors.required(child(path, k)));
const label = (v: string, path: string): FieldError[] => isDns1123Label(v).map((m) => fieldErrors.invalid(path, v, m));
const PARTITION_MSG = 'must be between 1 and 255, inclusive';
const LUN_MSG = 'must be between 0 and 255, inclusive';

const IQN_RE = /iqn\.\d{4}-\d{2}\.([A-Za-z0-9.-]+)(:[^,;*&$|\s]+)$/;
const EUI_RE = /^eui.[A-Za-z0-9]{16}$/;
const NAA_RE = /^naa.[A-Za-z0-9]{32}$/;

/** The iSCSI name format check: iqn, eui or naa with the format of each. */
function iscsiNameErrors(v: string, path: string): FieldError[] {
  if (!/^(iqn|eui|naa)/.test(v)) return [fieldErrors.invalid(path, v, 'must be valid format')];
  const re = v.startsWith('iqn') ? IQN_RE : v.startsWith('eui') ? EUI_RE : NAA_RE;
  return re.test(v) ? [] : [fieldErrors.invalid(path, v, 'must be valid format')];
}

/** validatePVSecretReference: name (a DNS subdomain) and namespace (a DNS label) required. */
export function validateSecretReference(ref: Source, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!ref.name) errs.push(fieldErrors.required(child(path, 'name')));
  else errs.push(...isDns1123Subdomain(ref.name).map((m) => fieldErrors.invalid(child(path, 'name'), ref.name, m)));
  if (!ref.namespace) errs.push(fieldErrors.required(child(path, 'namespace')));
  else errs.push(...label(ref.namespace, child(path, 'namespace')));
  return errs;
}

/** ValidateCSIDriverName: required, at most 63 characters, a DNS subdomain when lower-cased. */
export function validateCsiDriverName(name: string | undefined, path: string): FieldError[] {
  const v = name ?? '';
  const errs: FieldError[] = [];
  if (!v) errs.push(fieldErrors.required(path));
  if (v.length > 63) errs.push(fieldErrors.tooLong(path, 63));
  errs.push(...isDns1123Subdomain(v.toLowerCase()).map((m) => fieldErrors.invalid(path, v, m)));
  return errs;
}

function hostPortPairs(registry: string): boolean {
  return registry.split(',').every((pair) => /^(\[[^\]]*\]|[^:[\]]*):[^:[\]]*$/.test(pair));
}

const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
const noBacksteps = (v: string, path: string): FieldError[] =>
  (v.split('/').includes('..') ? [fieldErrors.invalid(path, v, "must not contain '..'")] : []);

const CHECKS: Record<string, Check> = {
  hostPath: (s, p) => {
    if (!s.path) return [fieldErrors.required(child(p, 'path'))];
    const errs = noBacksteps(s.path, child(p, 'path'));
    if (s.type !== undefined && s.type !== null && !HOST_PATH_TYPES.includes(s.type)) {
      errs.push(fieldErrors.notSupported(child(p, 'type'), s.type, HOST_PATH_TYPES));
    }
    return errs;
  },
  gcePersistentDisk: (s, p) => [...required(s, p, 'pdName'),
    ...((s.partition ?? 0) < 0 || (s.partition ?? 0) > 255 ? [fieldErrors.invalid(child(p, 'partition'), s.partition, PARTITION_MSG)] : [])],
  awsElasticBlockStore: (s, p) => [...required(s, p, 'volumeID'),
    ...((s.partition ?? 0) < 0 || (s.partition ?? 0) > 255 ? [fieldErrors.invalid(child(p, 'partition'), s.partition, PARTITION_MSG)] : [])],
  glusterfs: (s, p) => {
    const errs = required(s, p, 'endpoints', 'path');
    const ns = s.endpointsNamespace;
    if (ns === '') errs.push(fieldErrors.invalid(child(p, 'endpointsNamespace'), ns, 'if the endpointnamespace is set, it must be a valid namespace name'));
    else if (typeof ns === 'string') errs.push(...label(ns, child(p, 'endpointsNamespace')));
    return errs;
  },
  flocker: (s, p) => {
    const errs: FieldError[] = [];
    if (!s.datasetName && !s.datasetUUID) errs.push(fieldErrors.required(p, 'one of datasetName and datasetUUID is required'));
    if (s.datasetName && s.datasetUUID) errs.push(fieldErrors.invalid(p, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'));
    if (String(s.datasetName ?? '').includes('/')) errs.push(fieldErrors.invalid(child(p, 'datasetName'), s.datasetName, "must not contain '/'"));
    return errs;
  },
  nfs: (s, p) => [...required(s, p, 'server', 'path'),
    ...(!String(s.path ?? '').startsWith('/') ? [fieldErrors.invalid(child(p, 'path'), s.path ?? '', 'must be an absolute path')] : [])],
  rbd: (s, p) => [...(!(s.monitors ?? []).length ? [fieldErrors.required(child(p, 'monitors'))] : []), ...required(s, p, 'image')],
  quobyte: (s, p) => {
    const errs: FieldError[] = [];
    if (!s.registry) errs.push(fieldErrors.required(child(p, 'registry'), 'must be a host:port pair or multiple pairs separated by commas'));
    else if (String(s.tenant ?? '').length >= 65) errs.push(fieldErrors.required(child(p, 'tenant'), 'must be a UUID and may not exceed a length of 64 characters'));
    else if (!hostPortPairs(s.registry)) errs.push(fieldErrors.invalid(child(p, 'registry'), s.registry, 'must be a host:port pair or multiple pairs separated by commas'));
    return [...errs, ...required(s, p, 'volume')];
  },
  cephfs: (s, p) => (!(s.monitors ?? []).length ? [fieldErrors.required(child(p, 'monitors'))] : []),
  iscsi: (s, p, pvName) => {
    const errs = required(s, p, 'targetPortal');
    if (typeof s.initiatorName === 'string' && `${pvName}:${s.targetPortal ?? ''}`.length > 64) {
      errs.push(fieldErrors.invalid(child(p, 'targetportal'), s.targetPortal ?? '',
        'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.'));
    }
    if (!s.iqn) errs.push(fieldErrors.required(child(p, 'iqn')));
    else errs.push(...iscsiNameErrors(s.iqn, child(p, 'iqn')));
    if ((s.lun ?? 0) < 0 || (s.lun ?? 0) > 255) errs.push(fieldErrors.invalid(child(p, 'lun'), s.lun, LUN_MSG));
    if ((s.chapAuthDiscovery || s.chapAuthSession) && !s.secretRef) errs.push(fieldErrors.required(child(p, 'secretRef')));
    if (s.secretRef && !s.secretRef.name) errs.push(fieldErrors.required(child(child(p, 'secretRef'), 'name')));
    if (typeof s.initiatorName === 'string') errs.push(...iscsiNameErrors(s.initiatorName, child(p, 'initiatorname')));
    return errs;
  },
  cinder: (s, p) => [...required(s, p, 'volumeID'),
    ...(s.secretRef ? required(s.secretRef, child(p, 'secretRef'), 'name', 'namespace') : [])],
  fc: (s, p) => {
    const errs: FieldError[] = [];
    const wwns = s.targetWWNs ?? [];
    const wwids = s.wwids ?? [];
    if (!wwns.length && !wwids.length) errs.push(fieldErrors.required(child(p, 'targetWWNs'), 'must specify either targetWWNs or wwids, but not both'));
    if (wwns.length && wwids.length) errs.push(fieldErrors.invalid(child(p, 'targetWWNs'), wwns, 'targetWWNs and wwids can not be specified simultaneously'));
    if (wwns.length) {
      if (s.lun === undefined || s.lun === null) errs.push(fieldErrors.required(child(p, 'lun'), 'lun is required if targetWWNs is specified'));
      else if (s.lun < 0 || s.lun > 255) errs.push(fieldErrors.invalid(child(p, 'lun'), s.lun, LUN_MSG));
    }
    return errs;
  },
  flexVolume: (s, p) => {
    const errs = required(s, p, 'driver');
    for (const k of Object.keys(s.options ?? {})) {
      const ns = `.${(k.includes('/') ? k.slice(0, k.indexOf('/')) : k).toLowerCase()}`;
      if (ns.endsWith('.kubernetes.io') || ns.endsWith('.k8s.io')) {
        errs.push(fieldErrors.invalid(`${child(p, 'options')}[${k}]`, k, 'kubernetes.io and k8s.io namespaces are reserved'));
      }
    }
    return errs;
  },
  azureFile: (s, p) => [...required(s, p, 'secretName', 'shareName'),
    ...(s.secretNamespace === '' ? [fieldErrors.required(child(p, 'secretNamespace'))] : [])],
  vsphereVolume: (s, p) => required(s, p, 'volumePath'),
  photonPersistentDisk: (s, p) => required(s, p, 'pdID'),
  portworxVolume: (s, p) => required(s, p, 'volumeID'),
  azureDisk: (s, p) => {
    const errs = required(s, p, 'diskName', 'diskURI');
    const uri = String(s.diskURI ?? '');
    if (s.cachingMode && !['None', 'ReadOnly', 'ReadWrite'].includes(s.cachingMode)) {
      errs.push(fieldErrors.notSupported(child(p, 'cachingMode'), s.cachingMode, ['None', 'ReadOnly', 'ReadWrite']));
    }
    if (s.kind && !['Dedicated', 'Managed', 'Shared'].includes(s.kind)) errs.push(fieldErrors.notSupported(child(p, 'kind'), s.kind, ['Dedicated', 'Managed', 'Shared']));
    if (s.kind === 'Managed' && !uri.startsWith('/subscriptions/')) {
      errs.push(fieldErrors.notSupported(child(p, 'diskURI'), uri, ['/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}']));
    }
    if (s.kind && s.kind !== 'Managed' && !uri.startsWith('https://')) {
      errs.push(fieldErrors.notSupported(child(p, 'diskURI'), uri, ['https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd']));
    }
    return errs;
  },
  scaleIO: (s, p) => required(s, p, 'gateway', 'system', 'volumeName'),
  local: (s, p) => (!s.path ? [fieldErrors.required(child(p, 'path'))] : noBacksteps(s.path, child(p, 'path'))),
  storageos: (s, p) => [
    ...(!s.volumeName ? [fieldErrors.required(child(p, 'volumeName'))] : label(s.volumeName, child(p, 'volumeName'))),
    ...(s.volumeNamespace ? label(s.volumeNamespace, child(p, 'volumeNamespace')) : []),
    ...(s.secretRef ? required(s.secretRef, child(p, 'secretRef'), 'name', 'namespace') : []),
  ],
  csi: (s, p) => [
    ...validateCsiDriverName(s.driver, child(p, 'driver')),
    ...required(s, p, 'volumeHandle'),
    ...['controllerPublishSecretRef', 'controllerExpandSecretRef', 'nodePublishSecretRef', 'nodeStageSecretRef']
      .filter((k) => s[k]).flatMap((k) => validateSecretReference(s[k], child(p, k))),
  ],
};

/** Sources in Kubernetes' checking order, with the path of their fields when it differs. */
const ORDER: Array<[string, string?]> = [
  ['hostPath'], ['gcePersistentDisk', 'persistentDisk'], ['awsElasticBlockStore'], ['glusterfs'], ['flocker'], ['nfs'],
  ['rbd'], ['quobyte'], ['cephfs'], ['iscsi'], ['cinder'], ['fc'], ['flexVolume'], ['azureFile'], ['vsphereVolume'],
  ['photonPersistentDisk'], ['portworxVolume'], ['azureDisk'], ['scaleIO'], ['local'], ['storageos'], ['csi'],
];

/** Every persistent source field name. */
export const PERSISTENT_SOURCE_FIELDS: string[] = ORDER.map(([k]) => k);

/** The source fields set on a volume spec. */
export const sourcesOf = (spec: Source): string[] => PERSISTENT_SOURCE_FIELDS.filter((k) => spec[k] !== undefined && spec[k] !== null);

/**
 * The sources of a volume spec at `path`: exactly one (a second is Forbidden at its own path,
 * none is Required at `path`), each checked. flexVolume is never the "second" one, as in Kubernetes.
 */
export function validatePersistentSources(spec: Source, pvName: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const [key, fieldsAt] of ORDER) {
    const s = spec[key];
    if (s === undefined || s === null) continue;
    const forbiddenAt = key === 'cephfs' ? 'cephFS' : key;
    if (count > 0 && key !== 'flexVolume') {
      errs.push(fieldErrors.forbidden(child(path, forbiddenAt), 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    errs.push(...CHECKS[key](s, child(path, fieldsAt ?? key), pvName));
  }
  if (!count) errs.push(fieldErrors.required(path, 'must specify a volume type'));
  return errs;
}

/** Kubernetes' defaults of the sources (iscsi interface, rbd pool/user/keyring, scaleIO, azureDisk, hostPath type). */
export function defaultPersistentSources(spec: Source): void {
  const set = (s: Source | undefined | null, values: Source) => {
    if (!s || typeof s !== 'object') return;
    for (const [k, v] of Object.entries(values)) if (s[k] === undefined || s[k] === null || s[k] === '') s[k] = v;
  };
  set(spec.iscsi, { iscsiInterface: 'default' });
  set(spec.rbd, { pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' });
  set(spec.scaleIO, { storageMode: 'ThinProvisioned', fsType: 'xfs' });
  if (spec.azureDisk && typeof spec.azureDisk === 'object') {
    const d = spec.azureDisk;
    d.cachingMode ??= 'ReadWrite';
    d.kind ??= 'Shared';
    d.fsType ??= 'ext4';
    d.readOnly ??= false;
  }
  if (spec.hostPath && typeof spec.hostPath === 'object') spec.hostPath.type ??= '';
}

/** Sources that accept mount options; the mount-options annotation is forbidden on the others. */
export const MOUNT_OPTION_SOURCES = ['gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'nfs', 'rbd', 'quobyte', 'iscsi',
  'cinder', 'cephfs', 'azureFile', 'vsphereVolume', 'azureDisk', 'photonPersistentDisk'];
