/**
 * The selector and template rules Deployment and ReplicaSet share (Kubernetes' ValidateDeploymentSpec
 * and ValidateReplicaSetSpec, and ValidatePodTemplateSpecForReplicaSet below them), and the
 * immutable selector. Bad values print as Go's %#v prints them (lib/meta/go-print.ts), as
 * Kubernetes' field errors do for structs and maps.
 */
import { FieldError, child, fieldErrors } from '../../meta/field-errors';
import { LabelSelector, labelSelectorFromObject, matchesLabels } from '../../meta/label-selector';
import { goLabelSelector, goStringMap, invalidGo } from '../../meta/go-print';
import { Json, isObject, record } from '../core/json-fields';
import { semanticEqual } from '../core/semantic-equal';
import { VolumeRules } from '../core/volumes/volume-list';
import { validatePodTemplateSpec, validateTemplateNoActiveDeadline, validateTemplateRestartPolicy } from '../core/pod-template';

const set = (v: unknown): boolean => v !== undefined && v !== null;

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

/** ValidateImmutableField of `spec.selector` on update (apps/v1), compared as Go's Semantic.DeepEqual compares. */
export function immutableSelector(next: unknown, old: unknown, path: string): FieldError[] {
  return semanticEqual(next, old) ? [] : [invalidGo(path, goLabelSelector(next), 'field is immutable')];
}
