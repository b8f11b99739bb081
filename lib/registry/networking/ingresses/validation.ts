/**
 * Kubernetes' ValidateIngressCreate / ValidateIngressUpdate / ValidateIngressStatusUpdate
 * (pkg/apis/networking/validation, 1.32) over an Ingress's JSON: at least a default backend or
 * rules; hosts precise or `*.`-wildcard DNS names, never IPs; paths absolute for Exact and
 * Prefix and free of `//`, `/./`, `/../`, `%2f` and a `/..` or `/.` ending; each backend a
 * Service (name, port name xor number) or a typed resource, not both; the class name and TLS
 * secret names as object names; on create, the `kubernetes.io/ingress.class` annotation (the
 * flavor's spelling, ../annotations.ts) must
 * match spec.ingressClassName when both are set. Updates keep accepting TLS secret names and
 * wildcard-host rules that an older server stored invalid.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1035Label, isDns1123Subdomain, isPathSegmentName } from '../../../meta/validation';
import { portNameErrors, portNumErrors } from '../../core/pod-spec/ports';
import { ApiObject } from '../../../scheme/types';
import { invalidGo } from '../../../meta/go-print';
import { isWildcardDns1123Subdomain, looksLikeIp, validateIp } from '../formats';

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];

type Json = Record<string, unknown>;
interface Options { allowInvalidSecretName: boolean; allowInvalidWildcardHostRule: boolean }

const rec = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? v as Json : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(rec) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const ingressSpecOf = (obj: ApiObject): Json => rec(obj.spec);

function validateBackend(backend: Json, path: string): FieldError[] {
  const hasResource = backend.resource !== undefined && backend.resource !== null;
  const hasService = backend.service !== undefined && backend.service !== null;
  if (hasResource && hasService) return [fieldErrors.invalid(path, '', 'cannot set both resource and service backends')];
  if (hasResource) return validateTypedReference(rec(backend.resource), child(path, 'resource'));
  if (!hasService) return [fieldErrors.invalid(path, '', 'resource or service backend is required')];
  const errs: FieldError[] = [];
  const service = rec(backend.service);
  const name = str(service.name);
  if (!name) errs.push(fieldErrors.required(child(path, 'service.name')));
  // ValidateServiceName: a DNS-1035 label.
  else errs.push(...isDns1035Label(name).map((m) => fieldErrors.invalid(child(path, 'service.name'), name, m)));
  const port = rec(service.port);
  const portName = str(port.name);
  const portNumber = typeof port.number === 'number' ? port.number : 0;
  if (portName && portNumber) errs.push(fieldErrors.invalid(path, '', 'cannot set both port name & port number'));
  else if (portName) errs.push(...portNameErrors(portName).map((m) => fieldErrors.invalid(child(path, 'service.port.name'), portName, m)));
  else if (portNumber) errs.push(...portNumErrors(portNumber).map((m) => fieldErrors.invalid(child(path, 'service.port.number'), portNumber, m)));
  else errs.push(fieldErrors.required(path, 'port name or number is required'));
  return errs;
}

/** validateIngressTypedLocalObjectReference. */
function validateTypedReference(ref: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (ref.apiGroup !== undefined && ref.apiGroup !== null) {
    errs.push(...isDns1123Subdomain(str(ref.apiGroup)).map((m) => fieldErrors.invalid(child(path, 'apiGroup'), ref.apiGroup, m)));
  }
  for (const f of ['kind', 'name'] as const) {
    const v = str(ref[f]);
    if (!v) errs.push(fieldErrors.required(child(path, f)));
    else errs.push(...isPathSegmentName(v).map((m) => fieldErrors.invalid(child(path, f), v, m)));
  }
  return errs;
}

function validateHttpPath(p: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (p.pathType === undefined || p.pathType === null) return [fieldErrors.required(child(path, 'pathType'), 'pathType must be specified')];
  const value = str(p.path);
  const at = child(path, 'path');
  switch (p.pathType) {
    case 'Exact': case 'Prefix':
      if (!value.startsWith('/')) errs.push(fieldErrors.invalid(at, value, 'must be an absolute path'));
      for (const seq of INVALID_PATH_SEQUENCES) if (value.includes(seq)) errs.push(fieldErrors.invalid(at, value, `must not contain '${seq}'`));
      for (const suf of INVALID_PATH_SUFFIXES) if (value.endsWith(suf)) errs.push(fieldErrors.invalid(at, value, `cannot end with '${suf}'`));
      break;
    case 'ImplementationSpecific':
      if (value && !value.startsWith('/')) errs.push(fieldErrors.invalid(at, value, 'must be an absolute path'));
      break;
    default:
      errs.push(fieldErrors.notSupported(child(path, 'pathType'), p.pathType, PATH_TYPES));
  }
  errs.push(...validateBackend(rec(p.backend), child(path, 'backend')));
  return errs;
}

/** validateIngressRuleValue: an `http` rule needs paths, each valid. */
function validateRuleValue(rule: Json, path: string): FieldError[] {
  if (rule.http === undefined || rule.http === null) return [];
  const http = rec(rule.http);
  const paths = list(http.paths);
  const errs: FieldError[] = [];
  if (!paths.length) errs.push(fieldErrors.required(child(path, 'http.paths')));
  paths.forEach((p, i) => errs.push(...validateHttpPath(p, index(child(path, 'http.paths'), i))));
  return errs;
}

