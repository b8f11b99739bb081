/**
 * Kubernetes' pod QoS class as far as the toleration plugins need it: a pod is BestEffort when
 * no init container or container requests or limits a positive amount of cpu or memory.
 */
import { tryParseQuantity, quantitySign } from '../../meta/quantity';
import { Json, obj, podContainers } from './pod-json';

const QOS_RESOURCES = ['cpu', 'memory'];

const positive = (list: Json | undefined): boolean => QOS_RESOURCES.some((name) => {
  const q = list ? tryParseQuantity(list[name]) : undefined;
  return q !== undefined && quantitySign(q) > 0;
});

/** Whether the pod spec is of QoS class BestEffort. */
export function isBestEffort(spec: Json): boolean {
  return !podContainers(spec, ['initContainers', 'containers']).some(({ container }) => {
    const resources = obj(container, 'resources');
    return positive(obj(resources, 'requests')) || positive(obj(resources, 'limits'));
  });
}
