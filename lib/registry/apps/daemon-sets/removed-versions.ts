/**
 * DaemonSet at the versions Kubernetes removed in 1.16, served over the apps/v1 objects when
 * `--runtime-config` switches them on (../../removed-version.ts):
 *
 * - apps/v1beta2: apps/v1's shape and defaults (updateStrategy RollingUpdate, maxUnavailable 1).
 * - extensions/v1beta1: `spec.templateGeneration` (stored in the
 *   `deprecated.daemonset.template.generation` annotation apps/v1 serves), updateStrategy
 *   OnDelete by default, the selector optional (defaulted from the template's labels) and mutable.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { int64 } from '../../../scheme/schema';
import { Json, isObject, setDefault } from '../../core/json-fields';
import { removedVersionOf, specSchemaWith } from '../../removed-version';
import { APPS_GROUP } from '../group';
import { defaultSelectorFromTemplate, templateGenerationAnnotation, templateGenerationField } from '../removed-fields';
import { daemonSetSchema } from './schema';

const replacement = { group: APPS_GROUP, version: 'v1', kind: 'DaemonSet' };

const extensionsSchema = specSchemaWith(daemonSetSchema, {
  templateGeneration: int64('DEPRECATED. A sequence number representing a specific generation of the template. Populated by the system. It can be set only during the creation.'),
}, ['template']);

/** extensions/v1beta1's SetDefaults_DaemonSet, in place. */
function extensionsDefaults(obj: ApiObject): void {
  defaultSelectorFromTemplate(obj);
  const spec = obj.spec as Json;
  if (!isObject(spec.updateStrategy)) spec.updateStrategy = {};
  const strategy = spec.updateStrategy as Json;
  if (!strategy.type) strategy.type = 'OnDelete';
  if (strategy.type === 'RollingUpdate') {
    if (!isObject(strategy.rollingUpdate)) strategy.rollingUpdate = {};
    setDefault(strategy.rollingUpdate as Json, 'maxUnavailable', 1);
  }
  setDefault(spec, 'revisionHistoryLimit', 10);
}

/** apps/v1beta2 DaemonSet over `current` (apps/v1's def). */
export function daemonSetAppsV1beta2Resource(current: ResourceDef): ResourceDef {
  return removedVersionOf(current, {
    group: APPS_GROUP, version: 'v1beta2',
    deprecation: { deprecatedIn: [1, 9], removedIn: [1, 16], replacement },
  });
}

/** extensions/v1beta1 DaemonSet over `current`. */
export function daemonSetExtensionsV1beta1Resource(current: ResourceDef): ResourceDef {
  return removedVersionOf(current, {
    group: 'extensions', version: 'v1beta1',
    deprecation: { deprecatedIn: [1, 8], removedIn: [1, 16], replacement },
    schema: extensionsSchema,
    defaults: extensionsDefaults,
    toCurrent: templateGenerationAnnotation,
    fromCurrent: templateGenerationField,
    mutableSelector: true,
  });
}
