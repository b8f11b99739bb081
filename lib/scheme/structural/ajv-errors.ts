/**
 * ajv errors → Kubernetes field errors, worded as kube-openapi's validator words them and mapped
 * as apiextensions-apiserver's `kubeOpenAPIResultToFieldErrors` maps them (`spec.replicas:
 * Invalid value: "string": spec.replicas in body must be of type integer: "string"`, `spec.x:
 * Required value`, `Unsupported value: "c": supported values: "a", "b"`, ...). Composition
 * keywords keep kube-openapi's choices: a failed anyOf/oneOf reports its message (on no field:
 * Kubernetes prints `<nil>`) and the errors of its best branch only.
 */
import type { ErrorObject } from 'ajv';
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { goNumber } from './go-format';
import { isObject } from './structural';

type Json = Record<string, unknown>;
const NIL = '<nil>';

// The kube-openapi name of a value's JSON type.
function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'object') return 'object';
  return typeof v;
}
// strfmt's format name for a non-string value (what Go decoded it as).
function valueFormat(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return '';
}

/** `/spec/items/0/name` → `spec.items[0].name`, using the data to tell indexes from keys. */
function fieldPath(pointer: string, data: unknown, prefix: string): string {
  let path = prefix;
  let cur: unknown = data;
  if (!pointer) return path;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      path += `[${seg}]`;
      cur = cur[Number(seg)];
    } else {
      path = path ? `${path}.${seg}` : seg;
      cur = isObject(cur) ? cur[seg] : undefined;
    }
  }
  return path;
}

