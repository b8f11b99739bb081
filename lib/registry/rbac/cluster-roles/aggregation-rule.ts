/**
 * A ClusterRole's aggregationRule as kube-apiserver validates it: when present it needs at least
 * one clusterRoleSelector, and each must be a valid label selector. Which roles it gathers is the
 * aggregation controller's business, not the registry's.
 */
import { FieldError, fieldErrors, index } from '../../../meta/field-errors';
import { AggregationRule } from '../types';
import { labelSelectorFromObject } from '../../../meta/label-selector';

const PATH = 'aggregationRule.clusterRoleSelectors';

/**
 * `allowInvalidValues`: matchExpressions values need not be label values (an update of a rule
 * stored with such values); the selector is still reported as not convertible.
 */
export function validateAggregationRule(rule: AggregationRule | null | undefined, allowInvalidValues: boolean): FieldError[] {
  if (rule === undefined || rule === null) return [];
  const selectors = rule.clusterRoleSelectors ?? [];
  const errs: FieldError[] = [];
  if (!selectors.length) errs.push(fieldErrors.required(PATH, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
  selectors.forEach((sel, i) => {
    const path = index(PATH, i);
    if (sel === undefined || sel === null) return;
    const { selector, errors } = labelSelectorFromObject(sel, path, { allowInvalidExpressionValues: allowInvalidValues });
    errs.push(...errors);
    // Kubernetes reports the failed conversion too, with the nil selector it got as the value.
    if (!selector) errs.push(fieldErrors.invalid(path, 'null', 'invalid label selector.'));
  });
  return errs;
}

/** Whether a stored rule has label values the strict check refuses (its updates may keep them). */
export function hasInvalidLabelValues(rule: AggregationRule | null | undefined): boolean {
  return (rule?.clusterRoleSelectors ?? []).some((sel) => !!sel && !labelSelectorFromObject(sel).selector);
}
