/**
 * Node defaults and validation as Kubernetes 1.32 has them: SetDefaults_NodeStatus (allocatable
 * from capacity), the v1 <-> internal conversion of the pod CIDRs (podCIDR is podCIDRs[0]), the
 * shape Go serialises (daemonEndpoints and nodeInfo always written), and ValidateNode /
 * ValidateNodeUpdate / ValidateNodeSpecificAnnotations / validateNodeTaints of
 * pkg/apis/core/validation with their field paths and messages (taints are checked under
 * `metadata.taints`, as Kubernetes does).
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { goQuote, goStrings, invalidGo } from '../../../meta/go-print';
import { isQualifiedName, isValidLabelValue } from '../../../meta/validation';
import { Quantity, formatQuantity, roundUp, tryParseQuantity } from '../../../meta/quantity';
import { ApiObject } from '../../../scheme/types';
import { Json, isObject, items, record, records, text } from '../json-fields';
import { canonicalResourceList, validateNonnegativeQuantity } from '../resource-quantities';
import { cidrFamily } from './cidr';

export const specOf = (obj: ApiObject): Json => (isObject(obj.spec) ? obj.spec : {});
export const statusOf = (obj: ApiObject): Json => (isObject(obj.status) ? obj.status : {});

const SYSTEM_INFO = ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion',
  'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture'];

/** The spec as the internal type holds it: podCIDR mirrors podCIDRs[0] (or fills it). */
function normalizeSpec(spec: Json): void {
  const cidrs = items(spec, 'podCIDRs');
  if (cidrs.length > 0) spec.podCIDR = cidrs[0];
  else if (text(spec, 'podCIDR')) spec.podCIDRs = [spec.podCIDR];
}

/**
 * The status as Go writes it, with SetDefaults_NodeStatus: quantities canonical, allocatable
 * copied from capacity when absent, and the value structs daemonEndpoints (Port always) and
 * nodeInfo (every string always) present.
 */
export function normalizeNodeStatus(status: Json): Json {
  if (isObject(status.capacity)) status.capacity = canonicalResourceList(status.capacity);
  if (isObject(status.allocatable)) status.allocatable = canonicalResourceList(status.allocatable);
  else if (isObject(status.capacity)) status.allocatable = { ...status.capacity };
  const endpoints = isObject(status.daemonEndpoints) ? status.daemonEndpoints : {};
  const kubelet = isObject(endpoints.kubeletEndpoint) ? endpoints.kubeletEndpoint : {};
  status.daemonEndpoints = { ...endpoints, kubeletEndpoint: { ...kubelet, Port: typeof kubelet.Port === 'number' ? kubelet.Port : 0 } };
  const info = isObject(status.nodeInfo) ? status.nodeInfo : {};
  status.nodeInfo = { ...info, ...Object.fromEntries(SYSTEM_INFO.map((k) => [k, typeof info[k] === 'string' ? info[k] : ''])) };
  return status;
}

/** Defaults of a Node and the shape it is stored in. */
export function defaultNode(obj: ApiObject): void {
  if (!isObject(obj.spec)) obj.spec = {};
  normalizeSpec(obj.spec as Json);
  obj.status = normalizeNodeStatus(isObject(obj.status) ? obj.status : {});
}

const PREFER_AVOID_PODS = 'scheduler.alpha.kubernetes.io/preferAvoidPods';

/** ValidateNodeSpecificAnnotations: the scheduler's preferAvoidPods entries name controllers. */
export function validateNodeSpecificAnnotations(annotations: Record<string, string> | undefined, path = 'metadata.annotations'): FieldError[] {
  const raw = annotations?.[PREFER_AVOID_PODS];
  if (!raw) return [];
  let avoids: unknown;
  try {
    avoids = JSON.parse(raw);
  } catch (e) {
    return [fieldErrors.invalid(child(path, 'AvoidPods'), PREFER_AVOID_PODS, (e as Error).message)];
  }
  const errs: FieldError[] = [];
  (isObject(avoids) ? records(avoids, 'preferAvoidPods') : []).forEach((entry, i) => {
    const at = index(child(path, PREFER_AVOID_PODS), i);
    const controller = record(record(entry, 'podSignature') ?? {}, 'podController');
    if (!controller) errs.push(fieldErrors.required(child(at, 'PodSignature')));
    else if (controller.controller !== true) {
      errs.push(fieldErrors.invalid(`${at}.PodSignature.PodController.Controller`, false, 'must point to a controller'));
    }
  });
  return errs;
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** A Taint as Go's %#v prints it (field.Duplicate's value). */
function goTaint(t: Json): string {
  const added = typeof t.timeAdded === 'string' ? `time.Date(${t.timeAdded})` : '(*v1.Time)(nil)';
  return `core.Taint{Key:${goQuote(text(t, 'key'))}, Value:${goQuote(text(t, 'value'))}, Effect:${goQuote(text(t, 'effect'))}, TimeAdded:${added}}`;
}

