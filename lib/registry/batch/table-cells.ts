/**
 * Cells kubectl's batch printers share (pkg/printers/internalversion/printers.go): the wide
 * columns' container names and images (layoutContainerCells) and a selector printed as
 * metav1.FormatLabelSelector prints it, and the column definitions that go with them.
 */
import { column } from '../../meta/table';
import { Json, isObject, records, text } from '../core/json-fields';
import { doc } from './descriptions';

/** The wide columns Containers, Images, Selector (priority 1). */
export const wideColumns = [
  column('Containers', 'string', 'Names of each container in the template.', { priority: 1 }),
  column('Images', 'string', 'Images referenced by each container in the template.', { priority: 1 }),
  column('Selector', 'string', doc('JobSpec', 'selector'), { priority: 1 }),
];

/** layoutContainerCells of a pod spec: names and images, comma separated. */
export function containerCells(podSpec: Json): [string, string] {
  const containers = records(podSpec, 'containers');
  return [containers.map((c) => text(c, 'name')).join(','), containers.map((c) => text(c, 'image')).join(',')];
}

const OPERATORS: Record<string, string> = { In: 'in', NotIn: 'notin' };

/**
 * metav1.FormatLabelSelector: `k=v`, `k in (a,b)`, `k`, `!k` sorted by key, comma separated;
 * `<none>` for no selector or an empty one, `<error>` for one that does not parse.
 */
export function formatLabelSelector(sel: unknown): string {
  if (!isObject(sel)) return '<none>';
  const parts: Array<[string, string]> = [];
  if (isObject(sel.matchLabels)) for (const [k, v] of Object.entries(sel.matchLabels)) parts.push([k, `${k}=${String(v)}`]);
  for (const e of records(sel, 'matchExpressions')) {
    const key = text(e, 'key');
    const op = text(e, 'operator');
    const values = (Array.isArray(e.values) ? e.values.map(String) : []).sort();
    if (op === 'Exists') parts.push([key, key]);
    else if (op === 'DoesNotExist') parts.push([key, `!${key}`]);
    else if (OPERATORS[op] && values.length) parts.push([key, `${key} ${OPERATORS[op]} (${values.join(',')})`]);
    else return '<error>';
  }
  parts.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return parts.length ? parts.map(([, s]) => s).join(',') : '<none>';
}
