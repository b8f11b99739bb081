/**
 * Relative-path rules of volume items, sub-paths and git directories (Kubernetes'
 * validateLocalDescendingPath family): not absolute, no `..` element, not starting with `..`.
 */
import { FieldError, fieldErrors } from '../../../meta/field-errors';

/** No `..` element; one error even for `../../..`. */
export function validatePathNoBacksteps(target: string, path: string): FieldError[] {
  return target.split('/').includes('..') ? [fieldErrors.invalid(path, target, "must not contain '..'")] : [];
}

/** Not absolute and no `..` element. */
export function validateLocalDescendingPath(target: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith('/')) errs.push(fieldErrors.invalid(path, target, 'must be a relative path'));
  return [...errs, ...validatePathNoBacksteps(target, path)];
}

/** As validateLocalDescendingPath, and not starting with `..` (e.g. `..data`), unless `../` said it already. */
export function validateLocalNonReservedPath(target: string, path: string): FieldError[] {
  const errs = validateLocalDescendingPath(target, path);
  if (target.startsWith('..') && !target.startsWith('../')) errs.push(fieldErrors.invalid(path, target, "must not start with '..'"));
  return errs;
}
