/**
 * NetworkPolicy at extensions/v1beta1, removed by Kubernetes in 1.16: networking/v1's shape and
 * defaults, served over its objects (another group's storage, as Kubernetes' cohabiting
 * resources) when `--runtime-config=extensions/v1beta1=true` switches it on
 * (../../removed-version.ts).
 */
import { ResourceDef } from '../../../scheme/types';
import { removedVersionOf } from '../../removed-version';

/** extensions/v1beta1 NetworkPolicy over `current` (networking/v1's def). */
export function networkPolicyExtensionsV1beta1Resource(current: ResourceDef): ResourceDef {
  return removedVersionOf(current, {
    group: 'extensions', version: 'v1beta1',
    deprecation: { deprecatedIn: [1, 9], removedIn: [1, 16], replacement: { group: current.group, version: 'v1', kind: 'NetworkPolicy' } },
  });
}
