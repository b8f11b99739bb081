/**
 * TableOptions from the query: `includeObject` says what each row's `object` holds. Validated
 * only when a Table was negotiated, with Kubernetes' message for a bad value.
 */
import { errors } from '../../meta/api-errors';
import { fieldErrors, formatFieldError } from '../../meta/field-errors';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableOptions {
  /** None: no object; Metadata (the default): PartialObjectMetadata; Object: the whole object. */
  includeObject: IncludeObject;
}

const VALUES: IncludeObject[] = ['Metadata', 'None', 'Object'];

/** Reads `includeObject` (empty or absent = Metadata); any other value is 400. */
export function parseTableOptions(query: URLSearchParams): TableOptions {
  const value = query.get('includeObject') ?? '';
  if (value === '') return { includeObject: 'Metadata' };
  if ((VALUES as string[]).includes(value)) return { includeObject: value as IncludeObject };
  const why = formatFieldError(fieldErrors.notSupported('includeObject', value, VALUES));
  throw errors.badRequest(`Unable to convert to Table as requested: ${why}`);
}
