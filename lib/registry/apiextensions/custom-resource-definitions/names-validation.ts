/**
 * Kubernetes' checks of a CRD's names (spec.names and status.acceptedNames): DNS-1035 labels
 * for plural, singular, short names and categories; kind and listKind lower-cased likewise.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1035Label } from '../../../meta/validation';
import { CrdNames } from './view';

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** ValidateCustomResourceDefinitionNames: the format of every name that is set. */
export function validateCrdNames(names: CrdNames, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const label = (field: string, value: string) => {
    const problems = isDns1035Label(value);
    if (value && problems.length) errs.push(fieldErrors.invalid(field, value, problems.join(',')));
  };
  const mixedCase = (field: string, value: string) => {
    const problems = isDns1035Label(value.toLowerCase());
    if (value && problems.length) errs.push(fieldErrors.invalid(field, value, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
  };
  label(child(path, 'plural'), str(names.plural));
  label(child(path, 'singular'), str(names.singular));
  mixedCase(child(path, 'kind'), str(names.kind));
  mixedCase(child(path, 'listKind'), str(names.listKind));
  list(names.shortNames).forEach((s, i) => {
    const problems = isDns1035Label(str(s));
    if (problems.length) errs.push(fieldErrors.invalid(index(child(path, 'shortNames'), i), str(s), problems.join(',')));
  });
  if (str(names.kind) && names.kind === names.listKind) {
    errs.push(fieldErrors.invalid(child(path, 'listKind'), str(names.listKind), 'kind and listKind may not be the same'));
  }
  list(names.categories).forEach((c, i) => {
    const problems = isDns1035Label(str(c));
    if (problems.length) errs.push(fieldErrors.invalid(index(child(path, 'categories'), i), str(c), problems.join(',')));
  });
  return errs;
}

/** The names the spec must have (after defaulting singular and listKind). */
export function requiredCrdNames(names: CrdNames, path: string): FieldError[] {
  return (['plural', 'singular', 'kind', 'listKind'] as const)
    .filter((n) => !str(names[n]))
    .map((n) => fieldErrors.required(child(path, n)));
}
