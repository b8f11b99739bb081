/**
 * Translation of a CRD schema node (OpenAPI v3 as Kubernetes reads it) into the JSON Schema ajv
 * compiles, keyword by keyword: draft-4 boolean exclusive bounds become draft-7 numbers,
 * `x-kubernetes-int-or-string` becomes `type: [integer, string]`, `nullable` adds `null`,
 * unsupported formats are dropped (Kubernetes strips them) and supported ones are renamed to
 * their normalised name; annotations and extensions are left out. The original type and format
 * ride along as `x-k8s-type` / `x-k8s-format` so error messages can name them as Kubernetes does.
 */
import { isObject } from './structural';
import { supportedFormat } from './formats';

type Json = Record<string, unknown>;

const COPY = ['required', 'enum', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems',
  'minProperties', 'maxProperties', 'multipleOf'];

/** The ajv schema of a CRD schema node (recursively). */
export function toAjvSchema(node: unknown): Json {
  if (!isObject(node)) return {};
  const out: Json = {};
  const type = typeof node.type === 'string' && node.type ? node.type : undefined;
  const types: string[] = node['x-kubernetes-int-or-string'] === true ? ['integer', 'string'] : type ? [type] : [];
  if (types.length) {
    if (node.nullable === true) types.push('null');
    out.type = types.length === 1 ? types[0] : types;
    out['x-k8s-type'] = node['x-kubernetes-int-or-string'] === true ? 'integer,string' : type;
  }
  const format = supportedFormat(node['x-kubernetes-int-or-string'] === true ? undefined : type, typeof node.format === 'string' ? node.format : undefined);
  if (format && format !== 'double' && format !== 'password') {
    out.format = format.replace(/-/g, '');
    out['x-k8s-format'] = format;
  } else if (format) {
    out['x-k8s-format'] = format;
  }
  for (const k of COPY) if (node[k] !== undefined && node[k] !== null) out[k] = node[k];
  if (typeof node.minimum === 'number') {
    if (node.exclusiveMinimum === true) out.exclusiveMinimum = node.minimum;
    else out.minimum = node.minimum;
  }
  if (typeof node.maximum === 'number') {
    if (node.exclusiveMaximum === true) out.exclusiveMaximum = node.maximum;
    else out.maximum = node.maximum;
  }
  if (isObject(node.properties)) {
    const props: Json = {};
    for (const [k, v] of Object.entries(node.properties)) props[k] = toAjvSchema(v);
    if (Object.keys(props).length) out.properties = props;
  }
  if (isObject(node.additionalProperties)) out.additionalProperties = toAjvSchema(node.additionalProperties);
  if (isObject(node.items)) out.items = toAjvSchema(node.items);
  for (const k of ['allOf', 'anyOf', 'oneOf']) {
    const list = node[k];
    if (Array.isArray(list) && list.length) out[k] = list.map(toAjvSchema);
  }
  if (isObject(node.not)) out.not = toAjvSchema(node.not);
  return out;
}
