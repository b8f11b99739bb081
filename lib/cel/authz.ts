/**
 * Kubernetes' authorizer CEL library (k8s.io/apiserver/pkg/cel/library/authz.go, with 1.31+'s
 * authzSelectors): the `authorizer` variable of admission match conditions and policies, asking the
 * server's authorization whether the request's user (or a service account) may do something:
 *
 *   authorizer.path('/healthz').check('get').allowed()
 *   authorizer.group('apps').resource('deployments').subresource('status').namespace('ns').name('n').check('update')
 *   authorizer.serviceAccount('ns', 'sa').group('').resource('pods').fieldSelector('spec.nodeName=n').check('list')
 *   authorizer.requestResource.check('update')   // the request's own resource (admission)
 *   decision.allowed() / .reason() / .errored() / .error()
 *
 * Binding: the environment declares the types and functions (for the purposes that have an
 * authorizer); an evaluation binds `authorizer` to `celAuthorizer(authorize, user, requestResource)`,
 * where `authorize` is the server's authorization (lib/authz's chain fits the callback's shape).
 * `check` awaits that callback, so such programs are evaluated with `program.evaluateAsync`: the
 * chain may call a webhook, and what is checked depends on values only known while evaluating, so
 * nothing can be computed beforehand. Errors (empty path, bad service-account names) are evaluation
 * errors with Kubernetes' messages.
 */

import type { Environment, RegisterTypeDefinition } from '@marcbachmann/cel-js';
import { registerLibrary, type CelPurpose, type CelVariable } from './environment';
import { isDns1123Label, isDns1123Subdomain } from '../meta/validation';
import type { UserInfo } from '../meta/user';

export const AUTHORIZER_TYPE = 'kubernetes.authorization.Authorizer';
export const PATH_CHECK_TYPE = 'kubernetes.authorization.PathCheck';
export const GROUP_CHECK_TYPE = 'kubernetes.authorization.GroupCheck';
export const RESOURCE_CHECK_TYPE = 'kubernetes.authorization.ResourceCheck';
export const DECISION_TYPE = 'kubernetes.authorization.Decision';

/** What one check asks (the shape of lib/authz's AuthorizationAttributes, plus the label selector). */
export interface CelAuthzAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  /** Always '*' for resource checks, as Kubernetes asks. */
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  fieldSelector?: string;
  labelSelector?: string;
}

/** The answer of one check (the shape of lib/authz's AuthorizationResult). */
export interface CelAuthzResult {
  decision: 'allow' | 'deny' | 'no-opinion';
  reason: string;
  error?: string;
}

export type CelAuthorizeFn = (attrs: CelAuthzAttributes) => CelAuthzResult | Promise<CelAuthzResult>;

/** The request's own resource, for `authorizer.requestResource`. */
export interface CelRequestResource {
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** The variables an environment with the authorizer declares. */
export const AUTHORIZER_VARIABLE: CelVariable = { name: 'authorizer', type: AUTHORIZER_TYPE };

/** The purposes whose expressions see `authorizer` (admission: webhook match conditions and policies). */
const PURPOSES: readonly CelPurpose[] = ['match-condition', 'admission-policy'];

interface Binding {
  authorize: CelAuthorizeFn;
  user: UserInfo;
}

class ResourceCheckVal {
  constructor(readonly binding: Binding, readonly group: string, readonly resource: string,
    readonly subresource = '', readonly namespace = '', readonly name = '',
    readonly fieldSelector = '', readonly labelSelector = '') {}

  with(change: Partial<Pick<ResourceCheckVal, 'subresource' | 'namespace' | 'name' | 'fieldSelector' | 'labelSelector'>>): ResourceCheckVal {
    const n = { ...this, ...change };
    return new ResourceCheckVal(this.binding, this.group, this.resource, n.subresource, n.namespace, n.name, n.fieldSelector, n.labelSelector);
  }
}

class AuthorizerVal {
  readonly requestResource?: ResourceCheckVal;
  constructor(readonly binding: Binding, request?: CelRequestResource) {
    if (request) {
      this.requestResource = new ResourceCheckVal(binding, request.group, request.resource,
        request.subresource ?? '', request.namespace ?? '', request.name ?? '');
    }
  }
}

class PathCheckVal {
  constructor(readonly binding: Binding, readonly path: string) {}
}

class GroupCheckVal {
  constructor(readonly binding: Binding, readonly group: string) {}
}

class DecisionVal {
  constructor(readonly result: CelAuthzResult) {}
}

/** The key under which the activation value carries its binding (a closure survives JSON-value conversion). */
const BINDING_KEY = '__kubernetesAuthorizer';

/**
 * The value to bind `authorizer` to for one evaluation: checks ask `authorize` for `user`;
 * `requestResource` (admission) is what `authorizer.requestResource` checks.
 */
export function celAuthorizer(authorize: CelAuthorizeFn, user: UserInfo, requestResource?: CelRequestResource): Record<string, unknown> {
  const value = new AuthorizerVal({ authorize, user }, requestResource);
  return { [BINDING_KEY]: () => value };
}

function convertAuthorizer(v: unknown): AuthorizerVal | undefined {
  if (v instanceof AuthorizerVal) return v;
  const get = v instanceof Map ? v.get(BINDING_KEY) : (v as Record<string, unknown> | null)?.[BINDING_KEY];
  if (typeof get !== 'function') return undefined;
  const bound = (get as () => unknown)();
  return bound instanceof AuthorizerVal ? bound : undefined;
}

/** Kubernetes' service-account user: the name and the two service-account groups. */
function serviceAccountUser(namespace: string, name: string): UserInfo {
  return { name: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] };
}

