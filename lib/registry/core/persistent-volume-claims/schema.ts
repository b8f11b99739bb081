/** Schema of core/v1 PersistentVolumeClaim: the spec (persistent-volume-claim-spec.ts) and the status, conditions merged by type. */
import { Schema, atomicList, mapList, object, str, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { persistentVolumeClaimSpec } from '../volumes/persistent-volume-claim-spec-schema';
import { resourceList } from '../quantity-schema';

const claimCondition: Schema = object({
  type: str(),
  status: str(),
  lastProbeTime: time('the time we probed the condition.'),
  lastTransitionTime: time('the time the condition transitioned from one status to another.'),
  reason: str('a unique, short, machine-understandable reason; "ResizeStarted" means the volume is being resized.'),
  message: str('the human-readable message indicating details about last transition.'),
}, { required: ['type', 'status'] });

export const persistentVolumeClaimSchema: Schema = kindSchema({
  spec: persistentVolumeClaimSpec,
  status: object({
    phase: str('Pending, Bound or Lost.'),
    accessModes: atomicList(str(), 'the actual access modes the volume backing the PVC has.'),
    capacity: resourceList('the actual resources of the underlying volume.'),
    conditions: mapList(claimCondition, ['type'], 'the current conditions of the claim.'),
    allocatedResources: resourceList('the storage resource within AllocatedResources tracks the capacity allocated to a PVC (alpha).'),
    resizeStatus: str('the status of the resize operation; empty when no expansion is in progress (alpha).'),
  }),
}, 'PersistentVolumeClaim is a user\'s request for and claim to a persistent volume.');
