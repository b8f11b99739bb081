/**
 * What the Deployment and ReplicaSet tables share (Kubernetes' printers.go): the wide columns
 * CONTAINERS, IMAGES and SELECTOR, and their cells (layoutContainerCells: names and images joined
 * by commas; the selector as its label-selector string).
 */
import { TableColumnDefinition, column } from '../../meta/table';
import { Json, isObject, record, records, text } from '../core/json-fields';

export const containersColumn: TableColumnDefinition = column('Containers', 'string', 'Names of each container in the template.', { priority: 1 });
export const imagesColumn: TableColumnDefinition = column('Images', 'string', 'Images referenced by each container in the template.', { priority: 1 });
export const selectorColumn = (description: string): TableColumnDefinition => column('Selector', 'string', description, { priority: 1 });

/** The spec of an object (an empty one when absent). */
export const specOf = (obj: Json): Json => (isObject(obj.spec) ? obj.spec : {});
/** The status of an object (an empty one when absent). */
export const statusOf = (obj: Json): Json => (isObject(obj.status) ? obj.status : {});

/** layoutContainerCells: the template's container names and images, each joined by commas. */
export function containerCells(spec: Json): [string, string] {
  const containers = records(record(record(spec, 'template') ?? {}, 'spec') ?? {}, 'containers');
  return [containers.map((c) => text(c, 'name')).join(','), containers.map((c) => text(c, 'image')).join(',')];
}

/** An int32 field read as Go reads it (0 when absent). */
export const count = (o: Json, key: string): number => (typeof o[key] === 'number' ? (o[key] as number) : 0);
