/**
 * Embedded resources (`x-kubernetes-embedded-resource`, and the root of every custom resource):
 * coercion of `apiVersion`, `kind` and `metadata` as Kubernetes' `objectmeta.Coerce` does it
 * (metadata decoded as ObjectMeta: unknown fields dropped and reported, malformed ones refused or,
 * for objects read from storage, dropped), and their validation (`objectmeta.Validate`).
 */
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { isDns1035Label, validateObjectMeta } from '../../meta/validation';
import { Structural, additionalSchema, hasEmbeddedResource, isObject } from './structural';

type Json = Record<string, unknown>;
type Kind = 'string' | 'integer' | 'time' | 'stringMap' | 'stringList' | 'objectList';

// ObjectMeta's JSON fields and the Go type each must decode into.
const OBJECT_META: Record<string, Kind> = {
  name: 'string', generateName: 'string', namespace: 'string', selfLink: 'string', uid: 'string',
  resourceVersion: 'string', generation: 'integer', creationTimestamp: 'time', deletionTimestamp: 'time',
  deletionGracePeriodSeconds: 'integer', labels: 'stringMap', annotations: 'stringMap',
  ownerReferences: 'objectList', finalizers: 'stringList', managedFields: 'objectList',
};
const GO_TYPE: Record<Kind, string> = {
  string: 'string', integer: 'int64', time: 'v1.Time', stringMap: 'map[string]string', stringList: '[]string', objectList: 'slice',
};

const jsonKind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array'
  : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v);

// The Go JSON decoder's complaint for a value that cannot decode into the field, or undefined.
function decodeError(k: string, v: unknown): string | undefined {
  const kind = OBJECT_META[k];
  if (v === null) return undefined;
  let ok: boolean;
  switch (kind) {
    case 'string': ok = typeof v === 'string'; break;
    case 'integer': ok = typeof v === 'number' && Number.isInteger(v); break;
    case 'time': ok = typeof v === 'string' && !Number.isNaN(Date.parse(v)); break;
    case 'stringMap': ok = isObject(v) && Object.values(v).every((x) => typeof x === 'string' || x === null); break;
    case 'stringList': ok = Array.isArray(v) && v.every((x) => typeof x === 'string' || x === null); break;
    default: ok = Array.isArray(v) && v.every((x) => isObject(x) || x === null);
  }
  if (ok) return undefined;
  return `json: cannot unmarshal ${jsonKind(v)} into Go struct field ObjectMeta.${k} of type ${GO_TYPE[kind]}`;
}

// Go re-encodes ObjectMeta with omitempty: empty values disappear.
const empty = (v: unknown) => v === null || v === '' || v === 0 || (Array.isArray(v) && !v.length) || (isObject(v) && !Object.keys(v).length);

/** Result of a coercion: the first refusal, and the unknown metadata fields removed. */
export interface CoerceResult { error?: FieldError; unknown: string[] }

/**
 * Coerces, in place, every embedded resource under `s` (the root too when `isResourceRoot`).
 * `dropInvalid` (reads from storage) drops malformed fields instead of refusing them.
 */
export function coerceEmbedded(obj: unknown, s: Structural | undefined, opts: { isResourceRoot?: boolean; dropInvalid?: boolean; path?: string } = {}): CoerceResult {
  if (opts.isResourceRoot) s = s ? { ...s, xEmbeddedResource: true } : { raw: {}, xEmbeddedResource: true };
  const res: CoerceResult = { unknown: [] };
  const error = coerce(opts.path ?? '', obj, s, !!opts.dropInvalid, res.unknown);
  if (error) res.error = error;
  res.unknown.sort();
  return res;
}

const join = (p: string, k: string) => (p ? `${p}.${k}` : k);

function coerce(path: string, x: unknown, s: Structural | undefined, drop: boolean, unknown: string[]): FieldError | undefined {
  if (!s || !hasEmbeddedResource(s)) return undefined;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      const e = coerce(`${path}[${i}]`, x[i], s.items, drop, unknown);
      if (e) return e;
    }
    return undefined;
  }
  if (!isObject(x)) return undefined;
  for (const k of Object.keys(x)) {
    const v = x[k];
    if (s.xEmbeddedResource) {
      if ((k === 'apiVersion' || k === 'kind') && typeof v !== 'string') {
        if (drop) delete x[k];
        else return fieldErrors.invalid(join(path, k), v, 'must be a string');
      } else if (k === 'metadata') {
        const e = coerceMeta(path, x, drop, unknown);
        if (e) return e;
      }
    }
    const prop = s.properties && Object.hasOwn(s.properties, k) ? s.properties[k] : undefined;
    const sub = prop ?? (s.additionalProperties !== undefined ? additionalSchema(s) : undefined);
    if (sub && Object.hasOwn(x, k) && hasEmbeddedResource(sub)) {
      const e = coerce(join(path, k), x[k], sub, drop, unknown);
      if (e) return e;
    }
  }
  return undefined;
}

