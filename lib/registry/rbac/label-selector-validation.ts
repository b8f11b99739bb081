/**
 * metav1 ValidateLabelSelector for the JSON form of a LabelSelector: matchLabels as labels,
 * each matchExpressions requirement with a known operator, values present exactly when the
 * operator takes them, a qualified-name key and label values. Paths and messages are Kubernetes'.
 * (Kept beside its only user, the ClusterRole aggregation rule.)
 */
import { FieldError, child, fieldErrors, index } from '../../meta/field-errors';
import { isQualifiedName, isValidLabelValue, validateLabels } from '../../meta/validation';
import { LabelSelectorJson } from '../../authz/rbac/types';

type Requirement = NonNullable<LabelSelectorJson['matchExpressions']>[number];

/** `allowInvalidValues`: skip the label-value check of expression values (an update of an object stored with such values). */
function validateRequirement(req: Partial<Requirement> | null, allowInvalidValues: boolean, path: string): FieldError[] {
  const r = req ?? {};
  const values = r.values ?? [];
  const operator = r.operator ?? '';
  const errs: FieldError[] = [];
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (!values.length) errs.push(fieldErrors.required(child(path, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length) errs.push(fieldErrors.forbidden(child(path, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    default:
      errs.push(fieldErrors.invalid(child(path, 'operator'), operator, 'not a valid selector operator'));
  }
  const key = r.key ?? '';
  errs.push(...isQualifiedName(key).map((m) => fieldErrors.invalid(child(path, 'key'), key, m)));
  if (!allowInvalidValues) {
    values.forEach((v, i) => errs.push(...isValidLabelValue(v).map((m) => fieldErrors.invalid(index(child(path, 'values'), i), v, m))));
  }
  return errs;
}

/** The errors of the selector at `path` (none for an absent selector). */
export function validateLabelSelector(sel: LabelSelectorJson | null | undefined, allowInvalidValues: boolean, path: string): FieldError[] {
  if (!sel) return [];
  return [
    ...validateLabels(sel.matchLabels, child(path, 'matchLabels')),
    ...(sel.matchExpressions ?? []).flatMap((req, i) => validateRequirement(req, allowInvalidValues, index(child(path, 'matchExpressions'), i))),
  ];
}

/**
 * Whether the selector converts to a labels.Selector (LabelSelectorAsSelector): it fails on the
 * same defects as the strict validation, label values included.
 */
export function isParsableLabelSelector(sel: LabelSelectorJson | null | undefined): boolean {
  return validateLabelSelector(sel, false, '').length === 0;
}
