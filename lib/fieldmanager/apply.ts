/**
 * Server-side apply (structured-merge-diff's Updater.Apply behind apimachinery's field manager).
 *
 * 1. Guards, in Kubernetes' order: the configuration's apiVersion and kind must be the endpoint's
 *    (400 `invalid object type: <group>/<version>, Kind=<kind>`); it must not carry
 *    metadata.managedFields (400 `metadata.managedFields must be nil`; null is accepted); its
 *    containers must fit the schema (400 BadRequest `failed to create typed patch object (...)`).
 *    Kubernetes answers that one 500 InternalError, a bug it has open (kubernetes#139253, the fix
 *    keeps the words and makes it 400): the input is the client's, and clients retry a 500 (the
 *    fabric8 client does, forever). Fields the schema does not declare are dropped (the handler
 *    applies fieldValidation to them first). The live managedFields must be readable (500
 *    otherwise).
 * 2. Merge: the configuration is merged into the live object (a missing object: into nothing, so
 *    apply creates) per the schema's list and map types (see mergeApplied).
 * 3. Prune: fields this manager applied last time and does not apply now are removed from the
 *    object when no other manager, Apply or Update, owns them; owned by another, the value stays.
 * 4. Ownership: compared with the live object, every field the result adds or changes and another
 *    manager owns is a conflict (that includes fields shared by several managers). Without force:
 *    409 (conflictError) and nothing changes. With force: those fields leave the other managers.
 *    Fields set to the value they already have are no change, so they end up shared.
 * 5. The applier's Apply entry, identified by (manager, subresource), owns exactly the fields of the
 *    configuration (less the untracked metadata) at the request's apiVersion. Its time becomes
 *    `now` when the object changed or the entry is new. Managers owning nothing are dropped.
 */
import { ApiError } from '../meta/api-errors';
import { Schema } from '../scheme/schema';
import { ApiObject } from '../scheme/types';
import { checkApplyConfig, joinConfigErrors } from './apply-config-check';
import { mergeApplied } from './apply-merge';
import { compareObjects } from './compare';
import { Conflict, conflictError } from './conflict-error';
import { FieldSet } from './field-set';
import { deepEqual } from './json-value';
import {
  ManagedFieldsError, ManagerRecord, decodeManagedFields, dropEmptyManagers, encodeManagedFields,
  managerIdentifier, setManagedFields,
} from './manager-table';
import { prunableFields, removeFields } from './prune';
import { toFieldSet } from './to-field-set';
import { stripUntracked } from './untracked-fields';
import { withoutManagedFields } from './managed-fields';

export interface ApplyConfigArgs {
  schema: Schema;
  /** The stored object; undefined when the apply creates it. */
  live?: ApiObject;
  /** The applied configuration (the request body, decoded). */
  config: ApiObject;
  /** The fieldManager (required for apply; the caller checks it is given). */
  manager: string;
  /** group/version of the endpoint, e.g. `v1` or `apps/v1`. */
  apiVersion: string;
  /** Kind served by the endpoint, e.g. `ConfigMap`; default: the live object's kind (if any). */
  kind?: string;
  force: boolean;
  /** RFC 3339 time of the write, whole seconds. */
  now: string;
  /** `status` etc. when applied through a subresource. */
  subresource?: string;
  /** Built-in kind (default) or custom resource; see compareObjects. */
  builtinKind?: boolean;
}

/** Go's GroupVersionKind.String() of an object's apiVersion and kind. */
function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const parts = av.split('/');
  const [group, version] = parts.length === 1 ? ['', parts[0]] : parts.length === 2 ? parts : ['', ''];
  return `${group}/${version}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/**
 * The object to store after applying `config`, with its managedFields. Throws ApiError: 400 for a
 * configuration of another type, with managedFields or that does not fit the schema, 409 for
 * conflicts without force, 500 for live managedFields that cannot be read. Pure: the inputs are
 * not modified.
 */
export function applyConfig(args: ApplyConfigArgs): ApiObject {
  const { config, schema } = args;
  const kind = args.kind ?? args.live?.kind;
  if (config.apiVersion !== args.apiVersion || (kind !== undefined && config.kind !== kind)) {
    throw new ApiError(400, 'BadRequest', `invalid object type: ${gvkString(config.apiVersion, config.kind)}`);
  }
  const configMeta = config.metadata;
  if (configMeta && configMeta.managedFields !== undefined && configMeta.managedFields !== null) {
    throw new ApiError(400, 'BadRequest', 'metadata.managedFields must be nil');
  }
  const check = checkApplyConfig(withoutManagedFields(config), schema);
  if (check.errors.length) {
    const nn = `${configMeta?.namespace ?? ''}/${configMeta?.name ?? ''}`;
    throw new ApiError(400, 'BadRequest',
      `failed to create typed patch object (${nn}; ${gvkString(config.apiVersion, config.kind)}): ${joinConfigErrors(check.errors)}`);
  }
  let table;
  try {
    table = decodeManagedFields(args.live?.metadata?.managedFields);
  } catch (e) {
    if (e instanceof ManagedFieldsError) throw new ApiError(500, 'InternalError', `failed to decode managed fields: ${e.message}`);
    throw e;
  }

  const live = withoutManagedFields(args.live) ?? {};
  const applied = check.cleaned as ApiObject;
  let merged = mergeApplied(live, applied, schema) as ApiObject;

  const selfId = managerIdentifier({ manager: args.manager, operation: 'Apply', apiVersion: args.apiVersion, subresource: args.subresource });
  const previous = table.get(selfId);
  const appliedSet = toFieldSet(applied, schema);

  // Prune what this manager stopped applying and nobody else owns.
  if (previous && !previous.fields.isEmpty()) {
    let ownedNow = appliedSet;
    for (const [id, rec] of table) if (id !== selfId) ownedNow = ownedNow.union(rec.fields);
    merged = removeFields(merged, prunableFields(previous.fields, ownedNow, schema), schema) as ApiObject;
  }

  // Conflicts with, or (forced) transfer from, the other managers.
  const cmp = compareObjects(live, merged, schema, { builtinKind: args.builtinKind });
  const changed = cmp.added.union(cmp.modified);
  const conflicts: Conflict[] = [];
  for (const id of [...table.keys()].sort()) {
    if (id === selfId) continue;
    const rec = table.get(id) as ManagerRecord;
    for (const path of rec.fields.intersection(changed).keyPaths()) conflicts.push({ id, manager: rec, path });
  }
  if (conflicts.length && !args.force) throw conflictError(conflicts);
  for (const [id, rec] of table) {
    if (id !== selfId) rec.fields = rec.fields.difference(changed).difference(cmp.removed);
  }

  const objectChanged = !deepEqual(live, merged);
  table.set(selfId, {
    manager: args.manager,
    operation: 'Apply',
    apiVersion: args.apiVersion,
    ...(args.subresource ? { subresource: args.subresource } : {}),
    time: objectChanged || !previous ? args.now : previous.time,
    fields: stripUntracked(appliedSet),
  });
  dropEmptyManagers(table);

  const result = structuredClone(merged);
  setManagedFields(result, encodeManagedFields(table));
  return result;
}

/** The fields `config` would own if applied (the Apply entry's set), for callers and tests. */
export function appliedFields(config: ApiObject, schema: Schema): FieldSet {
  return stripUntracked(toFieldSet(withoutManagedFields(config), schema));
}
