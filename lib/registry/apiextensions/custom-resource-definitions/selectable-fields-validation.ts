/**
 * Kubernetes' checks of a CRD version's selectableFields: each a JSON path of property names
 * into the version's schema (no array notation), not into metadata, ending at a string,
 * boolean or integer field; unique; at most 8.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';

/** Most selectable fields a version may declare. */
export const MAX_SELECTABLE_FIELDS = 8;

type Node = Record<string, unknown>;
const isObject = (v: unknown): v is Node => !!v && typeof v === 'object' && !Array.isArray(v);

/** Splits a path as Kubernetes' scanner does: '.', '[' and ']' alone, text between them as one token. */
function tokens(jsonPath: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (const ch of jsonPath) {
    if (ch === '.' || ch === '[' || ch === ']') {
      if (cur) out.push(cur);
      out.push(ch);
      cur = '';
    } else cur += ch;
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * The schema node and field path `jsonPath` leads to, following properties (or map values), as
 * Kubernetes' ValidFieldPath without array notation; `error` says why it does not.
 */
export function resolveFieldPath(jsonPath: string, schema: unknown): { path: string[]; node?: Node; error?: string } {
  const toks = tokens(jsonPath);
  const path: string[] = [];
  let node: Node | undefined = isObject(schema) ? schema : undefined;
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i];
    if (tok === '[') return { path, error: 'array notation is not allowed' };
    if (tok !== '.') return { path, error: `expected [ or . but got: ${tok}` };
    if (i + 1 >= toks.length) return { path, error: 'unexpected end of JSON path' };
    const name = toks[++i];
    const props = node && isObject(node.properties) && Object.keys(node.properties).length ? node.properties : undefined;
    const additional = node && isObject(node.additionalProperties) ? node.additionalProperties : undefined;
    if (props) {
      if (!Object.hasOwn(props, name) || !isObject(props[name])) return { path, error: 'does not refer to a valid field' };
      node = props[name] as Node;
    } else if (additional) {
      node = additional;
    } else {
      return { path, error: 'does not refer to a valid field' };
    }
    path.push(name);
  }
  return { path, node };
}

/** ValidateCustomResourceSelectableFields against the version's `openAPIV3Schema`. */
export function validateSelectableFields(fields: unknown, schema: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const unique = new Set<string>();
  (Array.isArray(fields) ? fields : []).forEach((f, i) => {
    const jsonPath = isObject(f) && typeof f.jsonPath === 'string' ? f.jsonPath : '';
    const at = child(index(path, i), 'jsonPath');
    if (!jsonPath) { errs.push(fieldErrors.required(at)); return; }
    const found = resolveFieldPath(jsonPath, schema);
    if (found.error) { errs.push(fieldErrors.invalid(at, jsonPath, `is an invalid path: ${found.error}`)); return; }
    if (found.path[0] === 'metadata') errs.push(fieldErrors.invalid(at, jsonPath, 'must not point to fields in metadata'));
    if (!['string', 'boolean', 'integer'].includes(String(found.node?.type))) {
      errs.push(fieldErrors.invalid(at, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    const key = found.path.join('.');
    if (unique.has(key)) errs.push(fieldErrors.duplicate(at, jsonPath));
    else unique.add(key);
  });
  if (unique.size > MAX_SELECTABLE_FIELDS) errs.push(fieldErrors.tooMany(path, unique.size, MAX_SELECTABLE_FIELDS));
  return errs;
}
