/**
 * Schema of the coordination group's Lease (coordination/v1): a lock record that leader
 * election and node heartbeats write. Every spec field is optional; the two times are
 * MicroTimes (six fraction digits), checked when the body is decoded (definition.ts).
 */
import { Schema, int32, object, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

/** metav1.MicroTime: RFC 3339 with microseconds. */
const microTime = (description: string): Schema => ({ type: 'string', format: 'date-time', description });

/** LeaseSpec: the holder and the times candidates compare against. */
export const leaseSpec: Schema = object({
  holderIdentity: str('holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.'),
  leaseDurationSeconds: int32('leaseDurationSeconds is a duration that candidates for a lease need to wait to force acquire it. This is measured against the time of last observed renewTime.'),
  acquireTime: microTime('acquireTime is a time when the current lease was acquired.'),
  renewTime: microTime('renewTime is a time when the current holder of a lease has last updated the lease.'),
  leaseTransitions: int32('leaseTransitions is the number of transitions of a lease between holders.'),
  strategy: str('strategy indicates the strategy for picking the leader for coordinated leader election. If the field is not specified, there is no active coordination for this lease.'),
  preferredHolder: str('preferredHolder signals to a lease holder that the lease has a more optimal holder and should be given up. This field can only be set if Strategy is also set.'),
}, { description: 'LeaseSpec is a specification of a Lease.' });

/** Lease: metadata and spec. */
export const leaseSchema: Schema = kindSchema({
  spec: { ...leaseSpec, description: 'spec contains the specification of the Lease.' },
}, 'Lease defines a lease concept.');
