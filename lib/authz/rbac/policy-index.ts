/**
 * The RBAC policy in memory: roles and cluster roles by name, bindings by subject. Fed by the
 * watch caches of the four kinds (lib/registry/resource-feed.ts), so that a decision reads
 * no etcd and looks only at the bindings naming the user, one of its groups or its service
 * account, never at every binding.
 */
import { UserInfo } from '../../meta/user';
import { PolicyRule, BindingObject, RoleObject, Subject, GROUP_KIND, SERVICE_ACCOUNT_KIND, USER_KIND } from '../../registry/rbac/types';

/** A binding as indexed: who it names and which role it grants. */
interface IndexedBinding {
  name: string;
  /** '' for a ClusterRoleBinding. */
  namespace: string;
  roleKind: string;
  roleName: string;
}

/** Where a rule came from, in Kubernetes' words for the authorizer's reason. */
export interface RuleSource {
  binding: IndexedBinding;
  subject: Subject;
}

/** Descriptions of the indexed sources (kept as long as the index holds them: a binding that changes is a new source). */
const descriptions = new WeakMap<RuleSource, string>();

export function describeSource(s: RuleSource): string {
  let text = descriptions.get(s);
  if (text === undefined) descriptions.set(s, (text = describe(s)));
  return text;
}

function describe(s: RuleSource): string {
  const b = s.binding;
  const subject = s.subject.kind === SERVICE_ACCOUNT_KIND
    ? `${s.subject.kind} ${JSON.stringify(`${s.subject.name}/${s.subject.namespace || b.namespace}`)}`
    : `${s.subject.kind} ${JSON.stringify(s.subject.name)}`;
  const binding = b.namespace ? `RoleBinding ${JSON.stringify(`${b.name}/${b.namespace}`)}` : `ClusterRoleBinding ${JSON.stringify(b.name)}`;
  return `${binding} of ${b.roleKind} ${JSON.stringify(b.roleName)} to ${subject}`;
}

/** Called per rule; answer true to stop. A binding to a missing role is reported through `error`. */
export type RuleVisitor = (source: RuleSource, rule: PolicyRule) => boolean;

type SubjectIndex = Map<string, Map<string, { binding: IndexedBinding; subject: Subject }>>;

const userKey = (name: string) => `u\u0000${name}`;
const groupKey = (name: string) => `g\u0000${name}`;

/** The index key of a subject ('' when it can never match: a service account without namespace). */
function subjectKey(s: Subject, bindingNamespace: string): string {
  if (s.kind === USER_KIND) return userKey(s.name);
  if (s.kind === GROUP_KIND) return groupKey(s.name);
  if (s.kind === SERVICE_ACCOUNT_KIND) {
    const ns = s.namespace || bindingNamespace;
    return ns ? userKey(`system:serviceaccount:${ns}:${s.name}`) : '';
  }
  return '';
}

export class PolicyIndex {
  private readonly clusterRoles = new Map<string, readonly PolicyRule[]>();
  /** namespace -> name -> rules */
  private readonly roles = new Map<string, Map<string, readonly PolicyRule[]>>();
  private readonly clusterBindings: SubjectIndex = new Map();
  /** namespace -> subject index */
  private readonly roleBindings = new Map<string, SubjectIndex>();
  /** `namespace/name` of a binding -> the subject keys it was indexed under (to drop them on change). */
  private readonly bindingKeys = new Map<string, string[]>();

  /** @param rbacGroup spelled in "not found" errors, e.g. `rbac.authorization.orch.io`. */
  constructor(private readonly rbacGroup: string) {}

  upsertClusterRole(obj: RoleObject): void {
    this.clusterRoles.set(obj.metadata?.name ?? '', obj.rules ?? []);
  }

  removeClusterRole(obj: RoleObject): void {
    this.clusterRoles.delete(obj.metadata?.name ?? '');
  }

  upsertRole(obj: RoleObject): void {
    const ns = obj.metadata?.namespace ?? '';
    let byName = this.roles.get(ns);
    if (!byName) this.roles.set(ns, (byName = new Map()));
    byName.set(obj.metadata?.name ?? '', obj.rules ?? []);
  }

  removeRole(obj: RoleObject): void {
    const ns = obj.metadata?.namespace ?? '';
    const byName = this.roles.get(ns);
    byName?.delete(obj.metadata?.name ?? '');
    if (byName && !byName.size) this.roles.delete(ns);
  }

