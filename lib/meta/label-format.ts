/**
 * Label sets and selectors written as Kubernetes writes them for people and for the Scale
 * subresource: metav1.LabelSelectorAsSelector(sel).String() (a Scale's status.selector),
 * metav1.FormatLabelSelector (kubectl's SELECTOR cells), labels.SelectorFromSet(set).String()
 * (a ReplicationController's selector) and labels.FormatLabels (POD LABELS cells).
 * Requirements are sorted by key and their values sorted, as Kubernetes' labels package keeps them.
 */
import { LabelRequirement, labelSelectorFromObject } from './label-selector';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

/** labels.Requirement.String(). */
export function requirementString(r: LabelRequirement): string {
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
 * '' for an absent (Nothing) or empty (Everything) selector; undefined when it does not convert.
 */
export function labelSelectorString(sel: unknown): string | undefined {
  if (!isObject(sel)) return '';
  const { selector } = labelSelectorFromObject(sel);
  return selector ? selector.requirements.map(requirementString).join(',') : undefined;
}

/** metav1.FormatLabelSelector: the selector string, `<none>` when empty or absent, `<error>` when it does not convert. */
export function formatLabelSelector(sel: unknown): string {
  const s = labelSelectorString(sel);
  if (s === undefined) return '<error>';
  return s || '<none>';
}

/** labels.SelectorFromSet(set).String(): `k=v` sorted by key, comma separated ('' for none). */
export function selectorFromSetString(set: unknown): string {
  return isObject(set) ? Object.entries(set).sort(byKey).map(([k, v]) => `${k}=${String(v)}`).join(',') : '';
}

/** labels.FormatLabels: `k=v` sorted by key, comma separated; `<none>` when there are none. */
export function formatLabels(labels: unknown): string {
  return selectorFromSetString(labels) || '<none>';
}
