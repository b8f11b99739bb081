/**
 * Field paths: the addresses that managedFields records. A path is a list of elements, each one
 * of Kubernetes' four kinds, with two textual forms:
 *
 * - serialized (the keys of fieldsV1): `f:<name>` a struct field or map key, `k:{"name":"x"}` the
 *   item of a `map` list with those key values (key fields sorted, compact JSON), `v:"x"` the
 *   item of a `set` list, `i:3` a list index;
 * - printed (conflict messages and Status causes): `.name`, `[name="x"]`, `[="x"]`, `[3]`,
 *   concatenated (`.spec.containers[name="x"].image`).
 *
 * JSON inside `k:` and `v:` is written as Go's encoding/json writes it (`<`, `>`, `&`, U+2028
 * and U+2029 escaped), so keys compare byte-for-byte with entries a Kubernetes server wrote.
 */
import { isPlainObject } from './json-value';

export type PathElement =
  | { field: string }
  | { key: Record<string, unknown> }
  | { value: unknown }
  | { index: number };

export type FieldPath = PathElement[];

/** Thrown for a fieldsV1 key that cannot be read; the caller decides what that means. */
export class FieldPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldPathError';
  }
}

const goEscapes: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** JSON text of a scalar (or, rarely, a composite) value, key-sorted, as Go's encoder writes it. */
export function goJson(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => goEscapes[c]);
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (isPlainObject(v)) {
    return `{${Object.keys(v).sort().map((k) => `${goJson(k)}:${goJson(v[k])}`).join(',')}}`;
  }
  if (v === undefined) return 'null';
  return JSON.stringify(v);
}

/** The fieldsV1 key of one path element. */
export function serializeElement(pe: PathElement): string {
  if ('field' in pe) return `f:${pe.field}`;
  if ('key' in pe) return `k:${goJson(pe.key)}`;
  if ('value' in pe) return `v:${goJson(pe.value)}`;
  return `i:${pe.index}`;
}

/**
 * Reads one fieldsV1 key. Returns undefined for a well-formed key of an unknown kind (Kubernetes
 * drops those: a newer server may know them); throws FieldPathError for a malformed key.
 */
export function parseElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new FieldPathError(`key must be 2 characters long: ${s}`);
  if (s[1] !== ':') throw new FieldPathError(`missing colon: ${s}`);
  const body = s.slice(2);
  switch (s[0]) {
    case 'f':
      return { field: body };
    case 'v':
      return { value: parseJson(body, s) };
    case 'k': {
      const key = parseJson(body, s);
      if (!isPlainObject(key)) throw new FieldPathError(`key of a list item must be an object: ${s}`);
      return { key };
    }
    case 'i': {
      if (!/^-?\d+$/.test(body)) throw new FieldPathError(`invalid index: ${s}`);
      return { index: Number(body) };
    }
    default:
      return undefined;
  }
}

function parseJson(text: string, whole: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new FieldPathError(`invalid JSON in path element: ${whole}`);
  }
}

/** The canonical fieldsV1 key for a key as a client may have written it (spacing, key order). */
export function canonicalKey(s: string): string | undefined {
  const pe = parseElement(s);
  return pe === undefined ? undefined : serializeElement(pe);
}

/** Go's strconv.Quote for the ASCII range: how structured-merge-diff prints string values. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c === 7) out += '\\a';
    else if (c === 8) out += '\\b';
    else if (c === 12) out += '\\f';
    else if (c === 11) out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** A value as structured-merge-diff's value.ToString prints it: strings quoted, others bare. */
function printValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (Array.isArray(v)) return `[${v.map(printValue).join(',')}]`;
  if (isPlainObject(v)) return Object.keys(v).sort().map((k) => `${k}=${printValue(v[k])}`).join('');
  return String(v);
}

/** One element as Kubernetes prints it: `.name`, `[k=v,k2=v2]`, `[=v]`, `[3]`. */
export function elementString(pe: PathElement): string {
  if ('field' in pe) return `.${pe.field}`;
  if ('key' in pe) return `[${Object.keys(pe.key).sort().map((k) => `${k}=${printValue(pe.key[k])}`).join(',')}]`;
  if ('value' in pe) return `[=${printValue(pe.value)}]`;
  return `[${pe.index}]`;
}

/**
 * A path as Kubernetes prints it in apply conflicts (`.data.key`, `.metadata.labels.app`,
 * `.spec.containers[name="x"].image`, `.metadata.finalizers[="a"]`). Accepts elements or their
 * serialized fieldsV1 keys.
 */
export function fieldPathString(path: ReadonlyArray<PathElement | string>): string {
  return path.map((pe) => {
    if (typeof pe !== 'string') return elementString(pe);
    const parsed = parseElement(pe);
    return parsed === undefined ? pe : elementString(parsed);
  }).join('');
}
