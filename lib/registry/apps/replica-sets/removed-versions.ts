/**
 * ReplicaSet at the versions Kubernetes removed in 1.16, served over the apps/v1 objects when
 * `--runtime-config` switches them on (../../removed-version.ts):
 *
 * - apps/v1beta2: apps/v1's shape and defaults.
 * - extensions/v1beta1: the selector optional (defaulted from the template's labels) and mutable.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { Json, setDefault } from '../../core/json-fields';
import { removedVersionOf, specSchemaWith } from '../../removed-version';
import { APPS_GROUP } from '../group';
import { defaultSelectorFromTemplate } from '../removed-fields';
import { replicaSetSchema } from './schema';

const replacement = { group: APPS_GROUP, version: 'v1', kind: 'ReplicaSet' };

/** extensions/v1beta1's SetDefaults_ReplicaSet, in place. */
function extensionsDefaults(obj: ApiObject): void {
  defaultSelectorFromTemplate(obj);
  setDefault(obj.spec as Json, 'replicas', 1);
}

/** apps/v1beta2 ReplicaSet over `current` (apps/v1's def). */
export function replicaSetAppsV1beta2Resource(current: ResourceDef): ResourceDef {
  return removedVersionOf(current, {
    group: APPS_GROUP, version: 'v1beta2',
    deprecation: { deprecatedIn: [1, 9], removedIn: [1, 16], replacement },
  });
}

/** extensions/v1beta1 ReplicaSet over `current`. */
export function replicaSetExtensionsV1beta1Resource(current: ResourceDef): ResourceDef {
  return removedVersionOf(current, {
    group: 'extensions', version: 'v1beta1',
    deprecation: { deprecatedIn: [1, 8], removedIn: [1, 16], replacement },
    schema: specSchemaWith(replicaSetSchema, {}, []),
    defaults: extensionsDefaults,
    mutableSelector: true,
  });
}
