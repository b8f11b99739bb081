/**
 * Persistent-style sources (the shapes shared with PersistentVolume): csi, fc, flexVolume,
 * iscsi, photonPersistentDisk, portworxVolume, quobyte, scaleIO, storageos, vsphereVolume and
 * flocker, with Kubernetes' required fields and rules, and the spec's defaults (fsType ext4,
 * or xfs for scaleIO; readOnly false; iscsiInterface `default`; scaleIO ThinProvisioned, no SSL).
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1123Label, isDns1123Subdomain } from '../../../meta/validation';
import { Json, integer, items, record, setDefault, text } from '../json-fields';
import { SourceRule } from './source-rule';

const required = (src: Json, key: string, path: string, detail?: string): FieldError[] =>
  (text(src, key) ? [] : [fieldErrors.required(child(path, key), detail)]);
const dnsLabel = (value: string, path: string): FieldError[] => isDns1123Label(value).map((m) => fieldErrors.invalid(path, value, m));
const inRange = (lo: number, hi: number) => `must be between ${lo} and ${hi}, inclusive`;

/** Defaults for a source with fsType (`ext4` unless given) and, when `readOnly`, readOnly false. */
const fsDefaults = (fsType: string | undefined, readOnly: boolean) => (src: Json) => {
  if (fsType !== undefined) setDefault(src, 'fsType', fsType);
  if (readOnly) setDefault(src, 'readOnly', false);
};

/** ValidateCSIDriverName: required, at most 63 characters, a DNS subdomain (case ignored). */
export function validateCSIDriverName(driver: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!driver) errs.push(fieldErrors.required(path));
  if (driver.length > 63) errs.push(fieldErrors.tooLong(path, 63));
  return [...errs, ...isDns1123Subdomain(driver.toLowerCase()).map((m) => fieldErrors.invalid(path, driver, m))];
}

const csi: SourceRule = {
  validate: (src, path) => {
    const errs = validateCSIDriverName(text(src, 'driver'), child(path, 'driver'));
    const ref = record(src, 'nodePublishSecretRef');
    if (ref) {
      const name = text(ref, 'name');
      if (!name) errs.push(fieldErrors.required(child(child(path, 'nodePublishSecretRef'), 'name')));
      // Kubernetes reports a bad secret name on `csi.name`.
      else errs.push(...isDns1123Subdomain(name).map((m) => fieldErrors.invalid(child(path, 'name'), name, m)));
    }
    return errs;
  },
  defaults: fsDefaults(undefined, true),
};

const fc: SourceRule = {
  validate: (src, path) => {
    const errs: FieldError[] = [];
    const wwns = items(src, 'targetWWNs');
    const wwids = items(src, 'wwids');
    if (!wwns.length && !wwids.length) errs.push(fieldErrors.required(child(path, 'targetWWNs'), 'must specify either targetWWNs or wwids, but not both'));
    if (wwns.length && wwids.length) errs.push(fieldErrors.invalid(child(path, 'targetWWNs'), wwns, 'targetWWNs and wwids can not be specified simultaneously'));
    if (wwns.length) {
      const lun = integer(src, 'lun');
      if (lun === undefined) errs.push(fieldErrors.required(child(path, 'lun'), 'lun is required if targetWWNs is specified'));
      else if (lun < 0 || lun > 255) errs.push(fieldErrors.invalid(child(path, 'lun'), lun, inRange(0, 255)));
    }
    return errs;
  },
  defaults: fsDefaults('ext4', true),
};

const flexVolume: SourceRule = {
  validate: (src, path) => {
    const errs = required(src, 'driver', path);
    for (const key of Object.keys(record(src, 'options') ?? {})) {
      const namespace = key.includes('/') ? key.slice(0, key.indexOf('/')) : key;
      const normalized = `.${namespace.toLowerCase()}`;
      if (normalized.endsWith('.kubernetes.io') || normalized.endsWith('.k8s.io')) {
        errs.push(fieldErrors.invalid(index(child(path, 'options'), key), key, 'kubernetes.io and k8s.io namespaces are reserved'));
      }
    }
    return errs;
  },
  defaults: fsDefaults('ext4', true),
};

const IQN = /iqn\.\d{4}-\d{2}\.([A-Za-z0-9\-.]+)(:[^,;*&$|\s]+)$/;
const EUI = /^eui.[A-Za-z0-9]{16}$/;
const NAA = /^naa.[A-Za-z0-9]{32}$/;

/** Kubernetes' iSCSI name check: the first problem of an IQN/EUI/NAA name, if any. */
function iscsiNameProblem(name: string): string | undefined {
  if (!['iqn', 'eui', 'naa'].some((p) => name.startsWith(p))) return 'must be valid format starting with iqn, eui, or naa';
  if (name.startsWith('iqn') && !IQN.test(name)) return 'must be valid format';
  if (name.startsWith('eui') && !EUI.test(name)) return 'must be valid format';
  if (name.startsWith('naa') && !NAA.test(name)) return 'must be valid format';
  return undefined;
}

