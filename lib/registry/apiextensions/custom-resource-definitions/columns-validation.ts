/**
 * Kubernetes' checks of a CRD's printer columns and scale subresource: column types and formats
 * from fixed lists, and simple JSON paths (`.spec.replicas`) where a path is asked for.
 */
import { FieldError, child, fieldErrors } from '../../../meta/field-errors';
import { CrdColumn, CrdSubresources } from './view';

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** validateSimpleJSONPath: non-empty and starting with a dot. */
export function validateSimpleJsonPath(value: string, path: string): FieldError[] {
  if (!value) return [fieldErrors.invalid(path, value, 'must not be empty')];
  if (!value.startsWith('.')) return [fieldErrors.invalid(path, value, 'must be a simple json path starting with .')];
  return [];
}

/** ValidateCustomResourceColumnDefinition. Kubernetes' internal field is `JSONPath`, hence the path. */
export function validateCrdColumn(col: CrdColumn, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(col.name)) errs.push(fieldErrors.required(child(path, 'name')));
  const types = `must be one of ${COLUMN_TYPES.join(',')}`;
  if (!str(col.type)) errs.push(fieldErrors.required(child(path, 'type'), types));
  else if (!COLUMN_TYPES.includes(str(col.type))) errs.push(fieldErrors.invalid(child(path, 'type'), str(col.type), types));
  if (str(col.format) && !COLUMN_FORMATS.includes(str(col.format))) {
    errs.push(fieldErrors.invalid(child(path, 'format'), str(col.format), `must be one of ${COLUMN_FORMATS.join(',')}`));
  }
  const jsonPath = child(path, 'JSONPath');
  if (!str(col.jsonPath)) errs.push(fieldErrors.required(jsonPath));
  else errs.push(...validateSimpleJsonPath(str(col.jsonPath), jsonPath));
  return errs;
}

/** ValidateCustomResourceDefinitionSubresources: the scale subresource's paths. */
export function validateCrdSubresources(sub: CrdSubresources | undefined, path: string): FieldError[] {
  const scale = sub && typeof sub === 'object' ? sub.scale : undefined;
  if (!scale || typeof scale !== 'object') return [];
  const errs: FieldError[] = [];
  const under = (field: string, value: string, prefixes: string[], detail: string) => {
    const bad = validateSimpleJsonPath(value, field);
    if (bad.length) errs.push(...bad);
    else if (!prefixes.some((p) => value.startsWith(p))) errs.push(fieldErrors.invalid(field, value, detail));
  };
  const specPath = child(path, 'scale.specReplicasPath');
  if (!str(scale.specReplicasPath)) errs.push(fieldErrors.required(specPath));
  else under(specPath, str(scale.specReplicasPath), ['.spec.'], 'should be a json path under .spec');
  const statusPath = child(path, 'scale.statusReplicasPath');
  if (!str(scale.statusReplicasPath)) errs.push(fieldErrors.required(statusPath));
  else under(statusPath, str(scale.statusReplicasPath), ['.status.'], 'should be a json path under .status');
  if (str(scale.labelSelectorPath)) {
    under(child(path, 'scale.labelSelectorPath'), str(scale.labelSelectorPath), ['.spec.', '.status.'],
      'should be a json path under either .spec or .status');
  }
  return errs;
}
