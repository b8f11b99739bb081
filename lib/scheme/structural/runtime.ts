/**
 * Everything a served custom-resource version needs from its schema, built once per version:
 * `decode` (prune, drop non-nullable nulls, coerce embedded metadata, default: Kubernetes'
 * order, used on requests and on reads from storage), `validate` and `validateStatus` (ajv,
 * compiled once, plus embedded resources and set/map list uniqueness), the server Schema.
 */
import { FieldError } from '../../meta/field-errors';
import { Schema } from '../schema';
import { Structural, isObject } from './structural';
import { prune } from './prune';
import { applyDefaults, hasDefaults, pruneNonNullableNulls } from './default';
import { coerceEmbedded, validateEmbedded } from './embedded-meta';
import { CompiledValidator, compileValidator } from './compile';
import { validateListSetsAndMaps } from './list-set-map-validation';
import { toServerSchema } from './to-server-schema';

/** Options of CrSchemaRuntime.decode. */
export interface DecodeOptions {
  /** Collect the pruned paths (fieldValidation=Strict/Warn). */
  track?: boolean;
  /** The object comes from storage: malformed embedded metadata is dropped, not refused. */
  fromStorage?: boolean;
}

/** Result of decode: unknown field paths (`spec.foo`, `metadata.bar`) and the first coercion refusal. */
export interface DecodeResult { unknown: string[]; error?: FieldError; changed: boolean }

/** The schema machinery of one custom-resource version. */
export class CrSchemaRuntime {
  /** True when some node has a default (reads from storage may then change objects). */
  readonly hasDefaults: boolean;
  private validator?: CompiledValidator;
  private statusValidator?: CompiledValidator | null;
  private serverSchema?: Schema;

  /**
   * `pruning: false`: unknown fields are kept (a CRD with `spec.preserveUnknownFields: true`,
   * which apiextensions v1beta1 defaults to); the rest of decode is the same.
   */
  constructor(readonly structural: Structural, private readonly options: { pruning?: boolean } = {}) {
    this.hasDefaults = hasDefaults(structural);
  }

  /** Prunes, drops non-nullable nulls, coerces embedded metadata and defaults `obj` in place. */
  decode(obj: unknown, opts: DecodeOptions = {}): DecodeResult {
    const unknown = this.options.pruning === false ? [] : prune(obj, this.structural, { isResourceRoot: true, track: opts.track });
    let changed = unknown.length > 0;
    if (pruneNonNullableNulls(obj, this.structural)) changed = true;
    const coerced = coerceEmbedded(obj, this.structural, { isResourceRoot: true, dropInvalid: !!opts.fromStorage });
    if (applyDefaults(obj, this.structural)) changed = true;
    const result: DecodeResult = { unknown: [...unknown, ...(opts.track ? coerced.unknown : [])].sort(), changed };
    if (coerced.error) result.error = coerced.error;
    return result;
  }

  /** Validates a whole object against the schema: [] when valid. */
  validate(obj: unknown): FieldError[] {
    this.validator ??= compileValidator(this.structural.raw);
    return [
      ...this.validator(obj),
      ...validateEmbedded(obj, this.structural, { isResourceRoot: true }),
      ...validateListSetsAndMaps('', this.structural, obj),
    ];
  }

  /** Validates only `status` (the /status subresource), paths under `status`. */
  validateStatus(obj: unknown): FieldError[] {
    const s = this.structural.properties?.status;
    if (!s || !isObject(obj) || obj.status === undefined) return [];
    if (this.statusValidator === undefined) this.statusValidator = compileValidator(s.raw);
    const status = obj.status;
    return [
      ...this.statusValidator!(status, 'status'),
      ...validateEmbedded(status, s, { path: 'status' }),
      ...validateListSetsAndMaps('status', { raw: {}, properties: { status: s } }, { status }),
    ];
  }

  /** The server Schema of this version (root with apiVersion, kind and ObjectMeta). */
  schema(): Schema {
    if (!this.serverSchema) {
      const schema = toServerSchema(this.structural, { embeddedMeta: true });
      this.serverSchema = this.options.pruning === false ? preservingUnknown(schema, true) : schema;
    }
    return this.serverSchema;
  }
}

/**
 * The server Schema of a version that is not pruned: every object node (but those of metadata)
 * keeps unknown fields, so field validation neither reports nor drops them.
 */
function preservingUnknown(s: Schema, isRoot = false): Schema {
  const out: Schema = { ...s };
  if (s.type === 'object' || s.properties) out['x-kubernetes-preserve-unknown-fields'] = true;
  if (s.properties) {
    out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, p]) => [k, isRoot && k === 'metadata' ? p : preservingUnknown(p)]));
  }
  if (s.items) out.items = preservingUnknown(s.items);
  if (s.additionalProperties) out.additionalProperties = preservingUnknown(s.additionalProperties);
  return out;
}
