/**
 * A ValidatingAdmissionPolicy and a ValidatingAdmissionPolicyBinding as the plugin uses them:
 * parsed once per stored version (resourceVersion), with every expression compiled in the
 * environment Kubernetes gives it. An expression that no longer compiles (stored by an older
 * server, or a library changed) keeps its error: evaluating it fails as Kubernetes' compile_error.
 */
import { CelProgram } from '../../cel';
import { ApiObject } from '../../scheme/types';
import { LabelSelector, isEmpty, labelSelectorFromObject } from '../../meta/label-selector';
import { PolicyEnvOptions, ResultKind, compilePolicyExpression } from '../../registry/admissionregistration/policy-cel';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const items = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** An expression compiled, or the error it did not compile with. */
export interface Compiled {
  expression: string;
  program?: CelProgram;
  error?: string;
}

export interface NamedRule {
  resourceNames: string[];
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope: string;
}

/** A parsed selector; undefined when it matches everything; an error string when it cannot be parsed. */
export type Selector = LabelSelector | undefined | { error: string };

export interface Match {
  namespaceSelector: Selector;
  objectSelector: Selector;
  resourceRules: NamedRule[];
  excludeResourceRules: NamedRule[];
  matchPolicy: 'Exact' | 'Equivalent';
}

export interface CompiledValidation extends Compiled {
  message: string;
  reason: string;
  messageExpression?: Compiled;
}

export interface CompiledPolicy {
  name: string;
  resourceVersion: string;
  failurePolicy: 'Fail' | 'Ignore';
  paramKind?: { apiVersion: string; kind: string };
  match?: Match;
  matchConditions: Array<Compiled & { name: string }>;
  variables: Array<Compiled & { name: string }>;
  validations: CompiledValidation[];
  auditAnnotations: Array<Compiled & { key: string }>;
}

export interface CompiledBinding {
  name: string;
  resourceVersion: string;
  policyName: string;
  paramRef?: { name: string; namespace: string; selector: Selector; parameterNotFoundAction: 'Allow' | 'Deny' };
  match?: Match;
  validationActions: string[];
}

export function parseSelector(v: unknown): Selector {
  if (v === undefined || v === null) return undefined;
  const { selector, errors } = labelSelectorFromObject(v, 'selector');
  if (errors.length || !selector) return { error: errors.map((e) => `${e.field}: ${e.message}`).join(', ') };
  return isEmpty(selector) ? undefined : selector;
}

function parseRule(r: Json): NamedRule {
  return {
    resourceNames: strings(r.resourceNames), operations: strings(r.operations), apiGroups: strings(r.apiGroups),
    apiVersions: strings(r.apiVersions), resources: strings(r.resources), scope: str(r.scope) || '*',
  };
}

export function parseMatch(v: unknown): Match | undefined {
  if (!isObject(v)) return undefined;
  return {
    namespaceSelector: parseSelector(v.namespaceSelector), objectSelector: parseSelector(v.objectSelector),
    resourceRules: items(v.resourceRules).map(parseRule), excludeResourceRules: items(v.excludeResourceRules).map(parseRule),
    matchPolicy: v.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
  };
}

function compileOne(expression: string, kind: ResultKind, opts: PolicyEnvOptions): Compiled {
  const r = compilePolicyExpression(expression, kind, opts);
  return r.ok ? { expression, program: r.program } : { expression, error: r.error };
}

export function compilePolicy(obj: ApiObject): CompiledPolicy {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const pk = isObject(spec.paramKind) ? { apiVersion: str(spec.paramKind.apiVersion), kind: str(spec.paramKind.kind) } : undefined;
  const variables = items(spec.variables);
  const opts: PolicyEnvOptions = { hasParams: !!pk, hasAuthorizer: true, composition: variables.length > 0 };
  return {
    name: obj.metadata?.name ?? '',
    resourceVersion: obj.metadata?.resourceVersion ?? '',
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    paramKind: pk,
    match: parseMatch(spec.matchConstraints),
    matchConditions: items(spec.matchConditions).map((c) => ({
      name: str(c.name), ...compileOne(str(c.expression), 'bool', { hasParams: !!pk, hasAuthorizer: true, composition: false }),
    })),
    variables: variables.map((v) => ({ name: str(v.name), ...compileOne(str(v.expression), 'any', opts) })),
    validations: items(spec.validations).map((v) => {
      const messageExpression = str(v.messageExpression).trim() ? compileOne(str(v.messageExpression), 'string', { ...opts, hasAuthorizer: false }) : undefined;
      return { ...compileOne(str(v.expression), 'bool', opts), message: str(v.message).trim(), reason: str(v.reason), messageExpression };
    }),
    auditAnnotations: items(spec.auditAnnotations).map((a) => ({ key: str(a.key), ...compileOne(str(a.valueExpression).trim(), 'string-or-null', opts) })),
  };
}

export function compileBinding(obj: ApiObject): CompiledBinding {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const pr = isObject(spec.paramRef) ? spec.paramRef : undefined;
  return {
    name: obj.metadata?.name ?? '',
    resourceVersion: obj.metadata?.resourceVersion ?? '',
    policyName: str(spec.policyName),
    paramRef: pr ? {
      name: str(pr.name), namespace: str(pr.namespace),
      // An absent selector with no name never happens (validation); `{}` selects every param object.
      selector: pr.selector === undefined || pr.selector === null ? undefined : parseSelector(pr.selector),
      parameterNotFoundAction: pr.parameterNotFoundAction === 'Allow' ? 'Allow' : 'Deny',
    } : undefined,
    match: parseMatch(spec.matchResources),
    validationActions: strings(spec.validationActions),
  };
}
