/**
 * Lease (coordination/v1, namespaced): the lock record of leader election. PUT may create but
 * an update must name the resourceVersion it read (optimistic concurrency is the point of a
 * lease); kubectl's NAME HOLDER AGE table; MicroTimes kept in Go's UTC microsecond form.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { leaseSchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { Naming } from '../../../naming';
import { canonicalMicroTime } from '../../../meta/micro-time';
import { LeaseSpec, leaseTimesProblem, validateLeaseSpec } from './validation';

/** kubectl's NAME HOLDER AGE (printLease): an unset holder prints empty. */
const leaseTable: TableColumns = {
  columns: [
    nameColumn,
    column('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.'),
    ageColumn,
  ],
  cells: (obj, now) => [
    obj.metadata?.name ?? '',
    (obj.spec as LeaseSpec | undefined)?.holderIdentity ?? '',
    translateTimestampSince(obj.metadata?.creationTimestamp, now),
  ],
};

/** MicroTime's JSON is always UTC (Go's MarshalJSON), whatever offset the client wrote. */
function canonicalize(obj: ApiObject): void {
  const spec = obj.spec as LeaseSpec | undefined;
  if (!spec) return;
  if (typeof spec.acquireTime === 'string') spec.acquireTime = canonicalMicroTime(spec.acquireTime);
  if (typeof spec.renewTime === 'string') spec.renewTime = canonicalMicroTime(spec.renewTime);
}

/** The Lease kind of the flavor's coordination group. */
export function leaseResource(naming: Naming): ResourceDef {
  return {
    group: naming.group('coordination'), version: 'v1', kind: 'Lease', listKind: 'LeaseList', resource: 'leases', singular: 'lease',
    namespaced: true, shortNames: [], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [], deleteReturnsStatus: true, nameValidation: 'dns-subdomain', schema: leaseSchema,
    table: leaseTable,
    strategy: {
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: false,
      checkDecode: (obj) => decodeProblem(obj, leaseSchema, 'Lease') ?? leaseTimesProblem(obj),
      validate: (obj) => validateLeaseSpec(obj.spec as LeaseSpec | undefined),
      canonicalize,
    },
  };
}
