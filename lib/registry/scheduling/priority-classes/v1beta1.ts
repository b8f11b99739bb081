/**
 * PriorityClass at scheduling.k8s.io/v1beta1 (scheduling.orch.io in the orch flavor): removed
 * from Kubernetes in 1.22, served here only when `--runtime-config` switches it on (deprecated,
 * with Kubernetes' warning). v1beta1 has v1's fields, defaults (preemptionPolicy
 * PreemptLowerPriority) and validation: v1's def over v1's objects, relabelled, so the system
 * classes (`system-cluster-critical`, `system-node-critical`) are read, listed and watched at it too.
 */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { servedOverStorage } from '../../served-version';
import { priorityClassResource } from './definition';

export function priorityClassV1beta1Resource(naming: Naming): ResourceDef {
  const v1 = priorityClassResource(naming);
  return servedOverStorage({
    ...v1,
    version: 'v1beta1',
    servedByDefault: false,
    deprecation: { deprecatedIn: [1, 14], removedIn: [1, 22], replacement: { group: v1.group, version: 'v1', kind: v1.kind } },
  }, 'v1');
}
