/**
 * RBAC escalation prevention (Kubernetes' policy-based RBAC storage): a user may write a Role or
 * ClusterRole only if holding every permission it grants or `escalate` on it, and a binding only
 * if holding every permission of the bound role or `bind` on it. Members of system:masters, and
 * in-process writers (controllers, bootstrap: no user), are never checked. Each check answers the
 * reason for a 403 in kube-apiserver's words, or undefined when the write may go ahead; the
 * admission plugin (lib/admission/rbac-escalation.ts) turns a reason into the Forbidden status.
 */
import { AuthorizationAttributes } from '../attributes';
import { Authorizer, RuleResolver, aggregateMessage } from '../authorizer';
import { SYSTEM_MASTERS, UserInfo } from '../../meta/user';
import { ApiObject } from '../../scheme/types';
import { uncoveredRules } from './covers';
import { BindingObject, PolicyRule, RoleObject, RoleRef } from '../../registry/rbac/types';

/** Where the checks read policy. */
export interface EscalationPolicy {
  /** The whole mode chain: any mode may grant `escalate` or `bind`. */
  authorizer: Authorizer;
  /** The RBAC rules a user holds (Kubernetes compares with RBAC's rules alone). */
  rules: RuleResolver;
  /** The rules of a Role (in `namespace`) or ClusterRole; undefined when there is none. */
  roleRules(kind: 'Role' | 'ClusterRole', namespace: string, name: string): Promise<readonly PolicyRule[] | undefined>;
}

/** `*` on everything: what setting an aggregationRule requires. */
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** Kubernetes' EscalationAllowed: no user (an in-process writer) or a member of system:masters. */
export function escalationAllowed(user: UserInfo | undefined): boolean {
  return !user || user.groups.includes(SYSTEM_MASTERS);
}

async function allowed(authorizer: Authorizer, attrs: AuthorizationAttributes): Promise<boolean> {
  try {
    return (await authorizer.authorize(attrs)).decision === 'allow';
  } catch {
    return false; // a mode that failed grants nothing
  }
}

const resourceAttributes = (user: UserInfo, verb: string, apiGroup: string, apiVersion: string, resource: string, namespace: string, name: string): AuthorizationAttributes =>
  ({ user, verb, isResourceRequest: true, path: '', httpMethod: '', apiGroup, apiVersion, resource, subresource: '', namespace, name });

/** What a write of a role is, as the checks see it. */
export interface RoleWrite {
  user: UserInfo;
  /** The RBAC API group. */
  group: string;
  resource: 'roles' | 'clusterroles';
  /** '' for a ClusterRole. */
  namespace: string;
  /** The name in the request path: '' for a create (POST), as kube-apiserver's escalate check sees it. */
  requestName: string;
  object: RoleObject;
  /** Present on update. */
  oldObject?: RoleObject;
}

/**
 * The reason a role write is refused, or undefined. `escalate` on the role (verb escalate,
 * version `*`) lets anything through; otherwise every rule must be covered by the user's RBAC
 * rules in the namespace, and a ClusterRole with an aggregationRule (before or after) needs `*`
 * on everything. An update that changes only what the garbage collector changes is not checked.
 */
export async function checkRoleWrite(policy: EscalationPolicy, w: RoleWrite): Promise<string | undefined> {
  if (escalationAllowed(w.user)) return undefined;
  if (await allowed(policy.authorizer, resourceAttributes(w.user, 'escalate', w.group, '*', w.resource, w.namespace, w.requestName))) return undefined;
  if (w.oldObject && onlyGcFieldsChanged(w.object, w.oldObject)) return undefined;
  const missing = await confirmNoEscalation(policy.rules, w.user, w.namespace, w.object.rules ?? []);
  if (missing) return missing;
  if (w.resource === 'clusterroles' && (hasAggregationRule(w.object) || (w.oldObject && hasAggregationRule(w.oldObject)))) {
    if (await confirmNoEscalation(policy.rules, w.user, w.namespace, FULL_AUTHORITY)) {
      return 'must have cluster-admin privileges to use the aggregationRule';
    }
  }
  return undefined;
}

function hasAggregationRule(role: RoleObject): boolean {
  return (role.aggregationRule?.clusterRoleSelectors?.length ?? 0) > 0;
}

/** What a write of a binding is, as the checks see it. */
export interface BindingWrite {
  user: UserInfo;
  /** The RBAC API group (where the bound role's not-found error says it lives). */
  group: string;
  /** The binding's namespace; '' for a ClusterRoleBinding. */
  namespace: string;
  object: BindingObject;
  oldObject?: BindingObject;
}

/**
 * The reason a binding write is refused, or undefined: allowed with `bind` on the referenced
 * role (in the binding's namespace), else the user must hold every rule of that role there; a
 * role that cannot be found is the reason itself.
 */
