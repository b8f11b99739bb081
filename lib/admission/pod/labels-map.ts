/**
 * Kubernetes' labels.ConvertSelectorToLabelsMap (`k1=v1,k2=v2`, spaces around keys and values
 * trimmed) with its Conflicts and Merge, used by PodNodeSelector for namespace annotations and
 * its plugin configuration. Errors carry Kubernetes' text.
 */
import { isQualifiedName, isValidLabelValue } from '../../meta/validation';

export type LabelsMap = Record<string, string>;

/** Parses `selector`; throws Error with Kubernetes' message when it is not a plain k=v list. */
export function selectorToLabelsMap(selector: string): LabelsMap {
  const out: LabelsMap = {};
  if (!selector) return out;
  for (const label of selector.split(',')) {
    const parts = label.split('=');
    if (parts.length !== 2) throw new Error(`invalid selector: [${parts.join(' ')}]`);
    const key = parts[0].trim();
    const keyErrors = isQualifiedName(key);
    if (keyErrors.length) throw new Error(`key: Invalid value: ${JSON.stringify(key)}: ${keyErrors.join('; ')}`);
    const value = parts[1].trim();
    const valueErrors = isValidLabelValue(value);
    if (valueErrors.length) throw new Error(`value: Invalid value: ${JSON.stringify(value)}: ${valueErrors.join('; ')}`);
    out[key] = value;
  }
  return out;
}

/** Whether a key is in both maps with different values. */
export function labelsConflict(a: LabelsMap, b: LabelsMap): boolean {
  return Object.entries(a).some(([k, v]) => k in b && b[k] !== v);
}

/** `a` and `b` in one map; `b` wins. */
export const mergeLabels = (a: LabelsMap, b: LabelsMap): LabelsMap => ({ ...a, ...b });
