/** The stores of a server by resource, as handlers, admission plugins and controllers look them up. */
import type { GenericStore } from './store';

/** Stores by `<group>/<version>/<resource>` (group '' for core). */
export type StoreIndex = Map<string, GenericStore>;

export function storeKey(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}
