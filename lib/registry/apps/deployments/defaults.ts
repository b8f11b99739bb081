/**
 * Kubernetes' SetDefaults_Deployment (pkg/apis/apps/v1/defaults.go) and the pod template's
 * defaults below it (SetObjectDefaults_Deployment): replicas 1; strategy RollingUpdate with
 * maxUnavailable and maxSurge "25%"; revisionHistoryLimit 10; progressDeadlineSeconds 600.
 * A spec, template or strategy that is absent is created, as Go's value structs always exist.
 */
import { Json, isObject, setDefault } from '../../core/json-fields';
import { VolumeRules } from '../../core/volumes/volume-list';
import { defaultPodTemplateSpec } from '../../core/pod-template';

/** Defaults a Deployment in place. */
export function defaultDeployment(obj: Json, volumes: VolumeRules): void {
  if (!isObject(obj.spec)) obj.spec = {};
  const spec = obj.spec as Json;
  setDefault(spec, 'replicas', 1);
  if (!isObject(spec.strategy)) spec.strategy = {};
  const strategy = spec.strategy as Json;
  if (strategy.type === undefined || strategy.type === null || strategy.type === '') strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    if (!isObject(strategy.rollingUpdate)) strategy.rollingUpdate = {};
    const ru = strategy.rollingUpdate as Json;
    setDefault(ru, 'maxUnavailable', '25%');
    setDefault(ru, 'maxSurge', '25%');
  }
  setDefault(spec, 'revisionHistoryLimit', 10);
  setDefault(spec, 'progressDeadlineSeconds', 600);
  defaultPodTemplateSpec(spec, 'template', volumes);
}
