/**
 * Schema of a pod's container (core/v1 Container and EphemeralContainer) with every field of
 * Kubernetes 1.32: ports (a map keyed by containerPort and protocol), env and envFrom,
 * resources, resize policy, mounts and devices, probes, lifecycle and security context.
 */
import { goType } from '../../../scheme/type-names';
import { resourceList } from '../quantity-schema';
import { lifecycle, probe } from './probe-schema';
import { securityContext } from './security-context-schema';
import { localObjectReference } from '../object-reference-schema';
import { objectFieldSelector, resourceFieldSelector } from '../volumes/volume-schema';
import { Schema, atomicList, bool, int32, mapList, object, str } from '../../../scheme/schema';

/** core/v1 ContainerPort. */
export const containerPort: Schema = goType('io.k8s.api.core.v1.ContainerPort', object({
  name: str(),
  hostPort: int32(),
  containerPort: int32(),
  protocol: { ...str(), default: 'TCP' },
  hostIP: str(),
}, { required: ['containerPort'] }));

/** core/v1 ConfigMapEnvSource. */
export const configMapEnvSource: Schema = goType('io.k8s.api.core.v1.ConfigMapEnvSource', object({
  ...localObjectReference.properties,
  optional: bool(),
}));

/** core/v1 SecretEnvSource. */
export const secretEnvSource: Schema = goType('io.k8s.api.core.v1.SecretEnvSource', object({
  ...localObjectReference.properties,
  optional: bool(),
}));

/** core/v1 EnvFromSource. */
export const envFromSource: Schema = goType('io.k8s.api.core.v1.EnvFromSource', object({
  prefix: str(),
  configMapRef: configMapEnvSource,
  secretRef: secretEnvSource,
}));

/** core/v1 ConfigMapKeySelector. */
export const configMapKeySelector: Schema = goType('io.k8s.api.core.v1.ConfigMapKeySelector', object({
  ...localObjectReference.properties,
  key: str(),
  optional: bool(),
}, { required: ['key'], 'x-kubernetes-map-type': 'atomic' }));

/** core/v1 SecretKeySelector. */
export const secretKeySelector: Schema = goType('io.k8s.api.core.v1.SecretKeySelector', object({
  ...localObjectReference.properties,
  key: str(),
  optional: bool(),
}, { required: ['key'], 'x-kubernetes-map-type': 'atomic' }));

/** core/v1 EnvVarSource. */
export const envVarSource: Schema = goType('io.k8s.api.core.v1.EnvVarSource', object({
  fieldRef: objectFieldSelector,
  resourceFieldRef: resourceFieldSelector,
  configMapKeyRef: configMapKeySelector,
  secretKeyRef: secretKeySelector,
}));

/** core/v1 EnvVar. */
export const envVar: Schema = goType('io.k8s.api.core.v1.EnvVar', object({
  name: str(),
  value: str(),
  valueFrom: envVarSource,
}, { required: ['name'] }));

/** core/v1 ResourceClaim. */
export const resourceClaim: Schema = goType('io.k8s.api.core.v1.ResourceClaim', object({
  name: str(),
  request: str(),
}, { required: ['name'] }));

/** core/v1 ResourceRequirements. */
export const resourceRequirements: Schema = goType('io.k8s.api.core.v1.ResourceRequirements', object({
  limits: resourceList(),
  requests: resourceList(),
  claims: { type: 'array', items: resourceClaim, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] },
}));

/** core/v1 ContainerResizePolicy. */
export const containerResizePolicy: Schema = goType('io.k8s.api.core.v1.ContainerResizePolicy', object({
  resourceName: str(),
  restartPolicy: str(),
}, { required: ['resourceName', 'restartPolicy'] }));

/** core/v1 VolumeMount. */
export const volumeMount: Schema = goType('io.k8s.api.core.v1.VolumeMount', object({
  name: str(),
  readOnly: bool(),
  recursiveReadOnly: str(),
  mountPath: str(),
  subPath: str(),
  mountPropagation: str(),
  subPathExpr: str(),
}, { required: ['name', 'mountPath'] }));

/** core/v1 VolumeDevice. */
export const volumeDevice: Schema = goType('io.k8s.api.core.v1.VolumeDevice', object({
  name: str(),
  devicePath: str(),
}, { required: ['name', 'devicePath'] }));

/** core/v1 Container. */
export const container: Schema = goType('io.k8s.api.core.v1.Container', object({
  name: str(),
  image: str(),
  command: atomicList(str()),
  args: atomicList(str()),
  workingDir: str(),
  ports: mapList(containerPort, ['containerPort', 'protocol']),
  envFrom: atomicList(envFromSource),
  env: mapList(envVar, ['name']),
  resources: resourceRequirements,
  resizePolicy: atomicList(containerResizePolicy),
  restartPolicy: str(),
  volumeMounts: mapList(volumeMount, ['mountPath']),
  volumeDevices: mapList(volumeDevice, ['devicePath']),
  livenessProbe: probe,
  readinessProbe: probe,
  startupProbe: probe,
  lifecycle: lifecycle,
  terminationMessagePath: str(),
  terminationMessagePolicy: str(),
  imagePullPolicy: str(),
  securityContext: securityContext,
  stdin: bool(),
  stdinOnce: bool(),
  tty: bool(),
}, { required: ['name'] }));

/** core/v1 EphemeralContainer: a Container's fields (EphemeralContainerCommon) and the target container. */
export const ephemeralContainer: Schema = goType('io.k8s.api.core.v1.EphemeralContainer', object({
  ...container.properties,
  targetContainerName: str(),
}, { required: ['name'] }));
