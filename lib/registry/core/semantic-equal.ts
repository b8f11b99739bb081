/**
 * Equality of decoded JSON as Kubernetes' apiequality.Semantic sees it for immutability rules:
 * key order does not matter, an absent field equals null, and an empty list equals an absent
 * one (Go's nil and empty slices). Quantities are compared in their canonical form, so callers
 * compare stored (canonicalized) values.
 */

const absent = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0);

export function semanticEqual(a: unknown, b: unknown): boolean {
  if (absent(a) || absent(b)) return absent(a) && absent(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
    return [...keys].every((k) => semanticEqual(ao[k], bo[k]));
  }
  return a === b;
}

/**
 * A short listing of the fields of two objects that differ, one `-` line (old) and one `+`
 * line (new) per field, in the spirit of the cmp.Diff Kubernetes appends to some messages.
 */
export function describeDiff(oldObj: Record<string, unknown>, newObj: Record<string, unknown>, typeName: string): string {
  const keys = [...new Set([...Object.keys(oldObj), ...Object.keys(newObj)])].filter((k) => !semanticEqual(oldObj[k], newObj[k]));
  const show = (v: unknown) => (v === undefined ? 'nil' : JSON.stringify(v));
  const lines = keys.flatMap((k) => [`- \t${k}: ${show(oldObj[k])},`, `+ \t${k}: ${show(newObj[k])},`]);
  return [`  ${typeName}{`, ...lines, '  }'].join('\n');
}
