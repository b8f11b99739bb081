/**
 * metadata.managedFields in both forms: the wire entries and the in-memory table of managers the
 * update (managed-fields.ts) and apply (apply.ts) steps work on.
 *
 * A manager is identified as Kubernetes' BuildManagerIdentifier does: manager name, operation,
 * apiVersion (for Update only: an applier keeps one entry whatever version it applies with) and
 * subresource. So the Update and Apply entries of one name are separate managers, and so are Update
 * entries of one name at different apiVersions or subresources.
 */
import { FieldPathError } from './field-path';
import { FieldSet } from './field-set';
import { isPlainObject } from './json-value';

export type ManagedFieldsOperation = 'Apply' | 'Update';

/** One metadata.managedFields entry as stored and served. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: ManagedFieldsOperation;
  apiVersion: string;
  /** RFC 3339, seconds; always set on entries this module writes. */
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** One manager while a write is computed. */
export interface ManagerRecord {
  manager: string;
  operation: ManagedFieldsOperation;
  apiVersion: string;
  subresource?: string;
  time?: string;
  fields: FieldSet;
}

/** Managers by identifier. */
export type ManagerTable = Map<string, ManagerRecord>;

/** Kubernetes' manager identifier: the entry without fields and time (and apiVersion for Apply), as JSON. */
export function managerIdentifier(r: Pick<ManagerRecord, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  // The JSON of {manager, operation, apiVersion, subresource} (members left out when empty),
  // written directly: this runs for every entry of every write.
  let id = r.manager ? `{"manager":${JSON.stringify(r.manager)},"operation":` : '{"operation":';
  id += JSON.stringify(r.operation);
  if (r.operation !== 'Apply' && r.apiVersion) id += `,"apiVersion":${JSON.stringify(r.apiVersion)}`;
  if (r.subresource) id += `,"subresource":${JSON.stringify(r.subresource)}`;
  return `${id}}`;
}

/** Thrown when a managedFields list cannot be read. */
export class ManagedFieldsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManagedFieldsError';
  }
}

/**
 * Reads a managedFields list (undefined or null: no managers). Each entry needs operation `Apply`
 * or `Update`, a non-empty apiVersion, fieldsType `FieldsV1` and a readable fieldsV1 object;
 * otherwise ManagedFieldsError. A later entry with the same identifier replaces an earlier one.
 */
export function decodeManagedFields(raw: unknown): ManagerTable {
  const table: ManagerTable = new Map();
  if (raw === undefined || raw === null) return table;
  if (!Array.isArray(raw)) throw new ManagedFieldsError('managedFields must be a list');
  raw.forEach((e, i) => {
    if (!isPlainObject(e)) throw new ManagedFieldsError(`managed fields entry ${i} must be an object`);
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    if (typeof e.apiVersion !== 'string' || e.apiVersion === '') throw new ManagedFieldsError('apiVersion must not be empty');
    if (e.fieldsType === undefined || e.fieldsType === '') throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    for (const f of ['manager', 'time', 'subresource'] as const) {
      if (e[f] !== undefined && e[f] !== null && typeof e[f] !== 'string') throw new ManagedFieldsError(`${f} of managed fields entry ${i} must be a string`);
    }
    if (typeof e.time === 'string' && e.time !== '' && Number.isNaN(Date.parse(e.time))) throw new ManagedFieldsError(`invalid time in managed fields entry ${i}`);
    let fields: FieldSet;
    try {
      fields = FieldSet.fromFieldsV1(e.fieldsV1 ?? {});
    } catch (err) {
      if (err instanceof FieldPathError) throw new ManagedFieldsError(`error decoding fieldsV1 of managed fields entry ${i}: ${err.message}`);
      throw err;
    }
    const rec: ManagerRecord = {
      manager: typeof e.manager === 'string' ? e.manager : '',
      operation: e.operation,
      apiVersion: e.apiVersion,
      fields,
    };
    if (typeof e.subresource === 'string' && e.subresource) rec.subresource = e.subresource;
    if (typeof e.time === 'string' && e.time) rec.time = e.time;
    table.set(managerIdentifier(rec), rec);
  });
  return table;
}

/** decodeManagedFields, or undefined when the list cannot be read. */
export function tryDecodeManagedFields(raw: unknown): ManagerTable | undefined {
  try {
    return decodeManagedFields(raw);
  } catch (e) {
    if (e instanceof ManagedFieldsError) return undefined;
    throw e;
  }
}

/**
 * Kubernetes' reset request: a list holding exactly one empty entry. (An empty list is not a
 * reset here: the spec says it does not reset, so that clients unaware of the field cannot drop it.)
 */
export function isResetManagedFields(raw: unknown): boolean {
  return Array.isArray(raw) && raw.length === 1 && isPlainObject(raw[0]) && Object.keys(raw[0]).length === 0;
}

/** Whole seconds of an entry time (0 when missing), the precision Kubernetes sorts by. */
export function timeSeconds(t: string | undefined): number {
  if (!t) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/**
 * The wire list: managers owning nothing are dropped; entries sorted as Kubernetes sorts them
 * (operation, so Apply first; then time; manager; apiVersion; subresource).
 */
export function encodeManagedFields(table: ManagerTable): ManagedFieldsEntry[] {
  const entries: ManagedFieldsEntry[] = [];
  for (const r of table.values()) {
    if (r.fields.isEmpty()) continue;
    // Key order as Kubernetes writes an entry.
    entries.push({
      manager: r.manager,
      operation: r.operation,
      apiVersion: r.apiVersion,
      ...(r.time ? { time: r.time } : {}),
      fieldsType: 'FieldsV1',
      fieldsV1: r.fields.toFieldsV1(),
      ...(r.subresource ? { subresource: r.subresource } : {}),
    });
  }
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return entries.sort((p, q) => cmp(p.operation, q.operation)
    || timeSeconds(p.time) - timeSeconds(q.time)
    || cmp(p.manager, q.manager)
    || cmp(p.apiVersion, q.apiVersion)
    || cmp(p.subresource ?? '', q.subresource ?? ''));
}

/** Sets (or, with no entries, deletes) metadata.managedFields of `obj` in place. */
export function setManagedFields(obj: { metadata?: { managedFields?: unknown[] } }, entries: ManagedFieldsEntry[]): void {
  if (!obj.metadata) obj.metadata = {};
  if (entries.length) obj.metadata.managedFields = entries;
  else delete obj.metadata.managedFields;
}

/** Drops managers whose sets are empty. */
export function dropEmptyManagers(table: ManagerTable): void {
  for (const [id, r] of table) if (r.fields.isEmpty()) table.delete(id);
}
