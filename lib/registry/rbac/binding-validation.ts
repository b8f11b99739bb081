/**
 * ValidateRoleBinding / ValidateClusterRoleBinding and their updates, and the bindings'
 * defaults: roleRef names a Role or ClusterRole (a ClusterRoleBinding only a ClusterRole) of the
 * RBAC group by a path-segment name and never changes; subjects as subject-validation.ts.
 */
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { isPathSegmentName } from '../../meta/validation';
import { BindingObject, RoleRef } from './types';
import { defaultSubjects, validateSubjects } from './subject-validation';

/** What differs between the two binding kinds. */
export interface BindingRules {
  /** RoleBinding: subjects may omit a ServiceAccount's namespace. */
  namespaced: boolean;
  /** The roleRef kinds allowed: Role and ClusterRole, or ClusterRole alone. */
  roleKinds: string[];
  /** The flavor's RBAC group, the only roleRef (and User/Group subject) apiGroup. */
  rbacGroup: string;
}

const refOf = (b: BindingObject): Partial<RoleRef> => (b.roleRef ?? {}) as Partial<RoleRef>;

/** Go's %#v of the internal RoleRef, which Kubernetes prints as the bad value of a roleRef change. */
function goRoleRef(ref: Partial<RoleRef>): string {
  const q = (s: string | undefined) => JSON.stringify(s ?? '');
  return `rbac.RoleRef{APIGroup:${q(ref.apiGroup)}, Kind:${q(ref.kind)}, Name:${q(ref.name)}}`;
}

/** The kind's own fields of a new or updated binding (metadata is the store's). */
export function validateBinding(b: BindingObject, rules: BindingRules): FieldError[] {
  const ref = refOf(b);
  const errs: FieldError[] = [];
  const apiGroup = ref.apiGroup ?? '';
  if (apiGroup !== rules.rbacGroup) errs.push(fieldErrors.notSupported('roleRef.apiGroup', apiGroup, [rules.rbacGroup]));
  const kind = ref.kind ?? '';
  if (!rules.roleKinds.includes(kind)) errs.push(fieldErrors.notSupported('roleRef.kind', kind, rules.roleKinds));
  const name = ref.name ?? '';
  if (!name) errs.push(fieldErrors.required('roleRef.name'));
  else errs.push(...isPathSegmentName(name).map((m) => fieldErrors.invalid('roleRef.name', name, m)));
  errs.push(...validateSubjects(b.subjects, rules.namespaced, rules.rbacGroup));
  return errs;
}

/** An update: the same checks, and roleRef as it was (a binding to another role is a new binding). */
export function validateBindingUpdate(b: BindingObject, old: BindingObject, rules: BindingRules): FieldError[] {
  const errs = validateBinding(b, rules);
  const [next, prev] = [refOf(b), refOf(old)];
  const same = (k: keyof RoleRef) => (next[k] ?? '') === (prev[k] ?? '');
  if (!same('apiGroup') || !same('kind') || !same('name')) {
    errs.push({ type: 'FieldValueInvalid', field: 'roleRef', message: `Invalid value: ${goRoleRef(next)}: cannot change roleRef` });
  }
  return errs;
}

/**
 * SetDefaults_RoleBinding / _ClusterRoleBinding and SetDefaults_Subject: the RBAC group where
 * none is given. Go's roleRef is a value struct, so even a missing roleRef gets its apiGroup.
 */
export function defaultBinding(b: BindingObject, rbacGroup: string): void {
  const { apiGroup, ...rest } = (b.roleRef ?? {}) as Partial<RoleRef>;
  // Go's field order: the defaulted apiGroup comes first, as kube-apiserver writes it.
  b.roleRef = { apiGroup: apiGroup || rbacGroup, ...rest } as RoleRef;
  defaultSubjects(b.subjects, rbacGroup);
}