  /** A RoleBinding (with metadata.namespace) or a ClusterRoleBinding (without). */
  upsertBinding(obj: BindingObject): void {
    const namespace = obj.metadata?.namespace ?? '';
    const name = obj.metadata?.name ?? '';
    this.dropBinding(namespace, name);
    const index = this.subjectIndex(namespace, true)!;
    const binding: IndexedBinding = { name, namespace, roleKind: obj.roleRef?.kind ?? '', roleName: obj.roleRef?.name ?? '' };
    const keys: string[] = [];
    for (const subject of obj.subjects ?? []) {
      const key = subject ? subjectKey(subject, namespace) : '';
      if (!key) continue;
      let entries = index.get(key);
      if (!entries) index.set(key, (entries = new Map()));
      // One binding may name the same subject twice; it grants once.
      if (entries.has(name)) continue;
      entries.set(name, { binding, subject });
      keys.push(key);
    }
    this.bindingKeys.set(`${namespace}/${name}`, keys);
  }

  removeBinding(obj: BindingObject): void {
    this.dropBinding(obj.metadata?.namespace ?? '', obj.metadata?.name ?? '');
  }

  private dropBinding(namespace: string, name: string): void {
    const id = `${namespace}/${name}`;
    const keys = this.bindingKeys.get(id);
    if (!keys) return;
    this.bindingKeys.delete(id);
    const index = this.subjectIndex(namespace, false);
    if (!index) return;
    for (const key of keys) {
      const entries = index.get(key);
      entries?.delete(name);
      if (entries && !entries.size) index.delete(key);
    }
    if (namespace && !index.size) this.roleBindings.delete(namespace);
  }

  private subjectIndex(namespace: string, create: boolean): SubjectIndex | undefined {
    if (!namespace) return this.clusterBindings;
    let index = this.roleBindings.get(namespace);
    if (!index && create) this.roleBindings.set(namespace, (index = new Map()));
    return index;
  }

  /** The rules of a ClusterRole, or undefined when there is none of that name. */
  clusterRoleRules(name: string): readonly PolicyRule[] | undefined {
    return this.clusterRoles.get(name);
  }

  /** The rules of a Role, or undefined when there is none of that name in the namespace. */
  roleRules(namespace: string, name: string): readonly PolicyRule[] | undefined {
    return this.roles.get(namespace)?.get(name);
  }

  /**
   * Visits the rules granted to the user: cluster-wide bindings first, then (with a namespace)
   * the namespace's bindings. Stops when the visitor answers true; answers whether it stopped.
   * `errors` collects bindings whose role is missing, in Kubernetes' words.
   */
  visitRules(user: UserInfo, namespace: string, visit: RuleVisitor, errors?: string[]): boolean {
    if (this.visitIndex(this.clusterBindings, user, '', visit, errors)) return true;
    if (!namespace) return false;
    const index = this.roleBindings.get(namespace);
    return index ? this.visitIndex(index, user, namespace, visit, errors) : false;
  }

  private visitIndex(index: SubjectIndex, user: UserInfo, namespace: string, visit: RuleVisitor, errors?: string[]): boolean {
    if (!index.size) return false;
    if (this.visitEntries(index.get(userKey(user.name)), namespace, visit, errors)) return true;
    for (const g of user.groups) if (this.visitEntries(index.get(groupKey(g)), namespace, visit, errors)) return true;
    return false;
  }

  private visitEntries(entries: Map<string, RuleSource> | undefined, namespace: string, visit: RuleVisitor, errors?: string[]): boolean {
    if (!entries) return false;
    for (const source of entries.values()) {
      const b = source.binding;
      const rules = b.roleKind === 'Role' ? (namespace ? this.roleRules(namespace, b.roleName) : undefined)
        : b.roleKind === 'ClusterRole' ? this.clusterRoles.get(b.roleName) : undefined;
      if (!rules) {
        errors?.push(`${b.roleKind === 'Role' ? 'role' : 'clusterrole'}.${this.rbacGroup} ${JSON.stringify(b.roleName)} not found`);
        continue;
      }
      for (const rule of rules) if (visit(source, rule)) return true;
    }
    return false;
  }
}