function validateRules(rules: Json[], path: string, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const at = index(path, i);
    const host = str(rule.host);
    let wildcard = false;
    if (host) {
      if (looksLikeIp(host)) errs.push(fieldErrors.invalid(child(at, 'host'), host, 'must be a DNS name, not an IP address'));
      if (host.includes('*')) {
        errs.push(...isWildcardDns1123Subdomain(host).map((m) => fieldErrors.invalid(child(at, 'host'), host, m)));
        wildcard = true;
      } else {
        errs.push(...isDns1123Subdomain(host).map((m) => fieldErrors.invalid(child(at, 'host'), host, m)));
      }
    }
    if (!wildcard || !opts.allowInvalidWildcardHostRule) errs.push(...validateRuleValue(rule, at));
  });
  return errs;
}

function validateTls(tls: Json[], path: string, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  tls.forEach((t, i) => {
    const at = index(path, i);
    (Array.isArray(t.hosts) ? t.hosts as unknown[] : []).forEach((h, j) => {
      const host = str(h);
      const check = host.includes('*') ? isWildcardDns1123Subdomain : isDns1123Subdomain;
      errs.push(...check(host).map((m) => fieldErrors.invalid(index(child(at, 'hosts'), j), host, m)));
    });
    const secret = str(t.secretName);
    if (!opts.allowInvalidSecretName && secret) {
      errs.push(...isDns1123Subdomain(secret).map((m) => fieldErrors.invalid(child(at, 'secretName'), secret, m)));
    }
  });
  return errs;
}

/** ValidateIngressSpec. */
export function validateIngressSpec(spec: Json, opts: Options, path = 'spec'): FieldError[] {
  const errs: FieldError[] = [];
  const rules = list(spec.rules);
  const hasDefault = spec.defaultBackend !== undefined && spec.defaultBackend !== null;
  if (!rules.length && !hasDefault) {
    // Go prints the empty slice with %#v.
    errs.push(invalidGo(path, Array.isArray(spec.rules) ? '[]networking.IngressRule{}' : '[]networking.IngressRule(nil)', 'either `defaultBackend` or `rules` must be specified'));
  }
  if (hasDefault) errs.push(...validateBackend(rec(spec.defaultBackend), child(path, 'defaultBackend')));
  if (rules.length) errs.push(...validateRules(rules, child(path, 'rules'), opts));
  const tls = list(spec.tls);
  if (tls.length) errs.push(...validateTls(tls, child(path, 'tls'), opts));
  if (spec.ingressClassName !== undefined && spec.ingressClassName !== null) {
    const name = str(spec.ingressClassName);
    errs.push(...isDns1123Subdomain(name).map((m) => fieldErrors.invalid(child(path, 'ingressClassName'), name, m)));
  }
  return errs;
}

/** ValidateIngressCreate (the spec part, and the class annotation against the class field). */
export function validateIngressCreate(obj: ApiObject, classAnnotation: string): FieldError[] {
  const spec = ingressSpecOf(obj);
  const errs = validateIngressSpec(spec, { allowInvalidSecretName: false, allowInvalidWildcardHostRule: false });
  const annotations = obj.metadata?.annotations ?? {};
  const className = spec.ingressClassName;
  if (classAnnotation in annotations && typeof className === 'string' && annotations[classAnnotation] !== className) {
    errs.push(fieldErrors.invalid(`annotations.${classAnnotation}`, annotations[classAnnotation], 'must match `ingressClassName` when both are specified'));
  }
  return errs;
}

/** ValidateIngressUpdate (the spec part): what the stored object already had invalid stays accepted. */
export function validateIngressUpdate(obj: ApiObject, old: ApiObject): FieldError[] {
  const oldSpec = ingressSpecOf(old);
  const allowInvalidSecretName = list(oldSpec.tls).some((t) => str(t.secretName) !== '' && isDns1123Subdomain(str(t.secretName)).length > 0);
  const allowInvalidWildcardHostRule = list(oldSpec.rules)
    .some((r) => str(r.host).includes('*') && validateRuleValue(r, '').length > 0);
  return validateIngressSpec(ingressSpecOf(obj), { allowInvalidSecretName, allowInvalidWildcardHostRule });
}

/** ValidateIngressLoadBalancerStatus (1.32): IPs valid, hostnames DNS names and not IPs. */
export function validateIngressStatus(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const path = 'status.loadBalancer.ingress';
  list(rec(rec(obj.status).loadBalancer).ingress).forEach((ing, i) => {
    const at = index(path, i);
    const ip = str(ing.ip);
    if (ip) errs.push(...validateIp(child(at, 'ip'), ip));
    const hostname = str(ing.hostname);
    if (hostname) {
      errs.push(...isDns1123Subdomain(hostname).map((m) => fieldErrors.invalid(child(at, 'hostname'), hostname, m)));
      if (looksLikeIp(hostname)) errs.push(fieldErrors.invalid(child(at, 'hostname'), hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