async function decide(binding: Binding, attrs: Omit<CelAuthzAttributes, 'user'>): Promise<DecisionVal> {
  try {
    const r = await binding.authorize({ ...attrs, user: binding.user });
    return new DecisionVal(r);
  } catch (e) {
    return new DecisionVal({ decision: 'no-opinion', reason: '', error: (e as Error).message });
  }
}

function method(env: Environment, receiverType: string, name: string, params: string[], returnType: string,
  handler: (...args: never[]) => unknown, async = false): void {
  env.registerFunction({
    name, receiverType, returnType, handler: handler as (...args: unknown[]) => unknown,
    params: params.map((type, i) => ({ name: `arg${i}`, type })), async,
  } as Parameters<Environment['registerFunction']>[0]);
}

function install(env: Environment, purpose: CelPurpose): void {
  if (!PURPOSES.includes(purpose)) return;
  env.registerType(DECISION_TYPE, { ctor: DecisionVal, fields: {} });
  env.registerType(PATH_CHECK_TYPE, { ctor: PathCheckVal, fields: {} });
  env.registerType(GROUP_CHECK_TYPE, { ctor: GroupCheckVal, fields: {} });
  env.registerType(RESOURCE_CHECK_TYPE, { ctor: ResourceCheckVal, fields: {} });
  env.registerType(AUTHORIZER_TYPE, {
    ctor: AuthorizerVal, fields: { requestResource: RESOURCE_CHECK_TYPE },
    convert: convertAuthorizer,
  } as RegisterTypeDefinition);

  method(env, AUTHORIZER_TYPE, 'path', ['string'], PATH_CHECK_TYPE, (a: AuthorizerVal, path: string) => {
    if (!path.trim()) throw new Error('path must not be empty');
    return new PathCheckVal(a.binding, path);
  });
  method(env, AUTHORIZER_TYPE, 'group', ['string'], GROUP_CHECK_TYPE, (a: AuthorizerVal, group: string) => new GroupCheckVal(a.binding, group));
  method(env, AUTHORIZER_TYPE, 'serviceAccount', ['string', 'string'], AUTHORIZER_TYPE, (a: AuthorizerVal, namespace: string, name: string) => {
    if (isDns1123Subdomain(name).length) throw new Error('Invalid service account name');
    if (isDns1123Label(namespace).length) throw new Error('Invalid service account namespace');
    return new AuthorizerVal({ authorize: a.binding.authorize, user: serviceAccountUser(namespace, name) });
  });
  method(env, GROUP_CHECK_TYPE, 'resource', ['string'], RESOURCE_CHECK_TYPE, (g: GroupCheckVal, resource: string) => {
    if (!resource.trim()) throw new Error('resource must not be empty');
    return new ResourceCheckVal(g.binding, g.group, resource);
  });
  for (const field of ['subresource', 'namespace', 'name', 'fieldSelector', 'labelSelector'] as const) {
    method(env, RESOURCE_CHECK_TYPE, field, ['string'], RESOURCE_CHECK_TYPE, (r: ResourceCheckVal, v: string) => r.with({ [field]: v }));
  }
  method(env, PATH_CHECK_TYPE, 'check', ['string'], DECISION_TYPE, (p: PathCheckVal, verb: string) => decide(p.binding, {
    verb, isResourceRequest: false, path: p.path, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '',
  }), true);
  method(env, RESOURCE_CHECK_TYPE, 'check', ['string'], DECISION_TYPE, (r: ResourceCheckVal, verb: string) => decide(r.binding, {
    verb, isResourceRequest: true, path: '', apiGroup: r.group, apiVersion: '*', resource: r.resource, subresource: r.subresource,
    namespace: r.namespace, name: r.name,
    ...(r.fieldSelector ? { fieldSelector: r.fieldSelector } : {}),
    ...(r.labelSelector ? { labelSelector: r.labelSelector } : {}),
  }), true);
  method(env, DECISION_TYPE, 'allowed', [], 'bool', (d: DecisionVal) => d.result.decision === 'allow');
  method(env, DECISION_TYPE, 'reason', [], 'string', (d: DecisionVal) => d.result.reason);
  method(env, DECISION_TYPE, 'errored', [], 'bool', (d: DecisionVal) => !!d.result.error);
  method(env, DECISION_TYPE, 'error', [], 'string', (d: DecisionVal) => d.result.error ?? '');
}

registerLibrary(install);
