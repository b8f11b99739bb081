/**
 * The structural checks Kubernetes makes when it turns an apply configuration into a typed value
 * (structured-merge-diff's validation), before any merging: containers have the JSON type their
 * schema says, `map` list items carry their key fields, list items are unique. Scalar types are
 * left to the kind's validation.
 *
 * Fields a struct does not declare are reported separately and left out of the cleaned copy:
 * whether they are an error is the request's fieldValidation decision, made by the handler.
 * (Kubernetes answers them with a 500 `field not declared in schema` whatever fieldValidation says,
 * a known bug.)
 */
import { Schema } from '../scheme/schema';
import { fieldPathString } from './field-path';
import { isPlainObject } from './json-value';
import { listItemKey } from './list-item-key';
import { childOf, itemsOf, shapeOf } from './schema-shape';

export interface ConfigCheck {
  /** Problems as `<path>: <message>` (path printed like `.spec.ports`), in document order. */
  errors: string[];
  /** Printed paths of undeclared struct fields. */
  undeclared: string[];
  /** The configuration without the undeclared fields (the input is not modified). */
  cleaned: unknown;
}

export function checkApplyConfig(config: unknown, schema: Schema | undefined): ConfigCheck {
  const check: ConfigCheck = { errors: [], undeclared: [], cleaned: undefined };
  check.cleaned = walk(config, schema, [], check);
  return check;
}

/** Kubernetes' rendering of several validation errors as one message. */
export function joinConfigErrors(errs: string[]): string {
  return errs.length === 1 ? errs[0] : ['errors:', ...errs.map((e) => `  ${e}`)].join('\n');
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return 'list';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'map' : typeof v;
}

/** Returns the value without undeclared fields. */
function walk(value: unknown, schema: Schema | undefined, path: string[], check: ConfigCheck): unknown {
  const errs = check.errors;
  if (value === null || value === undefined) return value;
  const at = fieldPathString(path);
  const shape = shapeOf(schema, value);
  const declaredArray = schema?.type === 'array' || (schema?.items !== undefined && schema?.type === undefined);
  const declaredObject = schema?.type === 'object';
  if ((shape.kind === 'object' || (shape.kind === 'atomic' && declaredObject)) && !isPlainObject(value)) {
    errs.push(`${at}: expected map, got ${describe(value)}`);
    return value;
  }
  if ((shape.kind === 'set' || shape.kind === 'map-list' || (shape.kind === 'atomic' && declaredArray)) && !Array.isArray(value)) {
    errs.push(`${at}: expected list, got ${describe(value)}`);
    return value;
  }
  if (shape.kind === 'object' && isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const child = childOf(schema, k);
      if (child.undeclared) {
        check.undeclared.push(fieldPathString([...path, `f:${k}`]));
        continue;
      }
      out[k] = walk(v, child.schema, [...path, `f:${k}`], check);
    }
    return out;
  }
  if ((shape.kind === 'set' || shape.kind === 'map-list') && Array.isArray(value)) {
    const items = itemsOf(schema);
    const seen = new Set<string>();
    return value.map((item, i) => {
      const key = listItemKey(shape, item, items);
      if ('error' in key) {
        errs.push(`${at}: element ${i}: ${key.error}`);
        return item;
      }
      if (seen.has(key.key)) errs.push(`${at}: duplicate entries for key ${fieldPathString([key.key])}`);
      seen.add(key.key);
      return shape.kind === 'map-list' ? walk(item, items, [...path, key.key], check) : item;
    });
  }
  return value;
}
