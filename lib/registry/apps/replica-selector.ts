/**
 * The selector and template rules Deployment and ReplicaSet share (Kubernetes' ValidateDeploymentSpec
 * and ValidateReplicaSetSpec, and ValidatePodTemplateSpecForReplicaSet below them), and the
 * selector as the label-selector string Kubernetes writes (metav1.LabelSelectorAsSelector(...)
 * .String(), e.g. `app=web,tier in (a,b),!canary`), which the /scale subresource and the wide
 * tables print. Bad values print as Go's %#v prints them (`v1.LabelSelector{...}`,
 * `map[string]string{...}`), as Kubernetes' field errors do for structs and maps.
 */
import { FieldError, child, fieldErrors } from '../../meta/field-errors';
import { LabelRequirement, LabelSelector, labelSelectorFromObject, matchesLabels } from '../../meta/label-selector';
import { Json, isObject, record } from '../core/json-fields';
import { semanticEqual } from '../core/semantic-equal';
import { VolumeRules } from '../core/volumes/volume-list';
import { validatePodTemplateSpec, validateTemplateNoActiveDeadline, validateTemplateRestartPolicy } from '../core/pod-template';

const set = (v: unknown): boolean => v !== undefined && v !== null;

/** Go's %#v of a map[string]string (keys sorted, as fmt prints maps); nil when absent. */
export function goStringMap(m: unknown): string {
  if (!isObject(m)) return 'map[string]string(nil)';
  const keys = Object.keys(m).sort();
  return `map[string]string{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(String(m[k]))}`).join(', ')}}`;
}

/** Go's %#v of a metav1.LabelSelector value (a set pointer is dereferenced by field.Invalid). */
export function goLabelSelector(sel: unknown): string {
  if (!isObject(sel)) return 'null';
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : null;
  const goExpr = (e: unknown) => {
    const x = isObject(e) ? e : {};
    const values = Array.isArray(x.values) ? `[]string{${x.values.map((v) => JSON.stringify(String(v))).join(', ')}}` : '[]string(nil)';
    return `v1.LabelSelectorRequirement{Key:${JSON.stringify(String(x.key ?? ''))}, Operator:${JSON.stringify(String(x.operator ?? ''))}, Values:${values}}`;
  };
  const expressions = exprs ? `[]v1.LabelSelectorRequirement{${exprs.map(goExpr).join(', ')}}` : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMap(sel.matchLabels)}, MatchExpressions:${expressions}}`;
}

/** `Invalid value: <rendered>: detail` for a value already rendered in Go's form. */
function invalidGo(field: string, rendered: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${rendered}: ${detail}` };
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

/** labels.Selector.String() of a parsed selector: requirements (sorted by key) joined by commas. */
export function selectorText(sel: LabelSelector): string {
  return sel.requirements.map(requirementString).join(',');
}

/**
 * metav1.LabelSelectorAsSelector(selector).String(): '' for an absent (Nothing) or empty
 * (Everything) selector, undefined when the selector does not convert.
 */
export function labelSelectorString(selector: unknown): string | undefined {
  if (!set(selector)) return '';
  const { selector: parsed } = labelSelectorFromObject(selector);
  return parsed ? selectorText(parsed) : undefined;
}

/**
 * The rules ValidateDeploymentSpec and ValidateReplicaSetSpec share on `spec.selector` and
 * `spec.template`: the selector is required, valid and not empty ("empty selector is invalid for
 * deployment", the words both kinds use); the template's labels are selected by it; the template
 * is a valid pod template whose restartPolicy is Always and which sets no activeDeadlineSeconds
 * (that message names "ReplicaSet" for both kinds, as Kubernetes' shared check does). A selector
 * that does not convert is "invalid label selector" and the template is then not checked.
 */
export function validateReplicaSelectorAndTemplate(spec: Json, path: string, volumes: VolumeRules): FieldError[] {
  const errs: FieldError[] = [];
  const selectorPath = child(path, 'selector');
  const templatePath = child(path, 'template');
  const selector = spec.selector;
  let parsed: LabelSelector | undefined;
  let nothing = false;
  if (!set(selector)) {
    errs.push(fieldErrors.required(selectorPath));
    // LabelSelectorAsSelector(nil) is labels.Nothing(): it matches no labels.
    nothing = true;
  } else {
    const converted = labelSelectorFromObject(selector, selectorPath);
    errs.push(...converted.errors);
    const s = isObject(selector) ? selector : {};
    const count = (isObject(s.matchLabels) ? Object.keys(s.matchLabels).length : 0) + (Array.isArray(s.matchExpressions) ? s.matchExpressions.length : 0);
    if (count === 0) errs.push(invalidGo(selectorPath, goLabelSelector(selector), 'empty selector is invalid for deployment'));
    if (converted.selector) parsed = converted.selector;
    else errs.push(invalidGo(selectorPath, goLabelSelector(selector), 'invalid label selector'));
  }
  const template = isObject(spec.template) ? spec.template : {};
  if (nothing || (parsed && parsed.requirements.length > 0)) {
    const labels = record(record(template, 'metadata') ?? {}, 'labels');
    if (nothing || !matchesLabels(parsed as LabelSelector, labels as Record<string, string> | undefined)) {
      errs.push(invalidGo(child(child(templatePath, 'metadata'), 'labels'), goStringMap(labels), '`selector` does not match template `labels`'));
    }
  }
  if (nothing || parsed) {
    errs.push(
      ...validatePodTemplateSpec(template, templatePath, volumes),
      ...validateTemplateRestartPolicy(template, templatePath, ['Always']),
      ...validateTemplateNoActiveDeadline(template, templatePath, 'ReplicaSet'),
    );
  }
  return errs;
}

/** ValidateNonnegativeField of an optional number at `path`. */
export function nonNegative(value: unknown, path: string): FieldError[] {
  return typeof value === 'number' && value < 0 ? [fieldErrors.invalid(path, value, 'must be greater than or equal to 0')] : [];
}

/** ValidateImmutableField of `spec.selector` on update (apps/v1), compared as Go's Semantic.DeepEqual compares. */
export function immutableSelector(next: unknown, old: unknown, path: string): FieldError[] {
  return semanticEqual(next, old) ? [] : [invalidGo(path, goLabelSelector(next), 'field is immutable')];
}
