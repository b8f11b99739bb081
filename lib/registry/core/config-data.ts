/**
 * Rules shared by ConfigMap and Secret: key names, UTF-8 string values, base64 byte values,
 * the 1 MiB total and the `immutable` freeze.
 */
import { ApiObject } from '../../scheme/types';
import { FieldError, fieldErrors } from '../../meta/field-errors';

/** The largest total payload of a ConfigMap or Secret (Kubernetes' MaxSecretSize). */
export const MAX_DATA_BYTES = 1024 * 1024;

const keyPattern = /^[-._a-zA-Z0-9]+$/;

/** Kubernetes' IsConfigMapKey: the messages for one bad key (empty when valid). */
export function configKeyErrors(key: string): string[] {
  const out: string[] = [];
  if (key.length > 253) out.push('must be no more than 253 characters');
  if (!keyPattern.test(key)) {
    out.push("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
  }
  if (key === '.') out.push("must not be '.'");
  else if (key === '..') out.push("must not be '..'");
  else if (key.startsWith('..')) out.push("must not start with '..'");
  return out;
}

export function validateKeys(map: unknown, path: string): FieldError[] {
  if (!map || typeof map !== 'object') return [];
  const errs: FieldError[] = [];
  for (const key of Object.keys(map)) {
    for (const msg of configKeyErrors(key)) errs.push(fieldErrors.invalid(`${path}[${key}]`, key, msg));
  }
  return errs;
}

/** Checks that a field is a map of strings; returns the reason when it is not. */
export function stringMapProblem(obj: ApiObject, field: string, kind: string): string | undefined {
  const v = obj[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) {
    return `json: cannot unmarshal ${jsonType(v)} into Go struct field ${kind}.${field} of type map[string]${field === 'data' && kind === 'ConfigMap' || field === 'stringData' ? 'string' : '[]uint8'}`;
  }
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== 'string') return `json: cannot unmarshal ${jsonType(val)} into Go struct field ${kind}.${field} of type ${field === 'data' && kind === 'ConfigMap' || field === 'stringData' ? 'string' : '[]uint8'} (key ${JSON.stringify(k)})`;
  }
  return undefined;
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v;
}

const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Checks base64 values ([]byte in JSON); returns the reason for the first bad one. */
export function base64MapProblem(obj: ApiObject, field: string): string | undefined {
  const v = obj[field] as Record<string, string> | undefined;
  if (!v) return undefined;
  for (const val of Object.values(v)) {
    if (!base64Pattern.test(val)) return `illegal base64 data at input byte ${firstBadByte(val)}`;
  }
  return undefined;
}

function firstBadByte(s: string): number {
  const i = s.search(/[^A-Za-z0-9+/=]/);
  if (i >= 0) return i;
  return Math.max(0, s.length - (s.length % 4 || 4));
}

/**
 * Byte length of a map's values (keys do not count, as in Kubernetes); base64 values count as
 * their decoded size, strings as their UTF-8 size.
 */
export function payloadBytes(map: Record<string, string> | undefined, base64: boolean): number {
  if (!map) return 0;
  let n = 0;
  for (const v of Object.values(map)) n += base64 ? Buffer.byteLength(v, 'base64') : Buffer.byteLength(v, 'utf8');
  return n;
}

// A UTF-16 surrogate without its partner: the one way a decoded JSON string has no UTF-8 form.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * String values that have no UTF-8 encoding (a lone surrogate, e.g. from a `"\ud800"` escape):
 * non-UTF-8 content belongs in binaryData. Without this check it would be stored as U+FFFD.
 */
export function validateUtf8Values(map: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(map ?? {})) {
    if (!LONE_SURROGATE.test(v)) continue;
    const shown = v.length > 64 ? `${v.slice(0, 64)}...` : v;
    errs.push(fieldErrors.invalid(`${path}[${k}]`, shown, 'must be valid UTF-8; non-UTF-8 values belong in binaryData'));
  }
  return errs;
}

/** `immutable` rules on update: data frozen once true, and true cannot be unset. */
export function validateImmutable(obj: ApiObject, old: ApiObject, dataFields: string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (obj.immutable !== true) errs.push(fieldErrors.forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of dataFields) {
    if (JSON.stringify(obj[f] ?? {}) !== JSON.stringify(old[f] ?? {})) {
      errs.push(fieldErrors.forbidden(f, 'field is immutable when `immutable` is set'));
    }
  }
  return errs;
}
