/**
 * Kubernetes' structural-schema rules (`ValidateStructural`: invariants and completeness), run at
 * CRD create and update. Paths and messages are Kubernetes'; the list is sorted by its text as
 * Kubernetes sorts it.
 */
import { FieldError, fieldErrors, formatFieldError } from '../../meta/field-errors';
import { Structural, additionalSchema, isObject } from './structural';

type Level = 'root' | 'item' | 'field';
type Json = Record<string, unknown>;

const key = (path: string, k: string) => `${path}[${k}]`;

/** ValidateStructural: the invariants of a structural schema, then its completeness. Sorted by text. */
export function validateStructural(path: string, s: Structural): FieldError[] {
  const errs = [...invariants(s, 'root', path), ...completeness(s.raw, s, path, path)];
  return errs.sort((a, b) => (formatFieldError(a) < formatFieldError(b) ? -1 : formatFieldError(a) > formatFieldError(b) ? 1 : 0));
}

function invariants(s: Structural | undefined, lvl: Level, path: string): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  if (s.type === 'array' && !s.items) errs.push(fieldErrors.required(`${path}.items`, 'must be specified'));
  errs.push(...invariants(s.items, 'item', `${path}.items`));
  for (const [k, v] of Object.entries(s.properties ?? {})) errs.push(...invariants(v, 'field', key(`${path}.properties`, k)));
  if (s.additionalProperties !== undefined) {
    if (lvl === 'root') errs.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'must not be used at the root'));
    const ap = additionalSchema(s);
    if (ap) errs.push(...invariants(ap, 'field', `${path}.additionalProperties`));
  }
  if (s.xIntOrString && s.xPreserveUnknownFields) {
    errs.push(fieldErrors.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  if (s.xIntOrString && s.xEmbeddedResource) {
    errs.push(fieldErrors.invalid(`${path}.x-kubernetes-embedded-resource`, true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  errs.push(...valueValidation(s.raw, isIntOrStringAnyOf(s.raw), isIntOrStringAllOf(s.raw), path));

  const checkMetadata = lvl === 'root' || !!s.xEmbeddedResource;
  if (s.xEmbeddedResource && s.type !== 'object') {
    if (!s.type) errs.push(fieldErrors.required(`${path}.type`, 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(fieldErrors.invalid(`${path}.type`, s.type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!s.type && !s.xIntOrString && !s.xPreserveUnknownFields) {
    const detail = { root: 'must not be empty at the root', item: 'must not be empty for specified array items', field: 'must not be empty for specified object fields' }[lvl];
    errs.push(fieldErrors.required(`${path}.type`, detail));
  }
  if (s.xEmbeddedResource && s.additionalProperties !== undefined) {
    errs.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (lvl === 'root' && s.type && s.type !== 'object') errs.push(fieldErrors.invalid(`${path}.type`, s.type, 'must be object at the root'));
  for (const name of ['kind', 'apiVersion']) {
    const p = s.properties?.[name];
    if (p && checkMetadata && p.type !== 'string') {
      errs.push(fieldErrors.invalid(`${key(`${path}.properties`, name)}.type`, p.type ?? '', 'must be string'));
    }
  }
  const metadata = s.properties?.metadata;
  if (metadata) errs.push(...metadataInvariants(metadata, checkMetadata, lvl, key(`${path}.properties`, 'metadata')));
  if (s.xEmbeddedResource && !s.xPreserveUnknownFields && !s.properties) {
    errs.push(fieldErrors.required(`${path}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
  return errs;
}

// The root's metadata may only restrict name and generateName (ObjectMeta is implied).
function metadataInvariants(s: Structural, checkMetadata: boolean, lvl: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (checkMetadata && s.type !== 'object') errs.push(fieldErrors.invalid(`${path}.type`, s.type ?? '', 'must be object'));
  if (lvl === 'root') {
    const props = Object.keys(s.properties ?? {});
    const onlyNames = props.every((p) => p === 'name' || p === 'generateName');
    // Kubernetes clears type and default and compares the rest with an empty schema.
    const extra = !onlyNames || Object.entries(s.raw).some(([k, v]) => k !== 'type' && k !== 'default' && k !== 'properties'
      && v !== undefined && v !== null && v !== false && v !== '' && !(Array.isArray(v) && !v.length));
    if (extra) errs.push(fieldErrors.forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
  return errs;
}

const isIntOrStringPair = (a: unknown): boolean => Array.isArray(a) && a.length === 2
  && isObject(a[0]) && Object.keys(a[0]).length === 1 && a[0].type === 'integer'
  && isObject(a[1]) && Object.keys(a[1]).length === 1 && a[1].type === 'string';
function isIntOrStringAnyOf(raw: Json): boolean { return isIntOrStringPair(raw.anyOf); }
function isIntOrStringAllOf(raw: Json): boolean {
  return Array.isArray(raw.allOf) && raw.allOf.length >= 1 && isObject(raw.allOf[0]) && isIntOrStringPair(raw.allOf[0].anyOf);
}

function valueValidation(v: Json, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = (k: string): Json[] => (Array.isArray(v[k]) ? (v[k] as unknown[]).filter(isObject) : []);
  if (!skipAnyOf) list('anyOf').forEach((x, i) => errs.push(...nested(x, false, `${path}.anyOf[${i}]`)));
  list('allOf').forEach((x, i) => errs.push(...nested(x, skipFirstAllOfAnyOf && i === 0, `${path}.allOf[${i}]`)));
  list('oneOf').forEach((x, i) => errs.push(...nested(x, false, `${path}.oneOf[${i}]`)));
  if (isObject(v.not)) errs.push(...nested(v.not, false, `${path}.not`));
  if (typeof v.pattern === 'string' && v.pattern) {
    const err = patternError(v.pattern);
    if (err) errs.push(fieldErrors.invalid(`${path}.pattern`, v.pattern, `must be a valid regular expression, but isn't: ${err}`));
  }
  return errs;
}

/** The compile error of a `pattern` as the validator will run it (JavaScript, unicode), or undefined. */
export function patternError(p: string): string | undefined {
  try {
    new RegExp(p, 'u');
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

// Inside allOf/anyOf/oneOf/not only value validations may appear.
function nested(v: Json, skipAnyOf: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [...valueValidation(v, skipAnyOf, false, path)];
  if (isObject(v.items)) errs.push(...nested(v.items, false, `${path}.items`));
  if (isObject(v.properties)) {
    for (const [k, p] of Object.entries(v.properties)) if (isObject(p)) errs.push(...nested(p, false, key(`${path}.properties`, k)));
  }
  const set = (k: string) => v[k] !== undefined && v[k] !== null && v[k] !== '' && v[k] !== false;
  if (set('type')) errs.push(fieldErrors.forbidden(`${path}.type`, 'must be empty to be structural'));
  if (v.additionalProperties !== undefined && v.additionalProperties !== null) {
    errs.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'must be undefined to be structural'));
  }
  if (set('default')) errs.push(fieldErrors.forbidden(`${path}.default`, 'must be undefined to be structural'));
  if (set('title')) errs.push(fieldErrors.forbidden(`${path}.title`, 'must be empty to be structural'));
  if (set('description')) errs.push(fieldErrors.forbidden(`${path}.description`, 'must be empty to be structural'));
  if (v.nullable === true) errs.push(fieldErrors.forbidden(`${path}.nullable`, 'must be false to be structural'));
  for (const x of ['x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string']) {
    if (v[x] === true) errs.push(fieldErrors.forbidden(`${path}.${x}`, 'must be false to be structural'));
  }
  if (Array.isArray(v['x-kubernetes-list-map-keys']) && (v['x-kubernetes-list-map-keys'] as unknown[]).length) {
    errs.push(fieldErrors.forbidden(`${path}.x-kubernetes-list-map-keys`, 'must be empty to be structural'));
  }
  for (const x of ['x-kubernetes-list-type', 'x-kubernetes-map-type']) {
    if (v[x] !== undefined && v[x] !== null) errs.push(fieldErrors.forbidden(`${path}.${x}`, 'must be undefined to be structural'));
  }
  if (Array.isArray(v['x-kubernetes-validations']) && (v['x-kubernetes-validations'] as unknown[]).length) {
    errs.push(fieldErrors.forbidden(`${path}.x-kubernetes-validations`, 'must be empty to be structural'));
  }
  if (isObject(v.properties) && Object.hasOwn(v.properties, 'metadata')) {
    errs.push(fieldErrors.forbidden(key(`${path}.properties`, 'metadata'), 'must not be specified in a nested context'));
  }
  return errs;
}

// Completeness: whatever a value validation mentions must also be specified structurally.
function completeness(v: Json, s: Structural | undefined, sPath: string, vPath: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = (k: string): Json[] => (Array.isArray(v[k]) ? (v[k] as unknown[]).filter(isObject) : []);
  if (isObject(v.not)) errs.push(...nestedCompleteness(v.not, s, sPath, `${vPath}.not`));
  list('allOf').forEach((x, i) => errs.push(...nestedCompleteness(x, s, sPath, `${vPath}.allOf[${i}]`)));
  list('anyOf').forEach((x, i) => errs.push(...nestedCompleteness(x, s, sPath, `${vPath}.anyOf[${i}]`)));
  list('oneOf').forEach((x, i) => errs.push(...nestedCompleteness(x, s, sPath, `${vPath}.oneOf[${i}]`)));
  return errs;
}

function nestedCompleteness(v: Json, s: Structural | undefined, sPath: string, vPath: string): FieldError[] {
  if (!s) return [fieldErrors.required(sPath, `because it is defined in ${vPath}`)];
  const errs = completeness(v, s, sPath, vPath);
  if (isObject(v.items)) {
    if (!s.items) errs.push(fieldErrors.required(`${sPath}.items`, `because it is defined in ${vPath}.items`));
    else errs.push(...nestedCompleteness(v.items, s.items, `${sPath}.items`, `${vPath}.items`));
  }
  if (isObject(v.properties)) {
    for (const [k, p] of Object.entries(v.properties)) {
      if (!isObject(p)) continue;
      const sp = s.properties?.[k];
      if (!sp) errs.push(fieldErrors.required(key(`${sPath}.properties`, k), `because it is defined in ${key(`${vPath}.properties`, k)}`));
      else errs.push(...nestedCompleteness(p, sp, key(`${sPath}.properties`, k), key(`${vPath}.properties`, k)));
    }
  }
  return errs;
}
