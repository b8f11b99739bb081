/**
 * What StatefulSet and DaemonSet share (apps/v1): how Kubernetes prints their bad values (Go's
 * %#v of a label selector and of a label map, as field errors show them), the selector as the
 * string LabelSelectorAsSelector(...).String() writes (the DaemonSet's wide SELECTOR column, the
 * StatefulSet's Scale status.selector), the template's CONTAINERS and IMAGES cells, the
 * non-negative counts of their status and the selector rules of their specs.
 *
 * Deployment and ReplicaSet have their own copy beside this file for now; the lead unifies them.
 */
import { FieldError, child, fieldErrors } from '../../meta/field-errors';
import { LabelRequirement, labelSelectorFromObject, matchesLabels } from '../../meta/label-selector';
import { Json, isObject, record, records, text } from '../core/json-fields';

/** Go's %q of a string (close enough: JSON's escapes for the usual characters). */
const goQuote = (s: string): string => JSON.stringify(s);

const sortedEntries = (m: Json): [string, unknown][] => Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** Go's %#v of a map[string]string (`map[string]string(nil)` when absent). */
export function goStringMap(m: unknown): string {
  if (!isObject(m)) return 'map[string]string(nil)';
  return `map[string]string{${sortedEntries(m).map(([k, v]) => `${goQuote(k)}:${goQuote(String(v))}`).join(', ')}}`;
}

/** Go's %#v of a []string (`[]string(nil)` when absent). */
function goStrings(v: unknown): string {
  return Array.isArray(v) ? `[]string{${v.map((s) => goQuote(String(s))).join(', ')}}` : '[]string(nil)';
}

/** Go's %#v of a metav1.LabelSelector value, as a field error prints a *LabelSelector (dereferenced). */
export function goLabelSelector(sel: unknown): string {
  if (!isObject(sel)) return 'null';
  const exprs = Array.isArray(sel.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${(sel.matchExpressions as unknown[]).map((e) => {
      const r = isObject(e) ? e : {};
      return `v1.LabelSelectorRequirement{Key:${goQuote(text(r, 'key'))}, Operator:${goQuote(text(r, 'operator'))}, Values:${goStrings(r.values)}}`;
    }).join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMap(sel.matchLabels)}, MatchExpressions:${exprs}}`;
}

/** labels.Requirement.String(). */
function requirementString(r: LabelRequirement): string {
  switch (r.operator) {
    case 'exists': return r.key;
    case '!': return `!${r.key}`;
    case 'in': return `${r.key} in (${r.values.join(',')})`;
    case 'notin': return `${r.key} notin (${r.values.join(',')})`;
    case 'gt': return `${r.key}>${r.values[0]}`;
    case 'lt': return `${r.key}<${r.values[0]}`;
    default: return `${r.key}${r.operator}${r.values[0] ?? ''}`;
  }
}

/**
 * metav1.LabelSelectorAsSelector(sel).String(): requirements sorted by key, comma separated;
 * '' for an absent or empty selector; undefined when the selector does not convert.
 */
export function labelSelectorString(sel: unknown): string | undefined {
  if (!isObject(sel)) return '';
  const { selector } = labelSelectorFromObject(sel);
  return selector ? selector.requirements.map(requirementString).join(',') : undefined;
}

/** metav1.FormatLabelSelector: the selector string, `<none>` when empty, `<error>` when it does not convert. */
export function formatLabelSelector(sel: unknown): string {
  const s = labelSelectorString(sel);
  if (s === undefined) return '<error>';
  return s || '<none>';
}

/** labels.FormatLabels: `k=v` sorted by key, comma separated; `<none>` when there are none. */
export function formatLabels(labels: unknown): string {
  const entries = isObject(labels) ? sortedEntries(labels) : [];
  return entries.length ? entries.map(([k, v]) => `${k}=${String(v)}`).join(',') : '<none>';
}

/** layoutContainerCells: the template's container names and images, each comma separated. */
export function containerCells(template: unknown): [string, string] {
  const spec = isObject(template) ? record(template, 'spec') ?? {} : {};
  const containers = records(spec, 'containers');
  return [containers.map((c) => text(c, 'name')).join(','), containers.map((c) => text(c, 'image')).join(',')];
}

/** ValidateNonnegativeField at `path` (absent values are Go's zero and pass). */
export function nonNegative(value: unknown, path: string): FieldError[] {
  return typeof value === 'number' && value < 0 ? [fieldErrors.invalid(path, value, 'must be greater than or equal to 0')] : [];
}

/** The labels of a template's metadata (absent: none). */
export function templateLabels(template: unknown): Record<string, string> | undefined {
  const meta = isObject(template) ? record(template, 'metadata') : undefined;
  return meta && isObject(meta.labels) ? (meta.labels as Record<string, string>) : undefined;
}

/** The "`selector` does not match template `labels`" error, with Go's %#v of the labels. */
export function templateLabelsNotSelected(templatePath: string, labels: Record<string, string> | undefined): FieldError {
  return {
    type: 'FieldValueInvalid',
    field: child(child(templatePath, 'metadata'), 'labels'),
    message: `Invalid value: ${goStringMap(labels)}: \`selector\` does not match template \`labels\``,
  };
}

/**
 * The selector rules a StatefulSet's spec has (and a Deployment's): required; valid (strictly:
 * no invalid label values); not empty (`kind` names the workload in the message); when it
 * converts, it must select the template's labels (an empty selector selects everything).
 */
export function validateRequiredWorkloadSelector(spec: Json, path: string, kind: string): { errors: FieldError[]; selects?: (labels: Record<string, string> | undefined) => boolean } {
  const selPath = child(path, 'selector');
  const sel = spec.selector;
  if (!isObject(sel)) {
    // LabelSelectorAsSelector(nil) is labels.Nothing(): it selects no labels at all.
    return { errors: [fieldErrors.required(selPath)], selects: () => false };
  }
  const parsed = labelSelectorFromObject(sel, selPath);
  const errors = [...parsed.errors];
  const empty = (isObject(sel.matchLabels) ? Object.keys(sel.matchLabels).length : 0)
    + (Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0) === 0;
  if (empty) errors.push({ type: 'FieldValueInvalid', field: selPath, message: `Invalid value: ${goLabelSelector(sel)}: empty selector is invalid for ${kind}` });
  if (!parsed.selector) {
    return { errors };
  }
  const selector = parsed.selector;
  return { errors, selects: (labels) => matchesLabels(selector, labels ?? {}) };
}
