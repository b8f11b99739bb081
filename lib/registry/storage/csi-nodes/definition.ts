/**
 * CSINode (storage/v1, cluster-scoped, named after its node): the CSI drivers installed on a
 * node, written by the node agent. Drivers are merged by name; each needs a name (a CSI driver
 * name) and a nodeID (at most 256 characters); a driver entry cannot change once written (it
 * may be removed and added again). DELETE answers the object.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { csiNodeSchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isQualifiedName } from '../../../meta/validation';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { Naming } from '../../../naming';
import { validateCsiDriverName } from '../../core/volumes/persistent-sources';
import { semanticEqual } from '../../core/semantic-equal';

interface CsiNodeDriver { name?: string; nodeID?: string; topologyKeys?: string[] | null; allocatable?: { count?: number | null } | null }

/** The v1 API allows the longer node ids (AllowLongNodeID). */
const MAX_NODE_ID = 256;

const driversOf = (obj: ApiObject): CsiNodeDriver[] => ((obj.spec as { drivers?: CsiNodeDriver[] | null } | undefined)?.drivers ?? []);

function validateDriver(d: CsiNodeDriver, path: string, seen: Set<string>): FieldError[] {
  const errs = validateCsiDriverName(d.name, child(path, 'name'));
  const nodeID = d.nodeID ?? '';
  if (!nodeID) errs.push(fieldErrors.required(child(path, 'nodeID')));
  if (nodeID.length > MAX_NODE_ID) errs.push(fieldErrors.invalid(child(path, 'nodeID'), nodeID, `must be ${MAX_NODE_ID} characters or less`));
  const count = d.allocatable?.count;
  if (typeof count === 'number' && count < 0) errs.push(fieldErrors.invalid(child(child(path, 'allocatable'), 'count'), count, 'must be greater than or equal to 0'));
  const name = d.name ?? '';
  if (seen.has(name)) errs.push(fieldErrors.duplicate(child(path, 'name'), name));
  seen.add(name);
  // Kubernetes reports topology key problems on the driver's path.
  const keys = new Set<string>();
  for (const key of d.topologyKeys ?? []) {
    if (!key) errs.push(fieldErrors.required(path));
    if (keys.has(key)) errs.push(fieldErrors.duplicate(path, key));
    keys.add(key);
    errs.push(...isQualifiedName(key).map((m) => fieldErrors.invalid(path, key, m)));
  }
  return errs;
}

function validate(obj: ApiObject): FieldError[] {
  const seen = new Set<string>();
  return driversOf(obj).flatMap((d, i) => validateDriver(d ?? {}, index('spec.drivers', i), seen));
}

function validateUpdate(obj: ApiObject, old: ApiObject): FieldError[] {
  const errs = validate(obj);
  for (const oldDriver of driversOf(old)) {
    for (const driver of driversOf(obj)) {
      if (driver?.name === oldDriver?.name && !semanticEqual(driver, oldDriver)) errs.push(fieldErrors.immutable('spec.drivers', driver));
    }
  }
  return errs;
}

const csiNodeTable: TableColumns = {
  columns: [nameColumn, column('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'), ageColumn],
  cells: (obj, now) => [obj.metadata?.name ?? '', driversOf(obj as ApiObject).length, translateTimestampSince(obj.metadata?.creationTimestamp, now)],
};

export function csiNodeResource(naming: Naming): ResourceDef {
  return {
    group: naming.group('storage'), version: 'v1', kind: 'CSINode', listKind: 'CSINodeList', resource: 'csinodes',
    singular: 'csinode', namespaced: false, shortNames: [], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: csiNodeSchema,
    table: csiNodeTable,
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, csiNodeSchema, 'CSINode'),
      validate,
      validateUpdate,
    },
  };
}