/** validateNodeTaints: qualified-name keys, label values, a known effect, unique by key and effect. */
export function validateNodeTaints(taints: Json[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  taints.forEach((taint, i) => {
    const at = index(path, i);
    const key = text(taint, 'key');
    for (const m of isQualifiedName(key)) errs.push(fieldErrors.invalid(child(at, 'key'), key, m));
    const value = text(taint, 'value');
    const valueErrs = isValidLabelValue(value);
    if (valueErrs.length) errs.push(fieldErrors.invalid(child(at, 'value'), value, valueErrs.join(';')));
    const effect = text(taint, 'effect');
    if (!effect) errs.push(fieldErrors.required(child(at, 'effect')));
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(fieldErrors.notSupported(child(at, 'effect'), effect, TAINT_EFFECTS));
    const id = JSON.stringify([effect, key]);
    if (seen.has(id)) {
      errs.push({ type: 'FieldValueDuplicate', field: at, message: `Duplicate value: ${goTaint(taint)}: taints must be unique by key and effect pair` });
      return;
    }
    seen.add(id);
  });
  return errs;
}

const STANDARD_INTEGER_RESOURCES = new Set(['pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets',
  'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);

/** IsIntegerResourceName: the counted resources and extended resources (a domain of their own). */
function isIntegerResource(name: string): boolean {
  if (STANDARD_INTEGER_RESOURCES.has(name)) return true;
  const native = !name.includes('/') || name.includes('kubernetes.io/');
  return !native && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
}

/** MilliValue() % 1000 == 0: the amount rounded up to milli units is whole. */
function wholeInMilli(q: Quantity): boolean {
  const m = roundUp(q, -3);
  return m.scale >= 0 || m.value % (10n ** BigInt(-m.scale)) === 0n;
}

/** ValidateNodeResources: capacity and allocatable are non-negative, integers where counted. */
function validateNodeResources(status: Json): FieldError[] {
  const errs: FieldError[] = [];
  for (const list of ['capacity', 'allocatable']) {
    for (const [name, raw] of Object.entries(record(status, list) ?? {})) {
      const at = `status.${list}.${name}`;
      errs.push(...validateNonnegativeQuantity(raw, at));
      const q = tryParseQuantity(raw);
      if (q && isIntegerResource(name) && !wholeInMilli(q)) errs.push(fieldErrors.invalid(at, formatQuantity(q), 'must be an integer'));
    }
  }
  return errs;
}

/** ValidateNode: the spec and the status fields a node may report on create. */
export function validateNode(obj: ApiObject): FieldError[] {
  const spec = specOf(obj);
  const errs = [...validateNodeSpecificAnnotations(obj.metadata?.annotations)];
  const taints = records(spec, 'taints');
  if (taints.length) errs.push(...validateNodeTaints(taints, 'metadata.taints'));
  errs.push(...validateNodeResources(statusOf(obj)));
  const cidrs = items(spec, 'podCIDRs').map((c) => String(c));
  const path = 'spec.podCIDRs';
  cidrs.forEach((c, i) => {
    if (!cidrFamily(c)) errs.push(fieldErrors.invalid(index(path, i), c, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'));
  });
  if (cidrs.length > 1) {
    const families = new Set(cidrs.map(cidrFamily));
    if (cidrs.length > 2 || !(families.has(4) && families.has(6))) {
      errs.push(invalidGo(path, goStrings(cidrs), 'may specify no more than one CIDR for each IP family'));
    }
    const seen = new Set<string>();
    cidrs.forEach((c, i) => {
      if (seen.has(c)) errs.push(fieldErrors.duplicate(index(path, i), c));
      seen.add(c);
    });
  }
  return errs;
}

/** ValidateNodeUpdate (the object-meta update rules are the store's). */
export function validateNodeUpdate(obj: ApiObject, old: ApiObject): FieldError[] {
  const spec = specOf(obj);
  const oldSpec = specOf(old);
  const status = statusOf(obj);
  const errs = [...validateNodeSpecificAnnotations(obj.metadata?.annotations), ...validateNodeResources(status)];
  const seen = new Set<string>();
  records(status, 'addresses').forEach((a, i) => {
    const id = JSON.stringify([text(a, 'type'), text(a, 'address')]);
    if (seen.has(id)) {
      errs.push({ type: 'FieldValueDuplicate', field: `status.addresses[${i}]`, message: `Duplicate value: core.NodeAddress{Type:${goQuote(text(a, 'type'))}, Address:${goQuote(text(a, 'address'))}}` });
    }
    seen.add(id);
  });
  const oldCidrs = items(oldSpec, 'podCIDRs');
  const cidrs = items(spec, 'podCIDRs');
  const cidrMessage = 'node updates may not change podCIDR except from "" to valid';
  if (oldCidrs.length > 0) {
    if (oldCidrs.length !== cidrs.length) errs.push(fieldErrors.forbidden('spec.podCIDRs', cidrMessage));
    else oldCidrs.forEach((c, i) => { if (c !== cidrs[i]) errs.push(fieldErrors.forbidden('spec.podCIDRs', cidrMessage)); });
  }
  const oldProvider = text(oldSpec, 'providerID');
  if (oldProvider && oldProvider !== text(spec, 'providerID')) {
    errs.push(fieldErrors.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  const taints = records(spec, 'taints');
  if (taints.length) errs.push(...validateNodeTaints(taints, 'metadata.taints'));
  if (text(spec, 'externalID') !== text(oldSpec, 'externalID')) errs.push(fieldErrors.forbidden('spec.externalID', 'may not be updated'));
  return errs;
}
