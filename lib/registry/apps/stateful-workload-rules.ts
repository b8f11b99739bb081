/**
 * The selector rules StatefulSet and DaemonSet share (apps/v1): the selector required, valid, not
 * empty and selecting the template's labels, with the template labels error as Kubernetes prints
 * it. How bad values print (Go's %#v) is lib/meta/go-print.ts; the selector strings and label
 * formats kubectl and the Scale show are lib/meta/label-format.ts; the template's table cells
 * lib/registry/core/template-columns.ts.
 */
import { FieldError, child, fieldErrors } from '../../meta/field-errors';
import { labelSelectorFromObject, matchesLabels } from '../../meta/label-selector';
import { goLabelSelector, goStringMap } from '../../meta/go-print';
import { Json, isObject, record } from '../core/json-fields';

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
