/**
 * kube-aggregator's APIService rules (1.32): the defaults of apiregistration/v1 (a service's port
 * is 443 when unset), the shape Go's decoding gives the object (omitempty fields left out,
 * groupPriorityMinimum and versionPriority always written), ValidateAPIService /
 * ValidateAPIServiceUpdate (the name is `<version>.<group>`, the group a DNS-1123 subdomain or
 * empty for v1 only, the version a DNS-1035 label, the two priorities in range, a local
 * APIService without caBundle or insecureSkipTLSVerify, a service with namespace, name and a
 * valid port, never insecureSkipTLSVerify beside a caBundle) and ValidateAPIServiceStatus (each
 * condition's status True, False or Unknown). Metadata itself is validated by the store.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1035Label, isDns1123Subdomain, isPathSegmentName } from '../../../meta/validation';
import { ApiObject } from '../../../scheme/types';

type Json = Record<string, unknown>;

export const DEFAULT_SERVICE_PORT = 443;
export const CONDITION_STATUSES = ['True', 'False', 'Unknown'];
const MAX_GROUP_PRIORITY = 20000;
const MAX_VERSION_PRIORITY = 1000;

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** The spec as Go holds it after decoding (zero values for what is absent). */
export interface SpecFields {
  service?: { namespace: string; name: string; port: number };
  group: string;
  version: string;
  insecureSkipTLSVerify: boolean;
  /** Bytes of the decoded caBundle. */
  caBundleBytes: number;
  groupPriorityMinimum: number;
  versionPriority: number;
}

export function specFields(obj: ApiObject): SpecFields {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const svc = isObject(spec.service) ? spec.service : undefined;
  return {
    service: svc && { namespace: str(svc.namespace), name: str(svc.name), port: typeof svc.port === 'number' ? svc.port : DEFAULT_SERVICE_PORT },
    group: str(spec.group),
    version: str(spec.version),
    insecureSkipTLSVerify: spec.insecureSkipTLSVerify === true,
    caBundleBytes: typeof spec.caBundle === 'string' ? Buffer.from(withoutNewlines(spec.caBundle), 'base64').length : 0,
    groupPriorityMinimum: num(spec.groupPriorityMinimum),
    versionPriority: num(spec.versionPriority),
  };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Go's base64 decoding skips line breaks. */
const withoutNewlines = (s: string): string => s.replace(/[\r\n]/g, '');

/** Go's []byte decoding of spec.caBundle: the reason when it is not base64. */
export function caBundleProblem(obj: ApiObject): string | undefined {
  const spec = obj.spec;
  if (!isObject(spec) || typeof spec.caBundle !== 'string' || BASE64.test(withoutNewlines(spec.caBundle))) return undefined;
  const v = withoutNewlines(spec.caBundle);
  const bad = v.search(/[^A-Za-z0-9+/=]/);
  return `illegal base64 data at input byte ${bad >= 0 ? bad : Math.max(0, v.length - (v.length % 4 || 4))}`;
}

/** Drops `obj[key]` when it holds Go's zero value for an omitempty field. */
function omitZero(o: Json, key: string, zero: unknown): void {
  if (o[key] === null || o[key] === zero) delete o[key];
}

/** One condition as Go writes it: type and status always, the rest omitempty. */
function normalizeCondition(c: unknown): unknown {
  if (!isObject(c)) return c;
  const out: Json = { ...c, type: c.type ?? '', status: c.status ?? '' };
  if (out.type === null) out.type = '';
  if (out.status === null) out.status = '';
  for (const k of ['lastTransitionTime', 'reason', 'message']) omitZero(out, k, '');
  return out;
}

/** The status as Go writes it: conditions omitted when empty. */
export function normalizeStatus(status: unknown): Json {
  if (!isObject(status)) return {};
  const out: Json = { ...status };
  if (Array.isArray(out.conditions) && out.conditions.length > 0) out.conditions = out.conditions.map(normalizeCondition);
  else delete out.conditions;
  return out;
}

/**
 * SetDefaults_ServiceReference and the shape Go's decoding gives the object, in place: spec and
 * status always objects, a service's port 443 when unset, omitempty fields at their zero value
 * left out, the two priorities written as 0 when absent (no omitempty).
 */
export function defaultApiService(obj: ApiObject): void {
  const o = obj as Json;
  if (!isObject(o.spec)) o.spec = {};
  const spec = o.spec as Json;
  if (isObject(spec.service)) {
    const svc = { ...spec.service };
    if (svc.port === undefined || svc.port === null) svc.port = DEFAULT_SERVICE_PORT;
    omitZero(svc, 'namespace', '');
    omitZero(svc, 'name', '');
    spec.service = svc;
  } else {
    delete spec.service;
  }
  omitZero(spec, 'group', '');
  omitZero(spec, 'version', '');
  omitZero(spec, 'insecureSkipTLSVerify', false);
  omitZero(spec, 'caBundle', '');
  // As Go writes the bytes it read: base64 without the line breaks a client may have sent.
  if (typeof spec.caBundle === 'string' && /[\r\n]/.test(spec.caBundle)) spec.caBundle = Buffer.from(withoutNewlines(spec.caBundle), 'base64').toString('base64');
  omitZero(spec, 'caBundle', '');
  if (spec.groupPriorityMinimum === undefined || spec.groupPriorityMinimum === null) spec.groupPriorityMinimum = 0;
  if (spec.versionPriority === undefined || spec.versionPriority === null) spec.versionPriority = 0;
  o.status = normalizeStatus(o.status);
}

/** The name check kube-aggregator gives ValidateObjectMeta: a path segment, and exactly `<version>.<group>`. */
function nameErrors(obj: ApiObject, required: string): FieldError[] {
  const errs: FieldError[] = [];
  const { name, generateName } = obj.metadata ?? {};
  // The store has reported a bad path segment (and an empty name) already.
  if (typeof name === 'string' && name && !isPathSegmentName(name).length && name !== required) {
    errs.push(fieldErrors.invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`));
  }
  if (typeof generateName === 'string' && generateName && !isPathSegmentName(generateName, true).length && generateName !== required) {
    errs.push(fieldErrors.invalid('metadata.generateName', generateName, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`));
  }
  return errs;
}

