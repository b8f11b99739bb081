/**
 * Node selectors as volumes use them (VolumeNodeAffinity.required): terms are ORed, the
 * requirements of one term ANDed, and a term without requirements matches no node. Checks and
 * messages are Kubernetes' ValidateNodeSelector.
 */
import { FieldError, child, fieldErrors, index } from '../../meta/field-errors';
import { isDns1123Subdomain, isQualifiedName } from '../../meta/validation';

export interface NodeSelectorRequirement { key?: string; operator?: string; values?: string[] | null }
export interface NodeSelectorTerm { matchExpressions?: NodeSelectorRequirement[] | null; matchFields?: NodeSelectorRequirement[] | null }
export interface NodeSelector { nodeSelectorTerms?: NodeSelectorTerm[] | null }

/** Node fields a term may select on, with their value checks. */
const FIELD_VALIDATORS: Record<string, (v: string) => string[]> = { 'metadata.name': isDns1123Subdomain };

function validateRequirement(r: NodeSelectorRequirement, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In': case 'NotIn':
      if (!values.length) errs.push(fieldErrors.required(child(path, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists': case 'DoesNotExist':
      if (values.length) errs.push(fieldErrors.forbidden(child(path, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt': case 'Lt':
      if (values.length !== 1) errs.push(fieldErrors.required(child(path, 'values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(fieldErrors.invalid(child(path, 'operator'), r.operator ?? '', 'not a valid selector operator'));
  }
  for (const m of isQualifiedName(r.key ?? '')) errs.push(fieldErrors.invalid(child(path, 'key'), r.key ?? '', m));
  return errs;
}

function validateFieldRequirement(r: NodeSelectorRequirement, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = r.values ?? [];
  if (r.operator === 'In' || r.operator === 'NotIn') {
    if (values.length !== 1) {
      errs.push(fieldErrors.required(child(path, 'values'), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    }
  } else {
    errs.push(fieldErrors.invalid(child(path, 'operator'), r.operator ?? '', 'not a valid selector operator'));
  }
  const check = Object.hasOwn(FIELD_VALIDATORS, r.key ?? '') ? FIELD_VALIDATORS[r.key as string] : undefined;
  if (!check) errs.push(fieldErrors.invalid(child(path, 'key'), r.key ?? '', 'not a valid field selector key'));
  else values.forEach((v, i) => { for (const m of check(v)) errs.push(fieldErrors.invalid(index(child(path, 'values'), i), v, m)); });
  return errs;
}

/** ValidateNodeSelector: at least one term, every requirement well formed. */
export function validateNodeSelector(sel: NodeSelector, path: string): FieldError[] {
  const termsPath = child(path, 'nodeSelectorTerms');
  const terms = sel.nodeSelectorTerms ?? [];
  if (!terms.length) return [fieldErrors.required(termsPath, 'must have at least one node selector term')];
  return terms.flatMap((term, i) => {
    const termPath = index(termsPath, i);
    return [
      ...(term?.matchExpressions ?? []).flatMap((r, j) => validateRequirement(r ?? {}, index(child(termPath, 'matchExpressions'), j))),
      ...(term?.matchFields ?? []).flatMap((r, j) => validateFieldRequirement(r ?? {}, index(child(termPath, 'matchFields'), j))),
    ];
  });
}

/** validateVolumeNodeAffinity: `required` must be given and valid. */
export function validateVolumeNodeAffinity(affinity: { required?: NodeSelector | null }, path: string): FieldError[] {
  if (!affinity.required) return [fieldErrors.required(child(path, 'required'), 'must specify required node constraints')];
  return validateNodeSelector(affinity.required, child(path, 'required'));
}
