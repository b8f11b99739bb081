/**
 * Schema of core/v1 ComponentStatus (deprecated since 1.19): the health of a control-plane
 * component as the API server probes it, in a list of conditions (type Healthy).
 */
import { Schema, mapList, object, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { goType } from '../../../scheme/type-names';

const componentCondition: Schema = goType('io.k8s.api.core.v1.ComponentCondition', object({
  type: str('Type of condition for a component. Valid value: "Healthy"'),
  status: str('Status of the condition for a component. Valid values for "Healthy": "True", "False", or "Unknown".'),
  message: str('Message about the condition for a component. For example, information about a health check.'),
  error: str('Condition error code for a component. For example, a health check error code.'),
}, { required: ['type', 'status'], description: 'Information about the condition of a component.' }));

export const componentStatusSchema: Schema = kindSchema({
  conditions: {
    ...mapList(componentCondition, ['type'], 'List of component conditions observed'),
    'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'type',
  },
}, 'ComponentStatus (and ComponentStatusList) holds the cluster validation info. Deprecated: This API is deprecated in v1.19+');
