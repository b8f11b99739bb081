/** Schema of storage/v1 CSINode: the CSI drivers of a node, merged by name. */
import { Schema, atomicList, int32, mapList, object, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

export const csiNodeSchema: Schema = kindSchema({
  spec: object({
    drivers: mapList(object({
      name: str('the name of the CSI driver this object refers to.'),
      nodeID: str('the node from the driver point of view.'),
      topologyKeys: atomicList(str(), 'the topology keys the driver supports.'),
      allocatable: object({ count: int32('the maximum number of unique volumes managed by the driver usable on a node; unset is unlimited.') }),
    }, { required: ['name', 'nodeID'] }), ['name'], 'information on all CSI drivers on the node.'),
  }, { required: ['drivers'] }),
}, 'CSINode holds information about all CSI drivers installed on a node.');
