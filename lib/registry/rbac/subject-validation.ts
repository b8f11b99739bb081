/**
 * ValidateRoleBindingSubject and SetDefaults_Subject: a subject is a User or Group of the RBAC
 * API group, or a ServiceAccount of the core group (named as a DNS subdomain, and with a
 * namespace when bound cluster-wide). Paths and messages are Kubernetes'.
 */
import { FieldError, child, fieldErrors, index } from '../../meta/field-errors';
import { isDns1123Subdomain } from '../../meta/validation';
import { GROUP_KIND, SERVICE_ACCOUNT_KIND, Subject, USER_KIND } from './types';

const KINDS = [SERVICE_ACCOUNT_KIND, USER_KIND, GROUP_KIND];

/** The errors of one subject at `path`; `namespaced` for a RoleBinding (a ServiceAccount's namespace defaults to the binding's). */
export function validateSubject(subject: Partial<Subject> | null | undefined, namespaced: boolean, rbacGroup: string, path: string): FieldError[] {
  const s = subject ?? {};
  const name = s.name ?? '';
  const apiGroup = s.apiGroup ?? '';
  const errs: FieldError[] = [];
  if (!name) errs.push(fieldErrors.required(child(path, 'name')));
  switch (s.kind) {
    case SERVICE_ACCOUNT_KIND:
      if (name) errs.push(...isDns1123Subdomain(name).map((m) => fieldErrors.invalid(child(path, 'name'), name, m)));
      if (apiGroup) errs.push(fieldErrors.notSupported(child(path, 'apiGroup'), apiGroup, ['']));
      if (!namespaced && !s.namespace) errs.push(fieldErrors.required(child(path, 'namespace')));
      break;
    case USER_KIND:
    case GROUP_KIND:
      if (apiGroup !== rbacGroup) errs.push(fieldErrors.notSupported(child(path, 'apiGroup'), apiGroup, [rbacGroup]));
      break;
    default:
      errs.push(fieldErrors.notSupported(child(path, 'kind'), s.kind ?? '', KINDS));
  }
  return errs;
}

/** Every subject of a binding's `subjects`, at `subjects[i]`. */
export function validateSubjects(subjects: Array<Partial<Subject> | null> | null | undefined, namespaced: boolean, rbacGroup: string): FieldError[] {
  return (subjects ?? []).flatMap((s, i) => validateSubject(s, namespaced, rbacGroup, index('subjects', i)));
}

/** SetDefaults_Subject: a User or Group without apiGroup gets the RBAC group (a ServiceAccount keeps ""). */
export function defaultSubjects(subjects: Array<Partial<Subject> | null> | null | undefined, rbacGroup: string): void {
  (subjects ?? []).forEach((s, i, all) => {
    if (!s || s.apiGroup || (s.kind !== USER_KIND && s.kind !== GROUP_KIND)) return;
    // Go's field order: kind, apiGroup, name, namespace.
    const { kind, apiGroup: _empty, ...rest } = s;
    all[i] = { kind, apiGroup: rbacGroup, ...rest };
  });
}
