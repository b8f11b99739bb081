/** Go's %#v of a resource.Quantity: moved to lib/meta/go-quantity.ts (LimitRange prints it too). */
export { goQuantity } from '../../../meta/go-quantity';
