/**
 * ControllerRevision at apps/v1beta1 and apps/v1beta2, removed by Kubernetes in 1.16: apps/v1's
 * shape, served over its objects when `--runtime-config` switches them on (../../removed-version.ts).
 */
import { ResourceDef } from '../../../scheme/types';
import { removedVersionOf } from '../../removed-version';
import { APPS_GROUP } from '../group';

const replacement = { group: APPS_GROUP, version: 'v1', kind: 'ControllerRevision' };

/** apps/v1beta1 ControllerRevision over `current` (apps/v1's def). */
export function controllerRevisionAppsV1beta1Resource(current: ResourceDef): ResourceDef {
  return removedVersionOf(current, { group: APPS_GROUP, version: 'v1beta1', deprecation: { deprecatedIn: [1, 8], removedIn: [1, 16], replacement } });
}

/** apps/v1beta2 ControllerRevision over `current`. */
export function controllerRevisionAppsV1beta2Resource(current: ResourceDef): ResourceDef {
  return removedVersionOf(current, { group: APPS_GROUP, version: 'v1beta2', deprecation: { deprecatedIn: [1, 9], removedIn: [1, 16], replacement } });
}
