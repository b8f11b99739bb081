/**
 * StatefulSet at the versions Kubernetes removed in 1.16, served over the apps/v1 objects when
 * `--runtime-config` switches them on (../../removed-version.ts):
 *
 * - apps/v1beta1: the selector optional (defaulted from the template's labels), updateStrategy
 *   OnDelete by default (a RollingUpdate's partition 0 only when rollingUpdate is given). The
 *   selector stays unchangeable: Kubernetes skips the immutable-field check at apps/v1beta1, but
 *   its rule on spec updates forbids the change anyway.
 * - apps/v1beta2: apps/v1's shape and defaults.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { Json, isObject, setDefault } from '../../core/json-fields';
import { removedVersionOf, specSchemaWith } from '../../removed-version';
import { APPS_GROUP } from '../group';
import { defaultSelectorFromTemplate } from '../removed-fields';
import { statefulSetSchema } from './schema';

const replacement = { group: APPS_GROUP, version: 'v1', kind: 'StatefulSet' };

/** apps/v1beta1's SetDefaults_StatefulSet, in place. */
function v1beta1Defaults(obj: ApiObject): void {
  defaultSelectorFromTemplate(obj);
  const spec = obj.spec as Json;
  if (!spec.podManagementPolicy) spec.podManagementPolicy = 'OrderedReady';
  if (!isObject(spec.updateStrategy)) spec.updateStrategy = {};
  const strategy = spec.updateStrategy as Json;
  if (!strategy.type) strategy.type = 'OnDelete';
  setDefault(spec, 'replicas', 1);
  setDefault(spec, 'revisionHistoryLimit', 10);
  if (strategy.type === 'RollingUpdate' && isObject(strategy.rollingUpdate)) setDefault(strategy.rollingUpdate as Json, 'partition', 0);
}

/** apps/v1beta1 StatefulSet over `current` (apps/v1's def). */
export function statefulSetAppsV1beta1Resource(current: ResourceDef): ResourceDef {
  return removedVersionOf(current, {
    group: APPS_GROUP, version: 'v1beta1',
    deprecation: { deprecatedIn: [1, 8], removedIn: [1, 16], replacement },
    schema: specSchemaWith(statefulSetSchema, {}, ['template']),
    defaults: v1beta1Defaults,
  });
}

/** apps/v1beta2 StatefulSet over `current`. */
export function statefulSetAppsV1beta2Resource(current: ResourceDef): ResourceDef {
  return removedVersionOf(current, {
    group: APPS_GROUP, version: 'v1beta2',
    deprecation: { deprecatedIn: [1, 9], removedIn: [1, 16], replacement },
  });
}
