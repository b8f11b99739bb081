/** Schema of storage/v1 CSIDriver. */
import { Schema, atomicList, bool, int64, object, setList, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

export const csiDriverSchema: Schema = kindSchema({
  spec: object({
    attachRequired: bool('whether the driver needs an attach operation; immutable.'),
    podInfoOnMount: bool('whether workload information is passed on mount; default false; immutable.'),
    volumeLifecycleModes: setList(str(), 'Persistent (default) and/or Ephemeral; immutable.'),
    storageCapacity: bool('whether the scheduler considers reported storage capacity.'),
    fsGroupPolicy: str('ReadWriteOnceWithFSType (default), File or None; immutable.'),
    tokenRequests: atomicList(object({
      audience: str('the intended audience of the token.'),
      expirationSeconds: int64('the duration of validity of the token.'),
    }, { required: ['audience'] }), 'service account tokens passed to the driver on publish.'),
    requiresRepublish: bool('whether publish is called periodically; default false.'),
  }),
}, 'CSIDriver captures information about a Container Storage Interface (CSI) volume driver deployed on the cluster.');
