/**
 * Field validation of write bodies (`fieldValidation=Strict|Warn|Ignore`): fields the kind's
 * schema does not know and fields given twice in a JSON or YAML body. Strict answers 400 naming
 * every offending path; Warn (the default) answers with one `Warning` header per problem.
 */
import type { Context } from 'koa';
import { Schema } from '../scheme/schema';
import { ApiError, errors } from '../meta/api-errors';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export function parseFieldValidation(value: string | undefined): FieldValidation {
  if (value === undefined || value === '') return 'Warn';
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  throw errors.badRequest(`fieldValidation: Unsupported value: ${JSON.stringify(value)}: supported values: "Ignore", "Strict", "Warn"`);
}

/** Paths (dotted, list items as `[i]`) of fields the schema does not define. */
export function unknownFields(value: unknown, schema: Schema | undefined, path = ''): string[] {
  if (!schema || schema['x-kubernetes-preserve-unknown-fields'] || value === null || typeof value !== 'object') return [];
  const out: string[] = [];
  if (Array.isArray(value)) {
    value.forEach((item, i) => out.push(...unknownFields(item, schema.items, `${path}[${i}]`)));
    return out;
  }
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const childPath = path ? `${path}.${key}` : key;
    const childSchema = (schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined) ?? schema.additionalProperties;
    if (!childSchema) {
      if (schema.properties) out.push(childPath);
      continue;
    }
    out.push(...unknownFields(child, childSchema, childPath));
  }
  return out;
}

/**
 * A copy of `value` without the fields unknownFields reports: Kubernetes decodes a body into the
 * kind's type, so under Warn and Ignore an unknown field is dropped, never stored.
 */
export function dropUnknownFields<T>(value: T, schema: Schema | undefined): T {
  if (!schema || schema['x-kubernetes-preserve-unknown-fields'] || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => dropUnknownFields(item, schema.items)) as T;
  const kept: Array<[string, unknown]> = [];
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const childSchema = (schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined) ?? schema.additionalProperties;
    if (childSchema) kept.push([key, dropUnknownFields(child, childSchema)]);
    else if (!schema.properties) kept.push([key, child]);
  }
  // fromEntries defines own properties, so a key "__proto__" stays data.
  return Object.fromEntries(kept) as T;
}

/**
 * Paths of keys that appear twice in one JSON object. A small scanner over the raw text, so
 * the body is still parsed by JSON.parse (which keeps the last value, as Go's decoder does).
 */
export function duplicateJsonFields(text: string): string[] {
  const dups: string[] = [];
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') { i++; return; }
      for (;;) {
        ws();
        const key = str();
        const childPath = path ? `${path}.${key}` : key;
        if (seen.has(key)) dups.push(childPath);
        seen.add(key);
        ws(); i++; // ':'
        value(childPath);
        ws();
        if (text[i++] === '}') return;
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') { i++; return; }
      for (let n = 0; ; n++) {
        value(`${path}[${n}]`);
        ws();
        if (text[i++] === ']') return;
      }
    } else if (c === '"') {
      str();
    } else {
      while (i < text.length && !',}] \t\r\n'.includes(text[i])) i++;
    }
  };
  try {
    value('');
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

/** RFC 7234 warning headers, as kube-apiserver sends them (code 299, agent `-`). */
export function addWarnings(ctx: Context, messages: string[]): void {
  const existing = ctx.response.get('Warning');
  const list = existing ? (Array.isArray(existing) ? existing : [existing]) : [];
  ctx.set('Warning', [...list, ...messages.map((m) => `299 - ${JSON.stringify(m)}`)]);
}
