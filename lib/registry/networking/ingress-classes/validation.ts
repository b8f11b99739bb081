/**
 * Kubernetes' ValidateIngressClass / ValidateIngressClassUpdate (pkg/apis/networking/validation,
 * 1.32) over an IngressClass's JSON: spec.controller required, a domain-prefixed path of at most
 * 250 bytes, immutable; spec.parameters naming a kind and a name (path segments), an optional
 * DNS-subdomain apiGroup, and a scope, Cluster (no namespace) or Namespace (a namespace name).
 * Defaults (SetDefaults_IngressClass): parameters.scope is Cluster when unset.
 */
import { FieldError, child, fieldErrors } from '../../../meta/field-errors';
import { isDns1123Label, isDns1123Subdomain, isPathSegmentName } from '../../../meta/validation';
import { ApiObject } from '../../../scheme/types';
import { validateDomainPrefixedPath } from '../formats';

type Json = Record<string, unknown>;
const MAX_CONTROLLER_LENGTH = 250;
const SCOPES = ['Cluster', 'Namespace'];

const rec = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? v as Json : {});
const set = (v: unknown): boolean => v !== undefined && v !== null;
export const ingressClassSpecOf = (obj: ApiObject): Json => rec(obj.spec);

/** SetDefaults_IngressClass. */
export function defaultIngressClass(obj: ApiObject): void {
  const params = ingressClassSpecOf(obj).parameters;
  if (params && typeof params === 'object' && !Array.isArray(params) && !set((params as Json).scope)) (params as Json).scope = 'Cluster';
}

function validateParameters(params: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (set(params.apiGroup)) {
    errs.push(...isDns1123Subdomain(String(params.apiGroup)).map((m) => fieldErrors.invalid(child(path, 'apiGroup'), params.apiGroup, m)));
  }
  for (const f of ['kind', 'name'] as const) {
    const v = typeof params[f] === 'string' ? params[f] as string : '';
    if (!v) errs.push(fieldErrors.required(child(path, f)));
    else errs.push(...isPathSegmentName(v).map((m) => fieldErrors.invalid(child(path, f), v, m)));
  }
  if (!set(params.scope)) return [...errs, fieldErrors.required(child(path, 'scope'))];
  const scope = String(params.scope);
  if (!SCOPES.includes(scope)) return [...errs, fieldErrors.notSupported(child(path, 'scope'), scope, SCOPES)];
  if (scope === 'Namespace') {
    if (!set(params.namespace)) errs.push(fieldErrors.required(child(path, 'namespace'), "`parameters.scope` is set to 'Namespace'"));
    else errs.push(...isDns1123Label(String(params.namespace)).map((m) => fieldErrors.invalid(child(path, 'namespace'), params.namespace, m)));
  }
  if (scope === 'Cluster' && set(params.namespace)) errs.push(fieldErrors.forbidden(child(path, 'namespace'), "`parameters.scope` is set to 'Cluster'"));
  return errs;
}

/** validateIngressClassSpec. */
export function validateIngressClassSpec(spec: Json, path = 'spec'): FieldError[] {
  const errs: FieldError[] = [];
  const controller = typeof spec.controller === 'string' ? spec.controller : '';
  const at = child(path, 'controller');
  if (!controller) errs.push(fieldErrors.required(at));
  else {
    if (Buffer.byteLength(controller) > MAX_CONTROLLER_LENGTH) errs.push(fieldErrors.tooLong(at, MAX_CONTROLLER_LENGTH));
    errs.push(...validateDomainPrefixedPath(at, controller));
  }
  if (set(spec.parameters)) errs.push(...validateParameters(rec(spec.parameters), child(path, 'parameters')));
  return errs;
}

/** ValidateIngressClassUpdate (the spec part): the controller is immutable, then the spec is checked as on create. */
export function validateIngressClassUpdate(obj: ApiObject, old: ApiObject): FieldError[] {
  const controller = ingressClassSpecOf(obj).controller ?? '';
  const errs: FieldError[] = [];
  if (controller !== (ingressClassSpecOf(old).controller ?? '')) errs.push(fieldErrors.immutable('spec.controller', controller));
  return [...errs, ...validateIngressClassSpec(ingressClassSpecOf(obj))];
}
