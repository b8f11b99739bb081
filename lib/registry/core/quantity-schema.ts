/** resource.Quantity and core/v1 ResourceList, as every kind that states sizes writes them. */
import { Schema } from '../../scheme/schema';

/** resource.Quantity: a string such as `1Gi` (JSON numbers are accepted on input). */
export const quantity = (description?: string): Schema => ({
  type: 'string', format: 'quantity', 'x-kubernetes-int-or-string': true, ...(description ? { description } : {}),
});

/** ResourceList: quantities by resource name. */
export const resourceList = (description?: string): Schema => ({
  type: 'object', additionalProperties: quantity(), ...(description ? { description } : {}),
});
