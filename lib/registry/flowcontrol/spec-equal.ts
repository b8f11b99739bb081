/**
 * Equality of two flowcontrol specs as Go's apiequality.Semantic.DeepEqual sees their structs:
 * key order does not matter, absent equals null and an empty list, and a `false` boolean (Go's
 * zero value, which JSON's omitempty leaves out: a ResourcePolicyRule's clusterScope) equals an
 * absent one. Used by validation of the mandatory objects and by the configuration keeper.
 */
import { semanticEqual } from '../core/semantic-equal';

function dropFalse(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropFalse);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== false) out[k] = dropFalse(x);
  return out;
}

export function flowcontrolSpecEqual(a: unknown, b: unknown): boolean {
  return semanticEqual(dropFalse(a), dropFalse(b));
}
