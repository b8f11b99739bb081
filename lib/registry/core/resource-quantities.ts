/**
 * Kubernetes' checks of resource quantities (validateBasicResource, ValidatePositiveQuantityValue,
 * ValidateNonnegativeQuantity) and the canonical form of ResourceLists as they are stored.
 */
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { QUANTITY_FORMAT_ERROR, canonicalQuantity, formatQuantity, quantitySign, quantityValue, tryParseQuantity } from '../../meta/quantity';

/** A value that decoding should have refused; reported rather than thrown. */
const unparsable = (raw: unknown, path: string): FieldError[] => [fieldErrors.invalid(path, raw, QUANTITY_FORMAT_ERROR)];

/** validateBasicResource: the value rounded up to an integer is not negative. */
export function validateBasicResource(raw: unknown, path: string): FieldError[] {
  const q = tryParseQuantity(raw);
  if (!q) return unparsable(raw, path);
  const v = quantityValue(q);
  return v < 0n ? [fieldErrors.invalid(path, Number(v), 'must be a valid resource quantity')] : [];
}

/** ValidatePositiveQuantityValue: greater than zero. */
export function validatePositiveQuantity(raw: unknown, path: string): FieldError[] {
  const q = tryParseQuantity(raw);
  if (!q) return unparsable(raw, path);
  return quantitySign(q) <= 0 ? [fieldErrors.invalid(path, formatQuantity(q), 'must be greater than zero')] : [];
}

/** ValidateNonnegativeQuantity: zero or more. */
export function validateNonnegativeQuantity(raw: unknown, path: string): FieldError[] {
  const q = tryParseQuantity(raw);
  if (!q) return unparsable(raw, path);
  return quantitySign(q) < 0 ? [fieldErrors.invalid(path, formatQuantity(q), 'must be greater than or equal to 0')] : [];
}

/**
 * A ResourceList in stored form: every quantity canonical and rounded up to milli units
 * (SetDefaults_ResourceList). Values that do not parse are kept for validation to report.
 */
export function canonicalResourceList(list: unknown): unknown {
  if (!list || typeof list !== 'object' || Array.isArray(list)) return list;
  return Object.fromEntries(Object.entries(list).map(([k, v]) => [k, canonicalQuantity(v, true) ?? v]));
}
