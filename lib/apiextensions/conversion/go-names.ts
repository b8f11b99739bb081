/**
 * How Go prints the names and types that Kubernetes' conversion messages contain
 * (GroupVersion.String(), GroupVersionKind.String(), `%T` of JSON values), so ours read the same.
 */

/** Group and version of an apiVersion as Go's ParseGroupVersion reads it; both empty when it cannot. */
export function parseGroupVersion(apiVersion: unknown): { group: string; version: string } {
  if (typeof apiVersion !== 'string' || apiVersion === '') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return { group: '', version: '' };
}

/** Go's GroupVersion.String(): `group/version`, or the version alone for the core group. */
export function groupVersionString(apiVersion: unknown): string {
  const { group, version } = parseGroupVersion(apiVersion);
  return group ? `${group}/${version}` : version;
}

/** Go's GroupVersionKind.String() of an object's apiVersion and kind: `group/version, Kind=kind`. */
export function gvkString(apiVersion: unknown, kind: unknown): string {
  const { group, version } = parseGroupVersion(apiVersion);
  return `${group}/${version}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/** Go's `%T` of a value decoded from JSON into interface{} (as unstructured objects hold them). */
export function goTypeOf(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}
