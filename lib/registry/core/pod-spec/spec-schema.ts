/**
 * Schema of the core/v1 PodSpec shared by Pods and pod templates: the whole PodSpec of Kubernetes 1.32: containers, init
 * containers (sidecars with restartPolicy Always), ephemeral containers, volumes, scheduling
 * (node selector, affinity, tolerations, topology spread, priority, scheduling gates), the pod
 * security context, DNS, host namespaces, overhead, resource claims and pod-level resources.
 * List, map and patch markers are those of Kubernetes' types.go: they drive strategic merge
 * patch, server-side apply and the OpenAPI documents.
 */
import { resourceList } from '../quantity-schema';
import { affinity, toleration, topologySpreadConstraint } from './affinity-schema';
import { container, ephemeralContainer, resourceRequirements } from './container-schema';
import { podSecurityContext } from './security-context-schema';
import { localObjectReference } from '../object-reference-schema';
import { volume } from '../volumes/volume-schema';
import { goType } from '../../../scheme/type-names';
import { Schema, atomicList, bool, int32, int64, mapList, object, str, stringMap } from '../../../scheme/schema';

/** core/v1 HostAlias. */
export const hostAlias: Schema = goType('io.k8s.api.core.v1.HostAlias', object({
  ip: str(),
  hostnames: atomicList(str()),
}, { required: ['ip'] }));

/** core/v1 PodDNSConfigOption. */
export const podDNSConfigOption: Schema = goType('io.k8s.api.core.v1.PodDNSConfigOption', object({
  name: str(),
  value: str(),
}));

/** core/v1 PodDNSConfig. */
export const podDNSConfig: Schema = goType('io.k8s.api.core.v1.PodDNSConfig', object({
  nameservers: atomicList(str()),
  searches: atomicList(str()),
  options: atomicList(podDNSConfigOption),
}));

/** core/v1 PodReadinessGate. */
export const podReadinessGate: Schema = goType('io.k8s.api.core.v1.PodReadinessGate', object({
  conditionType: str(),
}, { required: ['conditionType'] }));

/** core/v1 PodOS. */
export const podOS: Schema = goType('io.k8s.api.core.v1.PodOS', object({
  name: str(),
}, { required: ['name'] }));

/** core/v1 PodSchedulingGate. */
export const podSchedulingGate: Schema = goType('io.k8s.api.core.v1.PodSchedulingGate', object({
  name: str(),
}, { required: ['name'] }));

/** core/v1 PodResourceClaim. */
export const podResourceClaim: Schema = goType('io.k8s.api.core.v1.PodResourceClaim', object({
  name: str(),
  resourceClaimName: str(),
  resourceClaimTemplateName: str(),
}, { required: ['name'] }));

/** core/v1 PodSpec. */
export const podSpec: Schema = goType('io.k8s.api.core.v1.PodSpec', object({
  volumes: { type: 'array', items: volume, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], 'x-kubernetes-patch-strategy': 'merge,retainKeys', 'x-kubernetes-patch-merge-key': 'name' },
  initContainers: mapList(container, ['name']),
  containers: mapList(container, ['name']),
  ephemeralContainers: mapList(ephemeralContainer, ['name']),
  restartPolicy: str(),
  terminationGracePeriodSeconds: int64(),
  activeDeadlineSeconds: int64(),
  dnsPolicy: str(),
  nodeSelector: { ...stringMap(), 'x-kubernetes-map-type': 'atomic' },
  serviceAccountName: str(),
  serviceAccount: str(),
  automountServiceAccountToken: bool(),
  nodeName: str(),
  hostNetwork: bool(),
  hostPID: bool(),
  hostIPC: bool(),
  shareProcessNamespace: bool(),
  securityContext: podSecurityContext,
  imagePullSecrets: mapList(localObjectReference, ['name']),
  hostname: str(),
  subdomain: str(),
  affinity: affinity,
  schedulerName: str(),
  tolerations: atomicList(toleration),
  hostAliases: mapList(hostAlias, ['ip']),
  priorityClassName: str(),
  priority: int32(),
  dnsConfig: podDNSConfig,
  readinessGates: atomicList(podReadinessGate),
  runtimeClassName: str(),
  enableServiceLinks: bool(),
  preemptionPolicy: str(),
  overhead: resourceList(),
  topologySpreadConstraints: mapList(topologySpreadConstraint, ['topologyKey', 'whenUnsatisfiable']),
  setHostnameAsFQDN: bool(),
  os: podOS,
  hostUsers: bool(),
  schedulingGates: mapList(podSchedulingGate, ['name']),
  resourceClaims: { type: 'array', items: podResourceClaim, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], 'x-kubernetes-patch-strategy': 'merge,retainKeys', 'x-kubernetes-patch-merge-key': 'name' },
  resources: resourceRequirements,
}, { required: ['containers'], description: 'PodSpec is a description of a pod.' }));
