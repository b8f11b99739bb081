/**
 * Lease at coordination.k8s.io/v1beta1 (coordination.orch.io in the orch flavor): removed from
 * Kubernetes in 1.22, served here only when `--runtime-config` switches it on (deprecated, with
 * Kubernetes' warning). v1beta1 has v1's LeaseSpec, no defaults and v1's validation: v1's def
 * over v1's objects, relabelled (a lease taken at one version is seen held at the other).
 */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { servedOverStorage } from '../../served-version';
import { leaseResource } from './definition';

export function leaseV1beta1Resource(naming: Naming): ResourceDef {
  const v1 = leaseResource(naming);
  return servedOverStorage({
    ...v1,
    version: 'v1beta1',
    servedByDefault: false,
    deprecation: { deprecatedIn: [1, 19], removedIn: [1, 22], replacement: { group: v1.group, version: 'v1', kind: v1.kind } },
  }, 'v1');
}
