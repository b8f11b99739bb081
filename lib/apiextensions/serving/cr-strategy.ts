/**
 * The strategy of a custom-resource version (Kubernetes' customresource strategy and validator):
 * every write is pruned and defaulted by the version's schema; with the status subresource a
 * create drops `status` and an update keeps the stored one; `metadata.generation` moves on any
 * change outside metadata (and outside status, when /status owns it); validation is TypeMeta,
 * the schema, embedded resources, set/map lists and the scale paths, then the schema's CEL rules
 * (`x-kubernetes-validations`, lib/apiextensions/cel), answered as 422 with Kubernetes' paths.
 * Writes through /status are validated against the status schema only, and the rules of the
 * whole object. Updates ratchet: unchanged invalid values do not fail them (CRDValidationRatcheting).
 */
import { errors } from '../../meta/api-errors';
import { FieldError, fieldErrors, formatFieldError } from '../../meta/field-errors';
import { isQualifiedName } from '../../meta/validation';
import { ApiObject, Strategy, StrategyContext } from '../../scheme/types';
import { CrSchemaRuntime } from '../../scheme/structural/runtime';
import { CrdScale } from '../../registry/apiextensions/custom-resource-definitions/view';
import { CrSelectableFields } from './cr-selectable-fields';
import { validateScaleSpec, validateScaleStatus } from './cr-scale';
import { hasRules, validateRules } from '../cel/evaluate-rules';
import { ratchetSchemaErrors } from '../cel/correlation';

// Kubernetes' hasBlockingErr: rules are not evaluated over values of the wrong type.
const blocked = (errs: FieldError[]): FieldError | undefined => (errs.some((e) => e.type === 'FieldValueTypeInvalid' || e.type === 'FieldValueNotSupported')
  ? { type: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation' }
  : undefined);

/** What a version's strategy is built from. */
export interface CrStrategyOptions {
  group: string;
  version: string;
  kind: string;
  /** `<plural>.<group>` resource, for the Forbidden message while the CRD terminates. */
  plural: string;
  runtime: CrSchemaRuntime;
  /** The version has the status subresource. */
  statusEnabled: boolean;
  scale?: CrdScale;
  selectable: CrSelectableFields;
  /** The CRD is being deleted: creates are refused (403). */
  terminating: boolean;
  /** Finalizer names that need no domain (Kubernetes' orphan, foregroundDeletion, kubernetes). */
  standardFinalizers: string[];
  /** Output shaping of reads (read-time defaulting, relabelling): see cr-read.ts. */
  decorate?: (obj: ApiObject) => ApiObject;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEmpty = (v: unknown) => v === null || v === undefined;

/** Kubernetes' semantic DeepEqual on JSON (a null and an empty list or map are equal). */
export function semanticDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (isEmpty(a) || isEmpty(b)) return ((a ?? []) as unknown[]).length === 0 && ((b ?? []) as unknown[]).length === 0;
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => semanticDeepEqual(x, b[i]));
  }
  if (isObject(a) || isObject(b)) {
    if (isEmpty(a) || isEmpty(b)) return Object.keys(a ?? b ?? {}).length === 0;
    if (!isObject(a) || !isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && semanticDeepEqual(a[k], b[k]));
  }
  return false;
}

/** Whether `a` and `b` differ outside `metadata` (and the keys in `ignore`). */
function contentChanged(a: ApiObject, b: ApiObject, ignore: string[]): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    if (k === 'metadata' || ignore.includes(k)) continue;
    if (Object.hasOwn(a, k) !== Object.hasOwn(b, k) || !semanticDeepEqual(a[k], b[k])) return true;
  }
  return false;
}

/** Kubernetes' warnings for a finalizer name that is not a qualified name or has no domain. */
export function finalizerWarnings(name: string, standard: string[]): string[] {
  const path = 'metadata.finalizers';
  const out = isQualifiedName(name).map((m) => `${path}: ${JSON.stringify(name)}: ${m}`);
  if (!name.includes('/') && !standard.includes(name)) {
    out.push(name.includes('.')
      ? `${path}: ${JSON.stringify(name)}: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`
      : `${path}: ${JSON.stringify(name)}: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers`);
  }
  return out;
}

const finalizersOf = (obj: ApiObject | undefined): string[] =>
  (Array.isArray(obj?.metadata?.finalizers) ? obj!.metadata!.finalizers! : []).filter((f): f is string => typeof f === 'string');