const iscsi: SourceRule = {
  validate: (src, path, ctx) => {
    const errs = required(src, 'targetPortal', path);
    const iqn = text(src, 'iqn');
    if (!iqn) errs.push(fieldErrors.required(child(path, 'iqn')));
    else {
      const problem = iscsiNameProblem(iqn);
      if (problem) errs.push(fieldErrors.invalid(child(path, 'iqn'), iqn, problem));
    }
    const lun = integer(src, 'lun') ?? 0;
    if (lun < 0 || lun > 255) errs.push(fieldErrors.invalid(child(path, 'lun'), lun, inRange(0, 255)));
    if ((src.chapAuthDiscovery === true || src.chapAuthSession === true) && !record(src, 'secretRef')) {
      errs.push(fieldErrors.required(child(path, 'secretRef')));
    }
    if (typeof src.initiatorName === 'string') {
      const problem = iscsiNameProblem(src.initiatorName);
      // Kubernetes spells this path in lower case.
      if (problem) errs.push(fieldErrors.invalid(child(path, 'initiatorname'), src.initiatorName, problem));
      if (`${ctx.volumeName}:${text(src, 'targetPortal')}`.length > 64) {
        errs.push(fieldErrors.invalid(child(ctx.volumePath, 'name'), ctx.volumeName,
          'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.'));
      }
    }
    return errs;
  },
  defaults: (src) => { setDefault(src, 'iscsiInterface', 'default'); fsDefaults('ext4', true)(src); },
};

/** Go's net.SplitHostPort succeeds on `hostport`. */
function isHostPort(hostport: string): boolean {
  const colon = hostport.lastIndexOf(':');
  if (colon < 0) return false;
  let hostStart = 0;
  let hostEnd = colon;
  if (hostport.startsWith('[')) {
    const end = hostport.indexOf(']');
    if (end < 0 || end + 1 !== colon) return false;
    hostStart = 1;
    hostEnd = end;
  } else if (hostport.slice(0, colon).includes(':')) return false;
  if (hostport.slice(hostStart).includes('[')) return false;
  return !hostport.slice(hostEnd + 1).includes(']');
}

const quobyte: SourceRule = {
  validate: (src, path) => {
    const errs: FieldError[] = [];
    const registry = text(src, 'registry');
    const pairsMsg = 'must be a host:port pair or multiple pairs separated by commas';
    if (!registry) errs.push(fieldErrors.required(child(path, 'registry'), pairsMsg));
    else if (text(src, 'tenant').length >= 65) {
      errs.push(fieldErrors.required(child(path, 'tenant'), 'must be a UUID and may not exceed a length of 64 characters'));
    } else {
      for (const pair of registry.split(',')) if (!isHostPort(pair)) errs.push(fieldErrors.invalid(child(path, 'registry'), registry, pairsMsg));
    }
    return [...errs, ...required(src, 'volume', path)];
  },
  defaults: fsDefaults(undefined, true),
};

const scaleIO: SourceRule = {
  validate: (src, path) => [...required(src, 'gateway', path), ...required(src, 'system', path), ...required(src, 'volumeName', path)],
  defaults: (src) => {
    setDefault(src, 'storageMode', 'ThinProvisioned');
    setDefault(src, 'sslEnabled', false);
    fsDefaults('xfs', true)(src);
  },
};

const storageos: SourceRule = {
  validate: (src, path) => {
    const name = text(src, 'volumeName');
    const namespace = text(src, 'volumeNamespace');
    const errs = name ? dnsLabel(name, child(path, 'volumeName')) : [fieldErrors.required(child(path, 'volumeName'))];
    if (namespace) errs.push(...dnsLabel(namespace, child(path, 'volumeNamespace')));
    const ref = record(src, 'secretRef');
    if (ref && !text(ref, 'name')) errs.push(fieldErrors.required(child(child(path, 'secretRef'), 'name')));
    return errs;
  },
  defaults: fsDefaults('ext4', true),
};

const flocker: SourceRule = {
  validate: (src, path) => {
    const errs: FieldError[] = [];
    const name = text(src, 'datasetName');
    const uuid = text(src, 'datasetUUID');
    if (!name && !uuid) errs.push(fieldErrors.required(path, 'one of datasetName and datasetUUID is required'));
    if (name && uuid) errs.push(fieldErrors.invalid(path, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'));
    if (name.includes('/')) errs.push(fieldErrors.invalid(child(path, 'datasetName'), name, "must not contain '/'"));
    return errs;
  },
};

/** The persistent-style sources by field name. */
export const persistentFamily: Record<string, SourceRule> = {
  csi,
  fc,
  flexVolume,
  iscsi,
  photonPersistentDisk: { validate: (src, path) => required(src, 'pdID', path), defaults: fsDefaults('ext4', false) },
  portworxVolume: { validate: (src, path) => required(src, 'volumeID', path), defaults: fsDefaults('ext4', true) },
  quobyte,
  scaleIO,
  storageos,
  vsphereVolume: { validate: (src, path) => required(src, 'volumePath', path), defaults: fsDefaults('ext4', false) },
  flocker,
};
