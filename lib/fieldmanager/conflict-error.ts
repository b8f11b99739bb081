/**
 * The 409 an apply without force gets when it would change fields other managers own, worded as
 * Kubernetes words it (apimachinery's NewConflictError):
 *
 *   one:   `Apply failed with 1 conflict: conflict with "m" using v1: .data.key`
 *   more:  `Apply failed with 2 conflicts: conflicts with "m" using v1:\n- .data.a\n- .data.b`
 *          (managers in identifier order, each followed by its fields)
 *
 * with one Status cause per (manager, field): reason `FieldManagerConflict`, message
 * `conflict with "m" using v1`, field `.data.a`. A manager prints as its quoted name, then
 * ` with subresource "status"` when it has one, then ` using <apiVersion>` for Update managers.
 */
import { ApiError, StatusCause } from '../meta/api-errors';
import { fieldPathString, goQuote } from './field-path';
import { ManagerRecord } from './manager-table';

export interface Conflict {
  /** Identifier of the owning manager (see managerIdentifier). */
  id: string;
  manager: ManagerRecord;
  /** Serialized path (fieldsV1 keys). */
  path: string[];
}

/** How a manager is named in conflict messages. */
export function printManager(m: Pick<ManagerRecord, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  let s = goQuote(m.manager);
  if (m.subresource) s += ` with subresource ${goQuote(m.subresource)}`;
  if (m.operation === 'Update') s += ` using ${m.apiVersion}`;
  return s;
}

/** The conflict error; `conflicts` in the order the causes are to be listed. */
export function conflictError(conflicts: Conflict[]): ApiError {
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: fieldPathString(c.path),
  }));
  return new ApiError(409, 'Conflict', conflictMessage(conflicts), { causes });
}

function conflictMessage(conflicts: Conflict[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0];
    return `Apply failed with 1 conflict: conflict with ${printManager(c.manager)}: ${fieldPathString(c.path)}`;
  }
  const byManager = new Map<string, Conflict[]>();
  for (const c of conflicts) byManager.set(c.id, [...(byManager.get(c.id) ?? []), c]);
  const lines: string[] = [];
  for (const id of [...byManager.keys()].sort()) {
    const group = byManager.get(id) as Conflict[];
    lines.push(`conflicts with ${printManager(group[0].manager)}:`);
    for (const c of group) lines.push(`- ${fieldPathString(c.path)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}
