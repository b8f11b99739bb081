/**
 * Deployment at the versions Kubernetes removed in 1.16, served over the apps/v1 objects when
 * `--runtime-config` switches them on (../../removed-version.ts):
 *
 * - apps/v1beta1: `spec.rollbackTo` (stored in the `deprecated.deployment.rollback.to`
 *   annotation), the selector optional (defaulted from the template's labels) and mutable,
 *   revisionHistoryLimit 2 by default, maxUnavailable / maxSurge 25%, progressDeadlineSeconds 600.
 * - apps/v1beta2: apps/v1's shape and defaults (selector required and immutable).
 * - extensions/v1beta1: as apps/v1beta1, but maxUnavailable and maxSurge 1 (also for a Recreate
 *   strategy that names rollingUpdate), and revisionHistoryLimit and progressDeadlineSeconds
 *   2147483647 (Go's MaxInt32: keep every ReplicaSet, no deadline) by default.
 *
 * apps/v1beta1 and extensions/v1beta1 also serve `/rollback` (./rollback.ts); every version's
 * `/scale` answers its own Scale.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { int64, object } from '../../../scheme/schema';
import { Json, isObject, setDefault } from '../../core/json-fields';
import { removedVersionOf, specSchemaWith } from '../../removed-version';
import { APPS_GROUP } from '../group';
import { defaultSelectorFromTemplate, rollbackToAnnotation, rollbackToField } from '../removed-fields';
import { deploymentSchema } from './schema';
import { rollbackSubresource } from './rollback';

const MAX_INT32 = 2147483647;
const replacement = { group: APPS_GROUP, version: 'v1', kind: 'Deployment' };

const rollbackConfig = object({
  revision: int64('The revision to rollback to. If set to 0, rollback to the last revision.'),
}, { description: 'DEPRECATED.' });

/** The schema of a Deployment with spec.rollbackTo and an optional selector (apps/v1beta1, extensions/v1beta1). */
export const deploymentRollbackSchema = specSchemaWith(deploymentSchema, {
  rollbackTo: { ...rollbackConfig, description: 'DEPRECATED. The config this deployment is rolling back to. Will be cleared after rollback is done.' },
}, ['template']);

interface OldDefaults { surge: number | string; revisionHistoryLimit: number; progressDeadlineSeconds: number; rollingUpdateOfAnyType: boolean }

/** SetDefaults_Deployment of apps/v1beta1 or extensions/v1beta1, in place. */
function oldDeploymentDefaults(d: OldDefaults): (obj: ApiObject) => void {
  return (obj) => {
    defaultSelectorFromTemplate(obj);
    const spec = obj.spec as Json;
    setDefault(spec, 'replicas', 1);
    if (!isObject(spec.strategy)) spec.strategy = {};
    const strategy = spec.strategy as Json;
    if (!strategy.type) strategy.type = 'RollingUpdate';
    if (strategy.type === 'RollingUpdate' || (d.rollingUpdateOfAnyType && isObject(strategy.rollingUpdate))) {
      if (!isObject(strategy.rollingUpdate)) strategy.rollingUpdate = {};
      setDefault(strategy.rollingUpdate as Json, 'maxUnavailable', d.surge);
      setDefault(strategy.rollingUpdate as Json, 'maxSurge', d.surge);
    }
    setDefault(spec, 'revisionHistoryLimit', d.revisionHistoryLimit);
    setDefault(spec, 'progressDeadlineSeconds', d.progressDeadlineSeconds);
  };
}

/** ValidateRollback of spec.rollbackTo (Kubernetes names the path spec.rollback.version). */
export function validateRollbackTo(obj: ApiObject): FieldError[] {
  const rollbackTo = isObject(obj.spec) ? obj.spec.rollbackTo : undefined;
  const revision = isObject(rollbackTo) && typeof rollbackTo.revision === 'number' ? rollbackTo.revision : 0;
  return revision < 0 ? [fieldErrors.invalid('spec.rollback.version', revision, 'must be greater than or equal to 0')] : [];
}

/** apps/v1beta1 Deployment over `current` (apps/v1's def). */
export function deploymentAppsV1beta1Resource(current: ResourceDef): ResourceDef {
  return removedVersionOf(current, {
    group: APPS_GROUP, version: 'v1beta1',
    deprecation: { deprecatedIn: [1, 8], removedIn: [1, 16], replacement },
    schema: deploymentRollbackSchema,
    defaults: oldDeploymentDefaults({ surge: '25%', revisionHistoryLimit: 2, progressDeadlineSeconds: 600, rollingUpdateOfAnyType: false }),
    toCurrent: rollbackToAnnotation,
    fromCurrent: rollbackToField,
    validate: validateRollbackTo,
    extraSubresources: [rollbackSubresource],
    mutableSelector: true,
  });
}

/** apps/v1beta2 Deployment over `current`: apps/v1's shape and defaults. */
export function deploymentAppsV1beta2Resource(current: ResourceDef): ResourceDef {
  return removedVersionOf(current, {
    group: APPS_GROUP, version: 'v1beta2',
    deprecation: { deprecatedIn: [1, 9], removedIn: [1, 16], replacement },
  });
}

/** extensions/v1beta1 Deployment over `current`. */
export function deploymentExtensionsV1beta1Resource(current: ResourceDef): ResourceDef {
  return removedVersionOf(current, {
    group: 'extensions', version: 'v1beta1',
    deprecation: { deprecatedIn: [1, 8], removedIn: [1, 16], replacement },
    schema: deploymentRollbackSchema,
    defaults: oldDeploymentDefaults({ surge: 1, revisionHistoryLimit: MAX_INT32, progressDeadlineSeconds: MAX_INT32, rollingUpdateOfAnyType: true }),
    toCurrent: rollbackToAnnotation,
    fromCurrent: rollbackToField,
    validate: validateRollbackTo,
    extraSubresources: [rollbackSubresource],
    mutableSelector: true,
  });
}
