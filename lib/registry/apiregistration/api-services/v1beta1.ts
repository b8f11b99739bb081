/**
 * APIService at apiregistration.k8s.io/v1beta1: deprecated in 1.19 and removed in 1.22
 * (kube-aggregator's prerelease lifecycle), served here only when `--runtime-config` switches it
 * on, with Kubernetes' deprecation warning. Its shape, defaults (a service's port 443) and
 * validation are v1's, so it is a relabelling of the v1 objects: an APIService written at
 * v1beta1 is stored at v1, and the aggregation layer (which reads the v1 objects) serves it.
 */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { servedOverStorage } from '../../served-version';
import { apiServiceResource } from './definition';

/** The apiregistration v1beta1 def over v1's objects, off unless --runtime-config switches it on. */
export function apiServiceV1beta1Resource(naming: Naming): ResourceDef {
  const v1 = apiServiceResource(naming);
  const def: ResourceDef = {
    ...v1,
    version: 'v1beta1',
    servedByDefault: false,
    deprecation: { deprecatedIn: [1, 19], removedIn: [1, 22], replacement: { group: v1.group, version: 'v1', kind: 'APIService' } },
  };
  return servedOverStorage(def, 'v1');
}
