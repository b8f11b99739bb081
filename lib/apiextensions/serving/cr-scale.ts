/**
 * The `/scale` subresource of a custom resource (Kubernetes' customresource ScaleREST): an
 * `autoscaling/v1 Scale` read from and written to the CR at the CRD's `specReplicasPath`,
 * `statusReplicasPath` and `labelSelectorPath`, and the scale checks of the CR strategy
 * (`ValidateScaleSpec`/`ValidateScaleStatus`). Paths are simple (`.spec.replicas`): split on dots.
 */
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { ApiObject } from '../../scheme/types';
import { CrdScale } from '../../registry/apiextensions/custom-resource-definitions/view';
import { goFloat } from '../../scheme/structural/go-format';

/** The replicas of a Scale whose CR has no value at specReplicasPath (Go's smallest int32). */
export const UNSET_SPEC_REPLICAS = -2147483648;
const MAX_INT32 = 2147483647;

/** A value at a path, Kubernetes' NestedFieldNoCopy: found or not, or its accessor error. */
interface Nested { value?: unknown; found: boolean; error?: string }

const segments = (path: string) => path.replace(/^\./, '').split('.');
const dotted = (fields: string[]) => `.${fields.join('.')}`;

/** Go's `%T` of a JSON value in an unstructured object. */
export function goType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'object') return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

/** Go's `%v` of a JSON value in an unstructured object (`map[a:1]`, `[1 2]`, `<nil>`). */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o).sort().map((k) => `${k}:${goValue(o[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : goFloat(v);
  return String(v);
}

function nested(obj: unknown, fields: string[]): Nested {
  let val: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (val === null || val === undefined) return { found: false };
    if (typeof val !== 'object' || Array.isArray(val)) {
      return { found: false, error: `${dotted(fields.slice(0, i + 1))} accessor error: ${goValue(val)} is of the type ${goType(val)}, expected map[string]interface{}` };
    }
    if (!Object.hasOwn(val, fields[i])) return { found: false };
    val = (val as Record<string, unknown>)[fields[i]];
  }
  return { value: val, found: true };
}

/** unstructured.NestedInt64: 0 when absent, an error when not an integer. */
export function nestedInt64(obj: unknown, path: string): { value: number; found: boolean; error?: string } {
  const fields = segments(path);
  const n = nested(obj, fields);
  if (n.error) return { value: 0, found: false, error: n.error };
  if (!n.found) return { value: 0, found: false };
  if (typeof n.value !== 'number' || !Number.isInteger(n.value)) {
    return { value: 0, found: false, error: `${dotted(fields)} accessor error: ${goValue(n.value)} is of the type ${goType(n.value)}, expected int64` };
  }
  return { value: n.value, found: true };
}

/** unstructured.NestedString: '' when absent, an error when not a string. */
export function nestedString(obj: unknown, path: string): { value: string; error?: string } {
  const fields = segments(path);
  const n = nested(obj, fields);
  if (n.error) return { value: '', error: n.error };
  if (!n.found) return { value: '' };
  if (typeof n.value !== 'string') {
    return { value: '', error: `${dotted(fields)} accessor error: ${goValue(n.value)} is of the type ${goType(n.value)}, expected string` };
  }
  return { value: n.value };
}

/** Kubernetes' scaleFromCustomResource: the Scale of `cr`, whether spec replicas were found, or the accessor error. */
export function scaleFromCustomResource(cr: ApiObject, scale: CrdScale): { scale?: ApiObject; replicasFound: boolean; error?: string } {
  const spec = nestedInt64(cr, String(scale.specReplicasPath ?? ''));
  if (spec.error) return { replicasFound: false, error: spec.error };
  const status = nestedInt64(cr, String(scale.statusReplicasPath ?? ''));
  if (status.error) return { replicasFound: false, error: status.error };
  let selector = '';
  if (scale.labelSelectorPath) {
    const sel = nestedString(cr, scale.labelSelectorPath);
    if (sel.error) return { replicasFound: false, error: sel.error };
    selector = sel.value;
  }
  const meta = cr.metadata ?? {};
  const metadata: Record<string, unknown> = {};
  for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp'] as const) {
    if (meta[k] !== undefined && meta[k] !== '') metadata[k] = meta[k];
  }
  // int32 conversion, as Go's int32(specReplicas) wraps.
  const int32 = (n: number) => Number(BigInt.asIntN(32, BigInt(n)));
  return {
    replicasFound: spec.found,
    scale: {
      kind: 'Scale', apiVersion: 'autoscaling/v1', metadata,
      spec: { replicas: int32(spec.value) },
      status: { replicas: int32(status.value), ...(selector ? { selector } : {}) },
    },
  };
}

/** The CR with `replicas` written at specReplicasPath (intermediate objects created). */
export function withSpecReplicas(cr: ApiObject, scale: CrdScale, replicas: number): ApiObject {
  const fields = segments(String(scale.specReplicasPath ?? ''));
  const out = structuredClone(cr);
  let cur: Record<string, unknown> = out;
  for (const f of fields.slice(0, -1)) {
    const next = cur[f];
    if (!next || typeof next !== 'object' || Array.isArray(next)) cur[f] = {};
    cur = cur[f] as Record<string, unknown>;
  }
  cur[fields[fields.length - 1]] = replicas;
  return out;
}

function replicasErrors(cr: ApiObject, path: string): FieldError[] {
  const r = nestedInt64(cr, path);
  if (r.error) return [fieldErrors.invalid(path, r.value, r.error)];
  if (r.value < 0) return [fieldErrors.invalid(path, r.value, 'should be a non-negative integer')];
  if (r.value > MAX_INT32) return [fieldErrors.invalid(path, r.value, `should be less than or equal to ${MAX_INT32}`)];
  return [];
}

/** ValidateScaleSpec: the value at specReplicasPath (field path as written, with its leading dot). */
export function validateScaleSpec(cr: ApiObject, scale: CrdScale | undefined): FieldError[] {
  return scale ? replicasErrors(cr, String(scale.specReplicasPath ?? '')) : [];
}

/** ValidateScaleStatus: the value at statusReplicasPath, and labelSelectorPath must hold a string. */
export function validateScaleStatus(cr: ApiObject, scale: CrdScale | undefined): FieldError[] {
  if (!scale) return [];
  const errs = replicasErrors(cr, String(scale.statusReplicasPath ?? ''));
  if (scale.labelSelectorPath) {
    const sel = nestedString(cr, scale.labelSelectorPath);
    if (sel.error) errs.push(fieldErrors.invalid(scale.labelSelectorPath, sel.value, sel.error));
  }
  return errs;
}
