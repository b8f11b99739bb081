/**
 * IngressClass at networking.k8s.io/v1beta1 (networking.orch.io in the orch flavor): removed
 * from Kubernetes in 1.22, served here only when `--runtime-config` switches it on (deprecated,
 * with Kubernetes' warning). v1beta1 has v1's spec (controller, parameters with their scope),
 * defaults and validation: v1's def over v1's objects, relabelled.
 */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { servedOverStorage } from '../../served-version';
import { ingressClassResource } from './definition';

export function ingressClassV1beta1Resource(naming: Naming): ResourceDef {
  const v1 = ingressClassResource(naming);
  return servedOverStorage({
    ...v1,
    version: 'v1beta1',
    servedByDefault: false,
    // Kubernetes' lifecycle data names the list kind (k8s.io/api networking/v1beta1, every release), so its warning says `use <group>/v1 IngressClassList`.
    deprecation: { deprecatedIn: [1, 19], removedIn: [1, 22], replacement: { group: v1.group, version: 'v1', kind: 'IngressClassList' } },
  }, 'v1');
}