function coerceMeta(path: string, x: Json, drop: boolean, unknown: string[]): FieldError | undefined {
  const meta = x.metadata;
  const mpath = join(path, 'metadata');
  if (meta === null) { delete x.metadata; return undefined; }
  if (!isObject(meta)) {
    if (drop) { delete x.metadata; return undefined; }
    return fieldErrors.invalid(mpath, meta, `json: cannot unmarshal ${jsonKind(meta)} into Go value of type v1.ObjectMeta`);
  }
  // Checked first and then edited in place: a refusal leaves the object whole, and callers
  // holding `obj.metadata` (the store sets managedFields and generated names through it) keep it.
  const dropped: string[] = [];
  for (const [k, v] of Object.entries(meta)) {
    if (!Object.hasOwn(OBJECT_META, k)) { unknown.push(`${mpath}.${k}`); dropped.push(k); continue; }
    const err = decodeError(k, v);
    if (err) {
      if (drop) { dropped.push(k); continue; }
      return fieldErrors.invalid(mpath, meta, err);
    }
    if (empty(v)) dropped.push(k);
  }
  for (const k of dropped) delete meta[k];
  return undefined;
}

/** Validates every embedded resource under `s` (the root too when `isResourceRoot`): apiVersion, kind, metadata. */
export function validateEmbedded(obj: unknown, s: Structural | undefined, opts: { isResourceRoot?: boolean; path?: string } = {}): FieldError[] {
  if (opts.isResourceRoot) s = s ? { ...s, xEmbeddedResource: true } : { raw: {}, xEmbeddedResource: true };
  const errs: FieldError[] = [];
  walk(opts.path ?? '', obj, s, errs);
  return errs;
}

function walk(path: string, x: unknown, s: Structural | undefined, errs: FieldError[]): void {
  if (!s || !hasEmbeddedResource(s)) return;
  if (Array.isArray(x)) { x.forEach((v, i) => walk(`${path}[${i}]`, v, s.items, errs)); return; }
  if (!isObject(x)) return;
  if (s.xEmbeddedResource) errs.push(...embeddedResource(path, x));
  for (const [k, v] of Object.entries(x)) {
    const prop = s.properties && Object.hasOwn(s.properties, k) ? s.properties[k] : undefined;
    const sub = prop ?? (s.additionalProperties !== undefined ? additionalSchema(s) : undefined);
    // Checked before the path is built: most fields have no embedded resource below them.
    if (sub && hasEmbeddedResource(sub)) walk(join(path, k), v, sub, errs);
  }
}

function embeddedResource(path: string, x: Json): FieldError[] {
  const errs: FieldError[] = [];
  if (!Object.hasOwn(x, 'apiVersion')) errs.push(fieldErrors.required(join(path, 'apiVersion')));
  if (!Object.hasOwn(x, 'kind')) errs.push(fieldErrors.required(join(path, 'kind')));
  const av = x.apiVersion;
  if (Object.hasOwn(x, 'apiVersion')) {
    if (typeof av !== 'string') errs.push(fieldErrors.invalid(join(path, 'apiVersion'), av, 'must be a string'));
    else if (!av) errs.push(fieldErrors.invalid(join(path, 'apiVersion'), av, 'must not be empty'));
    else if (av.split('/').length > 2) errs.push(fieldErrors.invalid(join(path, 'apiVersion'), av, `unexpected GroupVersion string: ${av}`));
  }
  const kind = x.kind;
  if (Object.hasOwn(x, 'kind')) {
    if (typeof kind !== 'string') errs.push(fieldErrors.invalid(join(path, 'kind'), kind, 'must be a string'));
    else if (!kind) errs.push(fieldErrors.invalid(join(path, 'kind'), kind, 'must not be empty'));
    else {
      const m = isDns1035Label(kind.toLowerCase());
      if (m.length) errs.push(fieldErrors.invalid(join(path, 'kind'), kind, `may have mixed case, but should otherwise match: ${m.join(',')}`));
    }
  }
  if (Object.hasOwn(x, 'metadata') && path !== '') {
    const meta = x.metadata;
    if (!isObject(meta)) {
      errs.push(fieldErrors.invalid(join(path, 'metadata'), meta, `json: cannot unmarshal ${jsonKind(meta)} into Go value of type v1.ObjectMeta`));
    } else {
      const m = { ...meta, name: typeof meta.name === 'string' && meta.name ? meta.name : 'fakename' };
      const ns = typeof meta.namespace === 'string' && meta.namespace.length > 0;
      errs.push(...validateObjectMeta(m, { namespaced: ns, nameValidation: 'path-segment' }, join(path, 'metadata')));
    }
  }
  return errs;
}
