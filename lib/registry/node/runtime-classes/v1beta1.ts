/**
 * RuntimeClass at node.k8s.io/v1beta1 (node.orch.io in the orch flavor): removed from
 * Kubernetes in 1.25, served here only when `--runtime-config` switches it on (deprecated, with
 * Kubernetes' warning, which names no replacement). v1beta1 has v1's shape (`handler` at the top level, `overhead`,
 * `scheduling`), no defaults of its own and v1's validation: v1's def over v1's objects, relabelled.
 */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { servedOverStorage } from '../../served-version';
import { runtimeClassResource } from './definition';

export function runtimeClassV1beta1Resource(naming: Naming): ResourceDef {
  const v1 = runtimeClassResource(naming);
  return servedOverStorage({
    ...v1,
    version: 'v1beta1',
    servedByDefault: false,
    // Kubernetes names no replacement for it (k8s.io/api node/v1beta1's lifecycle): the warning has no `; use ...`.
    deprecation: { deprecatedIn: [1, 22], removedIn: [1, 25] },
  }, 'v1');
}
