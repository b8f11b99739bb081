/**
 * A ClusterRole's aggregationRule as kube-apiserver validates it: when present it needs at least
 * one clusterRoleSelector, and each must be a valid label selector. Which roles it gathers is the
 * aggregation controller's business, not the registry's.
 */
import { FieldError, fieldErrors, index } from '../../meta/field-errors';
import { AggregationRule } from '../../authz/rbac/types';
import { isParsableLabelSelector, validateLabelSelector } from './label-selector-validation';

const PATH = 'aggregationRule.clusterRoleSelectors';

/** `allowInvalidValues`: as in validateLabelSelector. */
export function validateAggregationRule(rule: AggregationRule | null | undefined, allowInvalidValues: boolean): FieldError[] {
  if (rule === undefined || rule === null) return [];
  const selectors = rule.clusterRoleSelectors ?? [];
  const errs: FieldError[] = [];
  if (!selectors.length) errs.push(fieldErrors.required(PATH, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
  selectors.forEach((sel, i) => {
    const path = index(PATH, i);
    errs.push(...validateLabelSelector(sel, allowInvalidValues, path));
    // Kubernetes reports the failed conversion too, with the nil selector it got as the value.
    if (!isParsableLabelSelector(sel)) errs.push(fieldErrors.invalid(path, 'null', 'invalid label selector.'));
  });
  return errs;
}

/** Whether a stored rule has label values the strict check refuses (its updates may keep them). */
export function hasInvalidLabelValues(rule: AggregationRule | null | undefined): boolean {
  return (rule?.clusterRoleSelectors ?? []).some((sel) => validateLabelSelector(sel, false, '').length > 0);
}
