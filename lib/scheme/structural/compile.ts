/**
 * One ajv instance for all custom-resource schemas, with Kubernetes' formats, and a cache so a
 * schema is compiled once however many times a CRD version is (re)built. `compileValidator`
 * returns a function from an object to Kubernetes' field errors.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import { ajv as ajvPackage } from '../../lazy-packages';
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { STRING_FORMATS, inNumericRange } from './formats';
import { toAjvSchema } from './ajv-schema';
import { toFieldErrors } from './ajv-errors';

/** Validates one value against a compiled schema: [] when valid. `prefix` is prepended to every path. */
export type CompiledValidator = (value: unknown, prefix?: string) => FieldError[];

let ajv: Ajv | undefined;

function instance(): Ajv {
  if (ajv) return ajv;
  ajv = new (ajvPackage().default)({
    allErrors: true, // Kubernetes reports every error
    strict: false, // the x-k8s-* annotations are ignored by ajv
    verbose: true, // errors carry the value and the schema node: the messages need both
    validateSchema: false, // checked at CRD time by our own rules
    addUsedSchema: false,
    unicodeRegExp: true,
    useDefaults: false,
    coerceTypes: false,
    code: { optimize: true },
  });
  for (const [name, validate] of Object.entries(STRING_FORMATS)) ajv.addFormat(name, { type: 'string', validate });
  for (const name of ['int32', 'int64', 'float']) {
    ajv.addFormat(name, { type: 'number', validate: (v: number) => inNumericRange(name, v) });
  }
  return ajv;
}

const cache = new Map<string, { fn: ValidateFunction; schema: Record<string, unknown> }>();
const CACHE_LIMIT = 1000;
let compiles = 0;

/** How many schemas have been compiled by ajv in this process (tests check compile-once with it). */
export function compileCount(): number {
  return compiles;
}

/**
 * Compiles (or takes from the cache) the validator of a CRD schema node. A schema ajv cannot
 * compile yields a validator that reports `error building validator` instead of throwing.
 */
export function compileValidator(schema: unknown): CompiledValidator {
  const translated = toAjvSchema(schema);
  const key = JSON.stringify(translated);
  let entry = cache.get(key);
  if (!entry) {
    const a = instance();
    let fn: ValidateFunction;
    try {
      fn = a.compile(translated);
    } catch (e) {
      const msg = `error building validator: ${(e as Error).message}`;
      return () => [fieldErrors.invalid('<nil>', '', msg)];
    } finally {
      a.removeSchema(translated); // our cache owns it; ajv's own would grow with every CRD change
    }
    compiles++;
    if (cache.size >= CACHE_LIMIT) cache.clear();
    entry = { fn, schema: translated };
    cache.set(key, entry);
  }
  const { fn, schema: root } = entry;
  return (value, prefix = '') => (fn(value) ? [] : toFieldErrors(fn.errors ?? [], value, root, prefix));
}
