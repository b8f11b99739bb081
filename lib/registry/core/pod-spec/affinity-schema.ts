/**
 * Schemas of where a pod may run: node, pod and anti-pod affinity, tolerations and topology
 * spread constraints (core/v1), with Kubernetes' required fields and list markers.
 */
import { goType } from '../../../scheme/type-names';
import { labelSelector } from '../../../scheme/meta-schema';
import { nodeSelector, nodeSelectorTerm } from '../node-selector-schema';
import { Schema, atomicList, int32, int64, object, str } from '../../../scheme/schema';

/** core/v1 PreferredSchedulingTerm. */
export const preferredSchedulingTerm: Schema = goType('io.k8s.api.core.v1.PreferredSchedulingTerm', object({
  weight: int32(),
  preference: nodeSelectorTerm,
}, { required: ['weight', 'preference'] }));

/** core/v1 NodeAffinity. */
export const nodeAffinity: Schema = goType('io.k8s.api.core.v1.NodeAffinity', object({
  requiredDuringSchedulingIgnoredDuringExecution: nodeSelector,
  preferredDuringSchedulingIgnoredDuringExecution: atomicList(preferredSchedulingTerm),
}));

/** core/v1 PodAffinityTerm. */
export const podAffinityTerm: Schema = goType('io.k8s.api.core.v1.PodAffinityTerm', object({
  labelSelector: labelSelector,
  namespaces: atomicList(str()),
  topologyKey: str(),
  namespaceSelector: labelSelector,
  matchLabelKeys: atomicList(str()),
  mismatchLabelKeys: atomicList(str()),
}, { required: ['topologyKey'] }));

/** core/v1 WeightedPodAffinityTerm. */
export const weightedPodAffinityTerm: Schema = goType('io.k8s.api.core.v1.WeightedPodAffinityTerm', object({
  weight: int32(),
  podAffinityTerm: podAffinityTerm,
}, { required: ['weight', 'podAffinityTerm'] }));

/** core/v1 PodAffinity. */
export const podAffinity: Schema = goType('io.k8s.api.core.v1.PodAffinity', object({
  requiredDuringSchedulingIgnoredDuringExecution: atomicList(podAffinityTerm),
  preferredDuringSchedulingIgnoredDuringExecution: atomicList(weightedPodAffinityTerm),
}));

/** core/v1 PodAntiAffinity. */
export const podAntiAffinity: Schema = goType('io.k8s.api.core.v1.PodAntiAffinity', object({
  requiredDuringSchedulingIgnoredDuringExecution: atomicList(podAffinityTerm),
  preferredDuringSchedulingIgnoredDuringExecution: atomicList(weightedPodAffinityTerm),
}));

/** core/v1 Affinity. */
export const affinity: Schema = goType('io.k8s.api.core.v1.Affinity', object({
  nodeAffinity: nodeAffinity,
  podAffinity: podAffinity,
  podAntiAffinity: podAntiAffinity,
}));

/** core/v1 Toleration. */
export const toleration: Schema = goType('io.k8s.api.core.v1.Toleration', object({
  key: str(),
  operator: str(),
  value: str(),
  effect: str(),
  tolerationSeconds: int64(),
}));

/** core/v1 TopologySpreadConstraint. */
export const topologySpreadConstraint: Schema = goType('io.k8s.api.core.v1.TopologySpreadConstraint', object({
  maxSkew: int32(),
  topologyKey: str(),
  whenUnsatisfiable: str(),
  labelSelector: labelSelector,
  minDomains: int32(),
  nodeAffinityPolicy: str(),
  nodeTaintsPolicy: str(),
  matchLabelKeys: atomicList(str()),
}, { required: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'] }));
