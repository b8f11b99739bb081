/**
 * Pruning (Kubernetes' `pruning.Prune`): removes from a decoded object every field its
 * structural schema does not specify, unless a node says `x-kubernetes-preserve-unknown-fields`
 * (specified properties below it are still pruned). Embedded resources, and the root, keep
 * `apiVersion`, `kind` and `metadata`. Returns the removed paths, sorted, in Kubernetes' form
 * (`spec.foo`, `spec.items[0].bar`) for fieldValidation=Strict/Warn.
 */
import { Structural, additionalSchema, isObject } from './structural';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** Options of a prune run. */
export interface PruneOptions {
  /** Treat `s` as the schema of a whole object (apiVersion/kind/metadata kept). */
  isResourceRoot?: boolean;
  /** Collect the removed paths (otherwise the result is always []). */
  track?: boolean;
}

/** Prunes `obj` in place against `s`; returns the removed paths when `track`. */
export function prune(obj: unknown, s: Structural | undefined, opts: PruneOptions = {}): string[] {
  if (opts.isResourceRoot) s = s ? (s.xEmbeddedResource ? s : { ...s, xEmbeddedResource: true }) : { raw: {}, xEmbeddedResource: true };
  const out: string[] | undefined = opts.track ? [] : undefined;
  walk(obj, s, '', out);
  return out ? out.sort() : [];
}

const join = (parent: string, k: string) => (parent ? `${parent}.${k}` : k);

/** Values with nothing below them to prune: scalars and null. */
const leaf = (v: unknown) => v === null || typeof v !== 'object';

function walk(x: unknown, s: Structural | undefined, path: string, out: string[] | undefined): void {
  if (s?.xPreserveUnknownFields) { skip(x, s, path, out); return; }
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) if (!leaf(x[i])) walk(x[i], s?.items, out ? `${path}[${i}]` : '', out);
    return;
  }
  if (!isObject(x)) return;
  for (const k of Object.keys(x)) {
    if (s?.xEmbeddedResource && META_FIELDS.has(k)) continue;
    const prop = s?.properties && Object.hasOwn(s.properties, k) ? s.properties[k] : undefined;
    // A specified field holding a scalar keeps it: nothing to walk, no path to build.
    if (prop) { if (!leaf(x[k])) walk(x[k], prop, out ? join(path, k) : '', out); }
    else if (s && s.additionalProperties !== undefined) { if (!leaf(x[k])) walk(x[k], additionalSchema(s), out ? join(path, k) : '', out); }
    else {
      // A root-level apiVersion/kind/metadata without an embedded schema is not reported.
      if (out && (!META_FIELDS.has(k) || path !== '')) out.push(join(path, k));
      delete x[k];
    }
  }
}

// Below preserve-unknown-fields only the specified properties are pruned further.
function skip(x: unknown, s: Structural, path: string, out: string[] | undefined): void {
  if (Array.isArray(x)) {
    const items = s.items;
    if (items) x.forEach((v, i) => skip(v, items, `${path}[${i}]`, out));
    return;
  }
  if (!isObject(x)) return;
  for (const k of Object.keys(x)) {
    if (s.xEmbeddedResource && META_FIELDS.has(k)) continue;
    const prop = s.properties && Object.hasOwn(s.properties, k) ? s.properties[k] : undefined;
    if (prop) walk(x[k], prop, join(path, k), out);
    else if (s.additionalProperties !== undefined) walk(x[k], additionalSchema(s), join(path, k), out);
  }
}
