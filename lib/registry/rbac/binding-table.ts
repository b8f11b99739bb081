/**
 * The Table columns of the binding kinds, as kube's printers define them: NAME, ROLE
 * (`Kind/name`), AGE, and with `-o wide` USERS, GROUPS, SERVICEACCOUNTS (`namespace/name`).
 * Role and ClusterRole keep the default table (NAME, CREATED AT), as in Kubernetes.
 */
import { TableColumns, ageColumn, column, nameColumn } from '../../meta/table';
import { translateTimestampSince } from '../../meta/human-duration';
import { BindingObject, GROUP_KIND, SERVICE_ACCOUNT_KIND, USER_KIND } from './types';

/** SubjectsStrings: the names of each subject kind, service accounts as `namespace/name`. */
export function subjectsStrings(b: BindingObject): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const out = { users: [] as string[], groups: [] as string[], serviceAccounts: [] as string[] };
  for (const s of b.subjects ?? []) {
    if (s?.kind === USER_KIND) out.users.push(s.name ?? '');
    else if (s?.kind === GROUP_KIND) out.groups.push(s.name ?? '');
    else if (s?.kind === SERVICE_ACCOUNT_KIND) out.serviceAccounts.push(`${s.namespace ?? ''}/${s.name ?? ''}`);
  }
  return out;
}

/** `what` names the kind in the wide columns' descriptions: roleBinding or clusterRoleBinding. */
export function bindingTable(what: 'roleBinding' | 'clusterRoleBinding', roleRefDescription: string): TableColumns {
  return {
    columns: [
      nameColumn,
      column('Role', 'string', roleRefDescription),
      ageColumn,
      column('Users', 'string', `Users in the ${what}`, { priority: 1 }),
      column('Groups', 'string', `Groups in the ${what}`, { priority: 1 }),
      column('ServiceAccounts', 'string', `ServiceAccounts in the ${what}`, { priority: 1 }),
    ],
    cells: (obj, now) => {
      const b = obj as BindingObject;
      const { users, groups, serviceAccounts } = subjectsStrings(b);
      return [
        obj.metadata?.name ?? '', `${b.roleRef?.kind ?? ''}/${b.roleRef?.name ?? ''}`, translateTimestampSince(obj.metadata?.creationTimestamp, now),
        users.join(', '), groups.join(', '), serviceAccounts.join(', '),
      ];
    },
  };
}
