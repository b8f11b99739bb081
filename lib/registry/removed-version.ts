/**
 * A version Kubernetes no longer serves (apps/v1beta1, apps/v1beta2, extensions/v1beta1...),
 * served over the objects of the kind's current version, off unless `--runtime-config` (or
 * `--emulated-version`) switches it on. Objects stay stored at the current version; the removed
 * version converts on the way in and out (`toCurrent` / `fromCurrent`: the fields the current
 * version lacks travel as Kubernetes carries them, usually in annotations). Its own defaults
 * (`defaults`) apply to a request body before it is converted; everything else (preparation,
 * validation, status, table) is the current version's strategy, run on the converted object, so
 * field paths are the current version's as Kubernetes validates its internal object.
 *
 * A `/scale` answers the removed version's own Scale (lib/api/handlers/scale.ts).
 *
 * The served object's shape may differ from the stored one, so reads, lists, watches and writes
 * go through the def's `versioning` (as autoscaling/v1 HPA does), not a relabelling.
 */
import { FieldError } from '../meta/field-errors';
import { TableColumns } from '../meta/table';
import { decodeProblem } from '../scheme/decode-check';
import { Schema } from '../scheme/schema';
import { ApiDeprecation, ApiObject, ObjectVersioning, ResourceDef, Strategy, SubresourceDef, apiVersionOf } from '../scheme/types';

export interface RemovedVersion {
  /** The removed version's group ('extensions' for extensions/v1beta1) and version. */
  group: string;
  version: string;
  deprecation: ApiDeprecation;
  /** The removed version's schema; absent: the current version's. */
  schema?: Schema;
  /** The removed version's SetDefaults, on a request body at that version. */
  defaults?(obj: ApiObject): void;
  /** A copy of a removed-version object as the current version holds it (apiVersion set by the caller). */
  toCurrent?(obj: ApiObject): ApiObject;
  /** A copy of a current-version object as the removed version serves it. */
  fromCurrent?(obj: ApiObject): ApiObject;
  /** Rules of the removed version's own fields (checked on the object as served), besides the current version's. */
  validate?(obj: ApiObject): FieldError[];
  /** Subresources the removed version had besides the current version's (Deployment's /rollback). */
  extraSubresources?: SubresourceDef[];
  /**
   * The selector may change on update (Kubernetes' strategies skip ValidateImmutableField of
   * spec.selector for extensions/v1beta1 and apps/v1beta1 requests).
   */
  mutableSelector?: boolean;
}

/**
 * A kind's schema with its spec changed as a removed version had it: `extra` fields added and
 * `required` the spec's required fields (the spec is then written inline in OpenAPI).
 */
export function specSchemaWith(kind: Schema, extra: Record<string, Schema>, required: string[]): Schema {
  const spec = kind.properties?.spec ?? {};
  const { required: _currentRequired, ...rest } = spec;
  const changed: Schema = { ...rest, properties: { ...spec.properties, ...extra }, ...(required.length ? { required } : {}) };
  return { ...kind, properties: { ...kind.properties, spec: changed } };
}

const copyOf = (obj: ApiObject): ApiObject => structuredClone(obj);

/** Replaces the contents of `obj` by those of `next` (strategy hooks change their argument). */
function replaceContents(obj: ApiObject, next: ApiObject): void {
  for (const k of Object.keys(obj)) delete obj[k];
  Object.assign(obj, next);
}

/** `old` with the selector of `obj`, so that the current strategy's immutability check passes. */
function withSelectorOf(old: ApiObject, obj: ApiObject): ApiObject {
  const spec = obj.spec as { selector?: unknown } | undefined;
  return { ...old, spec: { ...(old.spec as object | undefined), selector: spec?.selector } };
}

/** `removed` served over the objects of `current` (its storage version's def). */
export function removedVersionOf(current: ResourceDef, removed: RemovedVersion): ResourceDef {
  const currentApiVersion = apiVersionOf(current);
  const servedApiVersion = apiVersionOf(removed);
  const toCurrent = (obj: ApiObject): ApiObject => ({ ...(removed.toCurrent ?? copyOf)(obj), apiVersion: currentApiVersion });
  const fromCurrent = (obj: ApiObject): ApiObject => ({ ...(removed.fromCurrent ?? copyOf)(obj), apiVersion: servedApiVersion });
  /** Runs `change` on the current form of `obj` and writes the result back, converted. */
  const via = (obj: ApiObject, change: (cur: ApiObject) => void): void => {
    const cur = toCurrent(obj);
    change(cur);
    replaceContents(obj, fromCurrent(cur));
  };
  const s = current.strategy;
  const schema = removed.schema ?? current.schema;
  const defaults = (obj: ApiObject): void => { removed.defaults?.(obj); via(obj, (c) => s.default?.(c)); };
  const own = (obj: ApiObject): FieldError[] => removed.validate?.(obj) ?? [];
  const oldForUpdate = (obj: ApiObject, old: ApiObject): ApiObject => (removed.mutableSelector ? withSelectorOf(toCurrent(old), toCurrent(obj)) : toCurrent(old));
  const strategy: Strategy = {
    ...s,
    checkDecode: (obj) => decodeProblem(obj, schema, current.kind) ?? s.checkDecode?.(toCurrent(obj)),
    default: defaults,
    prepareForCreate: (obj, ctx) => { removed.defaults?.(obj); via(obj, (c) => s.prepareForCreate?.(c, ctx)); },
    prepareForUpdate: (obj, old, ctx) => { removed.defaults?.(obj); via(obj, (c) => s.prepareForUpdate?.(c, toCurrent(old), ctx)); },
    validate: (obj, ctx) => [...(s.validate?.(toCurrent(obj), ctx) ?? []), ...own(obj)],
    validateUpdate: (obj, old, ctx) => [...(s.validateUpdate?.(toCurrent(obj), oldForUpdate(obj, old), ctx) ?? []), ...own(obj)],
    canonicalize: (obj) => via(obj, (c) => s.canonicalize?.(c)),
    specChanged: s.specChanged && ((obj, old) => s.specChanged!(toCurrent(obj), toCurrent(old))),
    fieldSet: s.fieldSet && ((obj) => s.fieldSet!(toCurrent(obj))),
    decorate: undefined,
  };
  const versioning: ObjectVersioning = {
    fromStorage: async (objects) => objects.map((o) => fromCurrent(s.decorate ? s.decorate(o) : o)),
    toStorage: async (object) => toCurrent(object),
    servesStored: () => false,
  };
  const table = current.table && { columns: current.table.columns, cells: (obj: Parameters<TableColumns['cells']>[0], now: Date) => current.table!.cells(toCurrent(obj as ApiObject), now) };
  return {
    ...current,
    group: removed.group,
    version: removed.version,
    schema,
    ...(table ? { table } : {}),
    // A /scale answers the removed version's own Scale (apps/v1beta1 Scale...), as Kubernetes' did.
    subresources: [
      ...current.subresources.map((sub) => (sub.scale ? { ...sub, group: removed.group, version: removed.version } : sub)),
      ...(removed.extraSubresources ?? []),
    ],
    strategy,
    servedByDefault: false,
    deprecation: removed.deprecation,
    storageVersion: current.version,
    ...(removed.group !== current.group ? { storageGroup: current.group } : {}),
    versioning,
  };
}