/** ValidateAPIService, less the metadata rules the store checks. */
export function validateApiService(obj: ApiObject): FieldError[] {
  const spec = specFields(obj);
  const errs = nameErrors(obj, `${spec.version}.${spec.group}`);
  if (!spec.group && spec.version !== 'v1') {
    errs.push(fieldErrors.required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  }
  if (spec.group) for (const m of isDns1123Subdomain(spec.group)) errs.push(fieldErrors.invalid('spec.group', spec.group, m));
  for (const m of isDns1035Label(spec.version)) errs.push(fieldErrors.invalid('spec.version', spec.version, m));
  if (spec.groupPriorityMinimum <= 0 || spec.groupPriorityMinimum > MAX_GROUP_PRIORITY) {
    errs.push(fieldErrors.invalid('spec.groupPriorityMinimum', spec.groupPriorityMinimum, `must be positive and less than ${MAX_GROUP_PRIORITY}`));
  }
  if (spec.versionPriority <= 0 || spec.versionPriority > MAX_VERSION_PRIORITY) {
    errs.push(fieldErrors.invalid('spec.versionPriority', spec.versionPriority, `must be positive and less than ${MAX_VERSION_PRIORITY}`));
  }
  const svc = spec.service;
  if (!svc) {
    if (spec.caBundleBytes) errs.push(fieldErrors.invalid('spec.caBundle', `${spec.caBundleBytes} bytes`, 'local APIServices may not have a caBundle'));
    if (spec.insecureSkipTLSVerify) errs.push(fieldErrors.invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  if (!svc.namespace) errs.push(fieldErrors.required('spec.service.namespace'));
  if (!svc.name) errs.push(fieldErrors.required('spec.service.name'));
  if (!Number.isInteger(svc.port) || svc.port < 1 || svc.port > 65535) {
    errs.push(fieldErrors.invalid('spec.service.port', svc.port, 'port is not valid: must be between 1 and 65535, inclusive'));
  }
  if (spec.insecureSkipTLSVerify && spec.caBundleBytes > 0) {
    errs.push(fieldErrors.invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  }
  return errs;
}

/** ValidateAPIServiceStatus: every condition's status is True, False or Unknown. */
export function validateApiServiceStatus(obj: ApiObject): FieldError[] {
  const status = isObject(obj.status) ? obj.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  const errs: FieldError[] = [];
  conditions.forEach((c, i) => {
    const s = isObject(c) ? str(c.status) : '';
    if (!CONDITION_STATUSES.includes(s)) errs.push(fieldErrors.notSupported(child(index('status.conditions', i), 'status'), s, CONDITION_STATUSES));
  });
  return errs;
}
