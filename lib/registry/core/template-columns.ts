/**
 * What kubectl's printers of every kind that holds a pod template share (Kubernetes'
 * printers.go): the wide columns CONTAINERS, IMAGES and SELECTOR, and layoutContainerCells (the
 * template's container names and images, each joined by commas). Deployment, ReplicaSet,
 * StatefulSet, DaemonSet, ReplicationController, Job and CronJob print them.
 */
import { TableColumnDefinition, column } from '../../meta/table';
import { Json, isObject, record, records, text } from './json-fields';

export const containersColumn: TableColumnDefinition = column('Containers', 'string', 'Names of each container in the template.', { priority: 1 });
export const imagesColumn: TableColumnDefinition = column('Images', 'string', 'Images referenced by each container in the template.', { priority: 1 });
/** The SELECTOR column, with the kind's description of its selector. */
export const selectorColumn = (description: string): TableColumnDefinition => column('Selector', 'string', description, { priority: 1 });

/** layoutContainerCells of a pod spec: container names and images, each comma separated. */
export function podSpecContainerCells(podSpec: unknown): [string, string] {
  const containers = records(isObject(podSpec) ? podSpec : {}, 'containers');
  return [containers.map((c) => text(c, 'name')).join(','), containers.map((c) => text(c, 'image')).join(',')];
}

/** layoutContainerCells of a pod template ({ metadata, spec }). */
export function templateContainerCells(template: unknown): [string, string] {
  return podSpecContainerCells(isObject(template) ? record(template, 'spec') : undefined);
}

/** The spec of an object (an empty one when absent). */
export const specOf = (obj: Json): Json => (isObject(obj.spec) ? obj.spec : {});
/** The status of an object (an empty one when absent). */
export const statusOf = (obj: Json): Json => (isObject(obj.status) ? obj.status : {});
/** An int32 field read as Go reads it (0 when absent). */
export const count = (o: Json, key: string): number => (typeof o[key] === 'number' ? (o[key] as number) : 0);