/** Builds the strategy of one custom-resource version. */
export function crStrategy(o: CrStrategyOptions): Strategy {
  const apiVersion = `${o.group}/${o.version}`;
  const ignoreOnCompare = o.statusEnabled ? ['status'] : [];

  const decodeOrThrow = (obj: ApiObject) => {
    const res = o.runtime.decode(obj);
    if (res.error) throw errors.badRequest(formatFieldError(res.error));
  };
  const typeMeta = (obj: ApiObject): FieldError[] => {
    const errs: FieldError[] = [];
    if (obj.kind !== o.kind) errs.push(fieldErrors.invalid('kind', obj.kind ?? '', `must be ${o.kind}`));
    if (obj.apiVersion !== apiVersion) errs.push(fieldErrors.invalid('apiVersion', obj.apiVersion ?? '', `must be ${apiVersion}`));
    return errs;
  };
  const warn = (ctx: StrategyContext, obj: ApiObject, old?: ApiObject) => {
    if (!ctx.warn) return;
    const before = new Set(finalizersOf(old));
    const added = [...new Set(finalizersOf(obj))].filter((f) => !before.has(f)).sort();
    for (const f of added) for (const w of finalizerWarnings(f, o.standardFinalizers)) ctx.warn(w);
  };
  const validateAll = (obj: ApiObject, old?: ApiObject): FieldError[] => [
    ...(old ? ratchetSchemaErrors(o.runtime.validate(obj), obj, old, o.runtime.structural) : o.runtime.validate(obj)),
    ...validateScaleSpec(obj, o.scale), ...validateScaleStatus(obj, o.scale),
  ];
  // The CEL rules after the schema's own checks, unless those found values of the wrong type.
  const withRules = (errs: FieldError[], obj: ApiObject, old: ApiObject | undefined, ctx: StrategyContext): FieldError[] => {
    if (!hasRules(o.runtime.structural)) return errs;
    const block = blocked(errs);
    if (block) return [...errs, block];
    const rules = validateRules(o.runtime.structural, obj, old);
    for (const w of rules.warnings) ctx.warn?.(w);
    return [...errs, ...rules.errors];
  };

  const strategy: Strategy = {
    // Re-run after a mutating webhook's patch, as Kubernetes decodes what the webhook returns.
    default: (obj) => { o.runtime.decode(obj); },
    prepareForCreate: (obj) => {
      if (o.terminating) {
        throw errors.forbidden({ group: o.group, resource: o.plural }, String(obj.metadata?.name ?? obj.metadata?.generateName ?? ''),
          'create not allowed while custom resource definition is terminating');
      }
      decodeOrThrow(obj);
      if (o.statusEnabled) delete obj.status;
    },
    prepareForUpdate: (obj, old) => {
      decodeOrThrow(obj);
      // The stored object as Kubernetes' storage decoder gives it (defaults of this version), so a
      // default added to the schema since does not read as a spec change.
      o.runtime.decode(old, { fromStorage: true });
      if (o.statusEnabled) {
        if (Object.hasOwn(old, 'status')) obj.status = old.status;
        else delete obj.status;
      }
    },
    specChanged: (obj, old) => contentChanged(obj, old, ignoreOnCompare),
    validate: (obj, ctx) => {
      const tm = typeMeta(obj);
      if (tm.length) return tm;
      const errs = withRules(validateAll(obj), obj, undefined, ctx);
      if (!errs.length) warn(ctx, obj);
      return errs;
    },
    validateUpdate: (obj, old, ctx) => {
      const tm = typeMeta(obj);
      if (tm.length) return tm;
      // A write through /status changes nothing but status (the subresource copies the rest).
      if (o.statusEnabled && !contentChanged(obj, old, ['status'])) {
        const status = [...ratchetSchemaErrors(o.runtime.validateStatus(obj), obj, old, o.runtime.structural), ...validateScaleStatus(obj, o.scale)];
        return withRules(status, obj, old, ctx);
      }
      const errs = withRules(validateAll(obj, old), obj, old, ctx);
      if (!errs.length) warn(ctx, obj, old);
      return errs;
    },
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    fieldSet: o.selectable.names.length ? (obj) => o.selectable.fieldSet(obj) : undefined,
    selectableFields: o.selectable.names,
  };
  if (o.decorate) strategy.decorate = o.decorate;
  return strategy;
}