function resolve(root: Json, schemaPointer: string): unknown {
  let cur: unknown = root;
  for (const seg of schemaPointer.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    cur = Array.isArray(cur) ? cur[Number(seg)] : isObject(cur) ? cur[seg.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  }
  return cur;
}

/** Maps the errors of one failed validation of `data` to field errors (paths prefixed with `prefix`). */
export function toFieldErrors(errors: ErrorObject[], data: unknown, root: Json, prefix = ''): FieldError[] {
  const dropped = new Set<ErrorObject>();
  // kube-openapi checks only type and enum of a null value: its allOf/anyOf/oneOf/not do not run.
  for (const e of errors) if (e.data === null && /\/(anyOf|oneOf|allOf|not)(\/|$)/.test(e.schemaPath)) dropped.add(e);
  const extra = new Map<ErrorObject, FieldError[]>();
  // anyOf / oneOf: keep the errors of the best failing branch (fewest errors, first on a tie).
  for (const e of errors) {
    if (dropped.has(e) || (e.keyword !== 'anyOf' && e.keyword !== 'oneOf')) continue;
    const base = `${e.schemaPath}/`;
    const branches = new Map<string, ErrorObject[]>();
    for (const b of errors) {
      if (!b.schemaPath.startsWith(base)) continue;
      const i = b.schemaPath.slice(base.length).split('/')[0];
      branches.set(i, [...(branches.get(i) ?? []), b]);
    }
    let best: string | undefined;
    for (const [i, list] of branches) if (best === undefined || list.length < branches.get(best)!.length) best = i;
    for (const [i, list] of branches) if (i !== best) list.forEach((b) => dropped.add(b));
  }
  // allOf: kube-openapi adds one message per failing allOf besides the branch errors.
  const allOfSeen = new Set<string>();
  for (const e of errors) {
    if (dropped.has(e)) continue;
    const m = /^(.*\/allOf)\/(\d+)\//.exec(e.schemaPath);
    if (!m) continue;
    const id = `${m[1]}|${e.instancePath}`;
    if (allOfSeen.has(id)) continue;
    allOfSeen.add(id);
    const total = (resolve(root, m[1]) as unknown[] | undefined)?.length ?? 0;
    const failing = new Set(errors.filter((x) => !dropped.has(x) && x.instancePath.startsWith(e.instancePath) && x.schemaPath.startsWith(`${m[1]}/`))
      .map((x) => x.schemaPath.slice(m[1].length + 1).split('/')[0]));
    const p = fieldPath(e.instancePath, data, '');
    const detail = `"${p}" must validate all the schemas (allOf)${failing.size === total ? '. None validated' : ''}`;
    extra.set(e, [fieldErrors.invalid(NIL, '', detail)]);
  }
  const out: FieldError[] = [];
  for (const e of errors) {
    if (dropped.has(e)) continue;
    out.push(...(extra.get(e) ?? []));
    const f = one(e, data, prefix);
    if (f) out.push(f);
  }
  return out;
}

function one(e: ErrorObject, data: unknown, prefix: string): FieldError | undefined {
  const p = fieldPath(e.instancePath, data, prefix);
  // kube-openapi's messages name the path inside the validated value, without the prefix.
  const rel = fieldPath(e.instancePath, data, '');
  const v = e.data;
  const node = (isObject(e.parentSchema) ? e.parentSchema : {}) as Json;
  const params = e.params as Record<string, unknown>;
  const inBody = `${rel} in body`;
  const isInt = typeof v === 'number' && Number.isInteger(v);
  switch (e.keyword) {
    case 'type': {
      const want = typeof node['x-k8s-type'] === 'string' ? node['x-k8s-type'] : String(params.type).replace(/,null$/, '');
      const format = typeof node['x-k8s-format'] === 'string' ? node['x-k8s-format'] : '';
      // kube-openapi names the format when a non-string value meets a formatted schema.
      if (format && v !== null && typeof v !== 'string' && !Array.isArray(v)) {
        const actual = valueFormat(v);
        return fieldErrors.typeInvalid(p, actual, `${inBody} must be of type ${format}: ${JSON.stringify(actual)}`);
      }
      const actual = typeName(v);
      return fieldErrors.typeInvalid(p, actual, `${inBody} must be of type ${want}: ${JSON.stringify(actual)}`);
    }
    case 'required': {
      const missing = String(params.missingProperty);
      return fieldErrors.required(p ? `${p}.${missing}` : missing);
    }
    case 'enum': {
      const allowed = (Array.isArray(node.enum) ? node.enum : []).map((a) => (typeof a === 'string' ? a : JSON.stringify(a)));
      return fieldErrors.notSupported(p, v, allowed);
    }
    case 'maxLength': return fieldErrors.tooLong(p, Number(params.limit));
    case 'minLength': return fieldErrors.invalid(p, v, `${inBody} should be at least ${params.limit} chars long`);
    case 'pattern': return fieldErrors.invalid(p, v, `${inBody} should match '${params.pattern}'`);
    case 'maximum': return fieldErrors.invalid(p, v, `${inBody} should be less than or equal to ${goNumber(Number(params.limit), isInt)}`);
    case 'exclusiveMaximum': return fieldErrors.invalid(p, v, `${inBody} should be less than ${goNumber(Number(params.limit), isInt)}`);
    case 'minimum': return fieldErrors.invalid(p, v, `${inBody} should be greater than or equal to ${goNumber(Number(params.limit), isInt)}`);
    case 'exclusiveMinimum': return fieldErrors.invalid(p, v, `${inBody} should be greater than ${goNumber(Number(params.limit), isInt)}`);
    case 'multipleOf': return fieldErrors.invalid(p, v, `${inBody} should be a multiple of ${goNumber(Number(params.multipleOf), isInt)}`);
    case 'maxItems': return fieldErrors.tooMany(p, Array.isArray(v) ? v.length : -1, Number(params.limit));
    case 'minItems': return fieldErrors.invalid(p, Array.isArray(v) ? v.length : '', `${inBody} should have at least ${params.limit} items`);
    case 'maxProperties': return fieldErrors.tooMany(p, isObject(v) ? Object.keys(v).length : -1, Number(params.limit));
    case 'minProperties': return fieldErrors.invalid(p, isObject(v) ? Object.keys(v).length : '', `${inBody} should have at least ${params.limit} properties`);
    case 'uniqueItems': return fieldErrors.invalid(p, v, `${inBody} shouldn't contain duplicates`);
    case 'format': {
      const format = String(params.format);
      if (format === 'int32' || format === 'int64' || format === 'float') {
        const t = format === 'float' ? 'number' : 'integer';
        return fieldErrors.invalid(NIL, '', `Checked value must be of type ${t} with format ${format} in ${rel}`);
      }
      const written = typeof node['x-k8s-format'] === 'string' ? node['x-k8s-format'] : format;
      return fieldErrors.typeInvalid(p, v, `${inBody} must be of type ${written}: ${JSON.stringify(v)}`);
    }
    case 'anyOf': return fieldErrors.invalid(NIL, '', `"${rel}" must validate at least one schema (anyOf)`);
    case 'oneOf': {
      const passing = params.passingSchemas;
      const more = Array.isArray(passing) ? `Found ${passing.length} valid alternatives` : 'Found none valid';
      return fieldErrors.invalid(NIL, '', `"${rel}" must validate one and only one schema (oneOf). ${more}`);
    }
    case 'not': return fieldErrors.invalid(NIL, '', `"${rel}" must not validate the schema (not)`);
    default: return fieldErrors.invalid(p || NIL, v ?? '', e.message ?? 'invalid');
  }
}
