/**
 * The type checks Kubernetes' JSON decoding makes, driven by a kind's schema: a value of the
 * wrong JSON type, an integer out of range or a quantity that does not parse means the body
 * cannot be decoded into the kind (answered 400 by the handlers through Strategy.checkDecode).
 */
import { Schema, childSchema } from './schema';
import { ApiObject } from './types';
import { QuantityError, parseQuantity } from '../meta/quantity';

const OWN = new Set(['apiVersion', 'kind', 'metadata']);
const INT32 = 2 ** 31;

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return `number ${v}`;
  return typeof v;
}

function goType(s: Schema): string {
  switch (s.type) {
    case 'integer': return s.format === 'int32' ? 'int32' : 'int64';
    case 'boolean': return 'bool';
    case 'array': return `[]${s.items ? goType(s.items) : 'interface {}'}`;
    case 'object': return s.properties ? 'struct' : `map[string]${s.additionalProperties ? goType(s.additionalProperties) : 'interface {}'}`;
    default: return s.type ?? 'interface {}';
  }
}

function check(v: unknown, s: Schema, path: string): string | undefined {
  if (v === null || v === undefined || s['x-kubernetes-preserve-unknown-fields']) return undefined;
  const wrong = () => `json: cannot unmarshal ${jsonType(v)} into Go struct field ${path} of type ${goType(s)}`;
  if (s.format === 'quantity') {
    if (typeof v !== 'string' && typeof v !== 'number') return wrong();
    try {
      parseQuantity(v);
      return undefined;
    } catch (err) {
      if (err instanceof QuantityError) return err.message;
      throw err;
    }
  }
  switch (s.type) {
    case 'string':
      return typeof v === 'string' || (s['x-kubernetes-int-or-string'] && Number.isInteger(v)) ? undefined : wrong();
    case 'boolean':
      return typeof v === 'boolean' ? undefined : wrong();
    case 'integer':
      if (typeof v !== 'number' || !Number.isInteger(v)) return wrong();
      return s.format === 'int32' && (v >= INT32 || v < -INT32) ? wrong() : undefined;
    case 'number':
      return typeof v === 'number' ? undefined : wrong();
    case 'array':
      if (!Array.isArray(v)) return wrong();
      for (const item of v) {
        const p = s.items && check(item, s.items, path);
        if (p) return p;
      }
      return undefined;
    case 'object':
      if (typeof v !== 'object' || Array.isArray(v)) return wrong();
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
        const cs = childSchema(s, k);
        const p = cs && check(child, cs, s.properties ? `${path}.${k}` : path);
        if (p) return p;
      }
      return undefined;
    default:
      return undefined;
  }
}

/**
 * The first decoding problem of `obj` against the kind's schema (metadata excluded, it is
 * checked on its own), in Go's words; undefined when the body decodes.
 */
export function decodeProblem(obj: ApiObject, schema: Schema, kind: string): string | undefined {
  for (const [k, v] of Object.entries(obj)) {
    const s = OWN.has(k) ? undefined : childSchema(schema, k);
    const p = s && check(v, s, `${kind}.${k}`);
    if (p) return p;
  }
  return undefined;
}
