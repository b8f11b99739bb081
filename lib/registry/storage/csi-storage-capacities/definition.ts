/**
 * CSIStorageCapacity (storage/v1, namespaced): the capacity a CSI driver reports for one
 * storage class and node topology. storageClassName (a class name) and nodeTopology are
 * immutable; capacity may not be negative. Quantities are stored in canonical form. DELETE
 * answers a Status, as the spec says.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { csiStorageCapacitySchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { isDns1123Subdomain } from '../../../meta/validation';
import { labelSelectorFromObject } from '../../../meta/label-selector';
import { canonicalQuantity } from '../../../meta/quantity';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { Naming } from '../../../naming';
import { validateNonnegativeQuantity } from '../../core/resource-quantities';
import { semanticEqual } from '../../core/semantic-equal';

interface Capacity extends ApiObject {
  nodeTopology?: unknown;
  storageClassName?: string;
  capacity?: string | number | null;
  maximumVolumeSize?: string | number | null;
}

function validate(obj: Capacity): FieldError[] {
  const errs: FieldError[] = [];
  if (obj.nodeTopology !== undefined && obj.nodeTopology !== null) errs.push(...labelSelectorFromObject(obj.nodeTopology, 'nodeTopology').errors);
  const className = obj.storageClassName ?? '';
  errs.push(...isDns1123Subdomain(className).map((m) => fieldErrors.invalid('storageClassName', className, m)));
  if (obj.capacity !== undefined && obj.capacity !== null) errs.push(...validateNonnegativeQuantity(obj.capacity, 'capacity'));
  return errs;
}

function validateUpdate(obj: Capacity, old: Capacity): FieldError[] {
  // The inputs of the driver's GetCapacity call cannot change.
  const errs: FieldError[] = [];
  if (!semanticEqual(obj.nodeTopology, old.nodeTopology)) errs.push(fieldErrors.immutable('nodeTopology', obj.nodeTopology ?? null));
  if ((obj.storageClassName ?? '') !== (old.storageClassName ?? '')) errs.push(fieldErrors.immutable('storageClassName', obj.storageClassName ?? ''));
  return [...validate(obj), ...errs];
}

function canonical(obj: Capacity): void {
  for (const k of ['capacity', 'maximumVolumeSize'] as const) {
    const v = canonicalQuantity(obj[k]);
    if (v !== undefined) obj[k] = v;
  }
}

const capacityTable: TableColumns = {
  columns: [
    nameColumn,
    column('StorageClassName', 'string', 'storageClassName represents the name of the StorageClass that the reported capacity applies to.'),
    column('Capacity', 'string', 'capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.'),
    ageColumn,
  ],
  cells: (obj, now) => {
    const c = obj as Capacity;
    const capacity = c.capacity === undefined || c.capacity === null ? '<unset>' : String(c.capacity);
    return [c.metadata?.name ?? '', c.storageClassName ?? '', capacity, translateTimestampSince(c.metadata?.creationTimestamp, now)];
  },
};

export function csiStorageCapacityResource(naming: Naming): ResourceDef {
  return {
    group: naming.group('storage'), version: 'v1', kind: 'CSIStorageCapacity', listKind: 'CSIStorageCapacityList',
    resource: 'csistoragecapacities', singular: 'csistoragecapacity', namespaced: true, shortNames: [], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    deleteReturnsStatus: true,
    nameValidation: 'dns-subdomain',
    schema: csiStorageCapacitySchema,
    table: capacityTable,
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, csiStorageCapacitySchema, 'CSIStorageCapacity'),
      prepareForCreate: (obj) => canonical(obj as Capacity),
      prepareForUpdate: (obj) => canonical(obj as Capacity),
      validate: (obj) => validate(obj as Capacity),
      validateUpdate: (obj, old) => validateUpdate(obj as Capacity, old as Capacity),
    },
  };
}