export async function checkBindingWrite(policy: EscalationPolicy, w: BindingWrite): Promise<string | undefined> {
  if (escalationAllowed(w.user)) return undefined;
  if (w.oldObject && onlyGcFieldsChanged(w.object, w.oldObject)) return undefined;
  const ref: Partial<RoleRef> = w.object.roleRef ?? {};
  const resource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : '';
  if (resource && await allowed(policy.authorizer, resourceAttributes(w.user, 'bind', ref.apiGroup ?? '', '', resource, w.namespace, ref.name ?? ''))) {
    return undefined;
  }
  if (!resource) return `unsupported role reference kind: ${goQuote(ref.kind ?? '')}`;
  const rules = ref.kind === 'Role' && !w.namespace ? undefined : await policy.roleRules(ref.kind as 'Role' | 'ClusterRole', w.namespace, ref.name ?? '');
  if (!rules) return `${resource}.${w.group} ${JSON.stringify(ref.name ?? '')} not found`;
  return confirmNoEscalation(policy.rules, w.user, w.namespace, rules);
}

/**
 * Kubernetes' ConfirmNoEscalation: undefined when the user's RBAC rules in `namespace`
 * (cluster-wide ones plus the namespace's) cover `rules`; else the message listing what is
 * missing, compacted, one rule per line, sorted, and the binding resolution errors met.
 */
export async function confirmNoEscalation(resolver: RuleResolver, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): Promise<string | undefined> {
  const held = await resolver.rulesFor(user, namespace);
  const missing = uncoveredRules(held.rules, rules);
  if (!missing.length) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${goQuote(user.name)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (held.errors.length) msg += `; resolution errors: [${aggregateMessage(held.errors.map(asStorageNotFound))}]`;
  return msg;
}

/**
 * kube-apiserver resolves roles for this check through storage, whose NotFound names the plural
 * resource (`clusterroles.<group> "x" not found`); the in-memory index words it as the
 * authorizer's lister does (`clusterrole.<group>`).
 */
function asStorageNotFound(message: string): string {
  return message.replace(/^(clusterrole|role)\./, '$1s.');
}


/**
 * Merges atomic rules of one group, one resource and at most one name that differ only in verbs
 * (Kubernetes' CompactRules over a Covers result); other rules are kept as they are.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const other: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const names = r.resourceNames ?? [];
    if (names.length > 1 || (r.nonResourceURLs?.length ?? 0) > 0 || r.apiGroups?.length !== 1 || r.resources?.length !== 1) {
      other.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups[0], r.resources[0], names.length ? names[0] : null]);
    const seen = simple.get(key);
    if (!seen) {
      simple.set(key, { ...r, verbs: [...(r.verbs ?? [])] });
      continue;
    }
    for (const v of r.verbs ?? []) if (!seen.verbs.includes(v)) seen.verbs.push(v);
  }
  return [...other, ...simple.values()];
}

/** Kubernetes' CompactString of a rule: `{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}`. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  const add = (label: string, v: readonly string[] | null | undefined) => { if (v?.length) parts.push(`${label}:${goQuoteList(v)}`); };
  add('APIGroups', r.apiGroups);
  add('Resources', r.resources);
  add('NonResourceURLs', r.nonResourceURLs);
  add('ResourceNames', r.resourceNames);
  add('Verbs', r.verbs);
  return `{${parts.join(', ')}}`;
}

const GO_ESCAPES: Record<string, string> = {
  '"': '\\"', '\\': '\\\\', '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v',
};

/** A string as Go's %q prints it (the messages are Go's). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (GO_ESCAPES[ch]) out += GO_ESCAPES[ch];
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c >= 0x80 && c < 0xa0) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** A list as Go's %q prints a []string: `["a" "b"]`. */
export function goQuoteList(list: readonly string[]): string {
  return `[${list.map(goQuote).join(' ')}]`;
}

/** Metadata the garbage collector changes (and what the server sets on every write). */
const GC_FIELDS = ['ownerReferences', 'finalizers', 'selfLink', 'managedFields', 'resourceVersion'];

/**
 * Kubernetes' IsOnlyMutatingGCFields: the objects are equal once owner references, finalizers,
 * selfLink and managedFields (and the resourceVersion, apiVersion and kind, which a write carries
 * or not) are set aside. Absent, null and empty values are equal, as Go sees them decoded.
 */
export function onlyGcFieldsChanged(obj: ApiObject, old: ApiObject): boolean {
  const strip = (o: ApiObject): Record<string, unknown> => {
    const { apiVersion: _v, kind: _k, metadata, ...rest } = o;
    const meta: Record<string, unknown> = { ...(metadata ?? {}) };
    for (const f of GC_FIELDS) delete meta[f];
    return { ...rest, metadata: meta };
  };
  return semanticEqual(strip(obj), strip(old));
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && Object.keys(v as object).length === 0;
}

function semanticEqual(a: unknown, b: unknown): boolean {
  if (isEmpty(a) && isEmpty(b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => semanticEqual(x, b[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(ra), ...Object.keys(rb)])) if (!semanticEqual(ra[k], rb[k])) return false;
  return true;
}
