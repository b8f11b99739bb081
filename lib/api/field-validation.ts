/**
 * Field validation of write bodies (`fieldValidation=Strict|Warn|Ignore`): fields the kind's
 * schema does not know and fields given twice in a JSON or YAML body. Strict answers 400 naming
 * every offending path; Warn (the default) answers with one `Warning` header per problem.
 */
import type { Context } from 'koa';
import { Schema } from '../scheme/schema';
import { ApiError, errors } from '../meta/api-errors';
import { addWarning } from './warnings';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export function parseFieldValidation(value: string | undefined): FieldValidation {
  if (value === undefined || value === '') return 'Warn';
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  throw errors.badRequest(`fieldValidation: Unsupported value: ${JSON.stringify(value)}: supported values: "Ignore", "Strict", "Warn"`);
}

/** Paths (dotted, list items as `[i]`) of fields the schema does not define. */
export function unknownFields(value: unknown, schema: Schema | undefined): string[] {
  const out: string[] = [];
  collectUnknown(value, schema, '', out);
  return out;
}

function collectUnknown(value: unknown, schema: Schema | undefined, path: string, out: string[]): void {
  if (!schema || value === null || typeof value !== 'object') return;
  // Unknown fields are kept here, but declared ones are still checked inside (an embedded
  // resource's metadata, say), as Kubernetes' pruning goes on below them.
  const preserve = !!schema['x-kubernetes-preserve-unknown-fields'];
  if (preserve && !schema.properties) return;
  if (Array.isArray(value)) {
    // Only an item schema can find something; the item paths are built only then.
    if (schema.items) for (let i = 0; i < value.length; i++) collectUnknown(value[i], schema.items, `${path}[${i}]`, out);
    return;
  }
  for (const key in value as Record<string, unknown>) {
    if (!Object.hasOwn(value, key)) continue;
    const childSchema = (schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined) ?? schema.additionalProperties;
    if (!childSchema) {
      if (schema.properties && !preserve) out.push(path ? `${path}.${key}` : key);
      continue;
    }
    const child = (value as Record<string, unknown>)[key];
    if (child !== null && typeof child === 'object') collectUnknown(child, childSchema, path ? `${path}.${key}` : key, out);
  }
}

/**
 * A copy of `value` without the fields unknownFields reports: Kubernetes decodes a body into the
 * kind's type, so under Warn and Ignore an unknown field is dropped, never stored.
 * `unknown`: that report, when already made; empty means there is nothing to drop (no copy).
 */
export function dropUnknownFields<T>(value: T, schema: Schema | undefined, unknown?: readonly string[]): T {
  if (unknown && !unknown.length) return value;
  if (!schema || value === null || typeof value !== 'object') return value;
  const preserve = !!schema['x-kubernetes-preserve-unknown-fields'];
  if (preserve && !schema.properties) return value;
  if (Array.isArray(value)) return value.map((item) => dropUnknownFields(item, schema.items)) as T;
  const kept: Array<[string, unknown]> = [];
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const childSchema = (schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined) ?? schema.additionalProperties;
    if (childSchema) kept.push([key, dropUnknownFields(child, childSchema)]);
    else if (!schema.properties || preserve) kept.push([key, child]);
  }
  // fromEntries defines own properties, so a key "__proto__" stays data.
  return Object.fromEntries(kept) as T;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Paths of keys that appear twice in one JSON object. A small scanner over the raw text, so
 * the body is still parsed by JSON.parse (which keeps the last value, as Go's decoder does).
 * String values are skipped, not decoded; a path is only spelled out for a duplicate.
 */
export function duplicateJsonFields(text: string): string[] {
  const dups: string[] = [];
  // The path to the current value, one segment per level: a key, or an item index.
  const segments: Array<string | number> = [];
  const pathOf = (): string => {
    let p = '';
    for (const seg of segments) p = typeof seg === 'number' ? `${p}[${seg}]` : p ? `${p}.${seg}` : seg;
    return p;
  };
  let i = 0;
  const n = text.length;
  const ws = (): void => {
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
    }
  };
  /** Moves past the string that starts at i (a quote not preceded by an odd run of backslashes ends it). */
  const skipString = (): void => {
    let from = i + 1;
    for (;;) {
      const q = text.indexOf('"', from);
      if (q < 0) { i = n; return; }
      let b = q - 1;
      while (text.charCodeAt(b) === BACKSLASH) b--;
      if ((q - 1 - b) % 2 === 0) { i = q + 1; return; }
      from = q + 1;
    }
  };
  const key = (): string => {
    const start = i;
    skipString();
    const raw = text.slice(start + 1, i - 1);
    return raw.includes('\\') ? JSON.parse(text.slice(start, i)) : raw;
  };
  const value = (): void => {
    ws();
    const c = text.charCodeAt(i);
    if (c === 0x7b) { // {
      i++;
      ws();
      if (text.charCodeAt(i) === 0x7d) { i++; return; }
      let seen: Set<string> | undefined;
      let only: string | undefined;
      for (;;) {
        ws();
        const k = key();
        // Most objects are small: a Set only from the second key on.
        if (only === undefined && !seen) only = k;
        else {
          if (!seen) { seen = new Set([only as string]); only = undefined; }
          if (seen.has(k)) { segments.push(k); dups.push(pathOf()); segments.pop(); }
          seen.add(k);
        }
        ws(); i++; // ':'
        segments.push(k);
        value();
        segments.pop();
        ws();
        if (text.charCodeAt(i++) === 0x7d) return;
      }
    } else if (c === 0x5b) { // [
      i++;
      ws();
      if (text.charCodeAt(i) === 0x5d) { i++; return; }
      for (let item = 0; ; item++) {
        segments.push(item);
        value();
        segments.pop();
        ws();
        if (text.charCodeAt(i++) === 0x5d) return;
      }
    } else if (c === QUOTE) {
      skipString();
    } else {
      for (; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x09 || d === 0x0a || d === 0x0d) break;
      }
    }
  };
  try {
    value();
  } catch {
    // The body was already parsed successfully; a scanner slip must not reject it.
  }
  return dups;
}

/**
 * Applies the chosen validation: Strict throws 400 listing every problem; Warn adds `Warning`
 * headers; Ignore does nothing. `prefix` leads the 400 message, as Kubernetes' decoder words it for
 * create and update (`ConfigMap in version "v1" cannot be handled as a ConfigMap: `).
 */
export function enforceFieldValidation(ctx: Context, mode: FieldValidation, problems: { unknown: string[]; duplicate: string[] }, prefix = ''): void {
  if (mode === 'Ignore') return;
  const messages = [
    ...problems.duplicate.map((p) => `duplicate field "${p}"`),
    ...problems.unknown.map((p) => `unknown field "${p}"`),
  ];
  if (!messages.length) return;
  if (mode === 'Strict') throw new ApiError(400, 'BadRequest', `${prefix}strict decoding error: ${messages.join(', ')}`);
  addWarnings(ctx, messages);
}

/**
 * Adds `Warning` headers (code 299, agent `-`) through the request's recorder (lib/api/warnings.ts),
 * so every warning of a request shares kube-apiserver's dedupe and size limits.
 */
export function addWarnings(ctx: Context, messages: string[]): void {
  addWarning(ctx, ...messages);
}
