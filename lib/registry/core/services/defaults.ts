/**
 * What the Service strategy and REST do to an incoming Service before allocation and
 * validation, as Kubernetes 1.32 does: SetDefaults_Service (core/v1 defaults.go), the sync of
 * clusterIP and clusterIPs (normalizeClusterIPs), the allocated values an update may leave out
 * (patchAllocatedValues) and the fields a type change drops (dropTypeDependentFields), all in
 * pkg/registry/core/service.
 */
import type { ApiObject } from '../../../scheme/types';
import {
  ServiceSpec, externallyAccessible, needsClusterIP, needsHealthCheck, needsNodePort, portsOf, sameClusterIPs, sameIPFamilies, specOf,
} from './spec';

/** DefaultClientIPServiceAffinitySeconds. */
export const DEFAULT_CLIENT_IP_TIMEOUT = 10800;

/** SetDefaults_Service. */
export function defaultService(obj: ApiObject): void {
  const spec = specOf(obj);
  if (!spec.sessionAffinity) spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const timeout = spec.sessionAffinityConfig?.clientIP?.timeoutSeconds;
    if (timeout === undefined || timeout === null) spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: DEFAULT_CLIENT_IP_TIMEOUT } };
  }
  if (!spec.type) spec.type = 'ClusterIP';
  for (const p of portsOf(spec)) {
    if (!p.protocol) p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port ?? 0;
  }
  if (externallyAccessible(spec) && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = 'Cluster';
  if (spec.internalTrafficPolicy === undefined || spec.internalTrafficPolicy === null) {
    if (spec.type === 'NodePort' || spec.type === 'LoadBalancer' || spec.type === 'ClusterIP') spec.internalTrafficPolicy = 'Cluster';
  }
  if (spec.type === 'LoadBalancer' && (spec.allocateLoadBalancerNodePorts === undefined || spec.allocateLoadBalancerNodePorts === null)) {
    spec.allocateLoadBalancerNodePorts = true;
  }
  defaultServiceStatus(obj);
}

/** The LoadBalancerIPMode default: an ingress with an ip gets ipMode VIP (LoadBalancer services). */
export function defaultServiceStatus(obj: ApiObject): void {
  if (specOf(obj).type !== 'LoadBalancer') return;
  const status = obj.status as { loadBalancer?: { ingress?: { ip?: string; ipMode?: string }[] } } | undefined;
  for (const ing of status?.loadBalancer?.ingress ?? []) {
    if (ing && typeof ing === 'object' && ing.ip && !ing.ipMode) ing.ipMode = 'VIP';
  }
}

/** normalizeClusterIPs: keeps clusterIP and clusterIPs in step for clients that set only one. */
export function normalizeClusterIPs(spec: ServiceSpec, old?: ServiceSpec): void {
  if (!old) {
    if (spec.clusterIP && !spec.clusterIPs?.length) spec.clusterIPs = [spec.clusterIP];
    return;
  }
  if (old.clusterIPs?.length && !spec.clusterIPs?.length && (old.clusterIP ?? '') === (spec.clusterIP ?? '')) spec.clusterIPs = old.clusterIPs;
  if ((old.clusterIP ?? '') !== (spec.clusterIP ?? '')) {
    if (old.clusterIP && !spec.clusterIP) {
      if (sameClusterIPs(old, spec)) delete spec.clusterIPs;
    } else if (sameClusterIPs(old, spec)) {
      spec.clusterIPs = [spec.clusterIP as string];
    }
  }
}

const needsHcNodePort = (spec: ServiceSpec) => needsHealthCheck(spec);

/** patchAllocatedValues: an update that leaves out allocated values keeps the old ones. */
export function patchAllocatedValues(spec: ServiceSpec, old: ServiceSpec): void {
  if (needsClusterIP(old) && needsClusterIP(spec)) {
    if (!spec.clusterIP && old.clusterIP) spec.clusterIP = old.clusterIP;
    if (!spec.clusterIPs?.length && old.clusterIPs?.length) spec.clusterIPs = [...old.clusterIPs];
  }
  if (needsNodePort(old) && needsNodePort(spec)) {
    const usedBy = (s: ServiceSpec) => new Set(portsOf(s).map((p) => p.nodePort).filter((n): n is number => !!n));
    const newUsed = usedBy(spec);
    const used = new Set([...usedBy(old)].filter((n) => newUsed.has(n)));
    const byName = new Map<string, number>();
    for (const p of portsOf(old)) byName.set(p.name ?? '', p.nodePort ?? 0);
    for (const p of portsOf(spec)) {
      if (!p.nodePort) {
        const oldVal = byName.get(p.name ?? '') ?? 0;
        if (oldVal && !used.has(oldVal)) p.nodePort = oldVal;
      }
    }
  }
  if (needsHcNodePort(old) && needsHcNodePort(spec) && !spec.healthCheckNodePort && old.healthCheckNodePort) {
    spec.healthCheckNodePort = old.healthCheckNodePort;
  }
}

/** dropTypeDependentFields: a type change wipes what the new type does not use, when the client left it as it was. */
export function dropTypeDependentFields(obj: ApiObject, old: ApiObject): void {
  const spec = specOf(obj);
  const o = specOf(old);
  if (needsClusterIP(o) && !needsClusterIP(spec)) {
    if (sameClusterIPs(o, spec)) { delete spec.clusterIP; delete spec.clusterIPs; }
    if (sameIPFamilies(o, spec)) delete spec.ipFamilies;
    if ((o.ipFamilyPolicy ?? null) === (spec.ipFamilyPolicy ?? null)) delete spec.ipFamilyPolicy;
  }
  if (needsNodePort(o) && !needsNodePort(spec)) {
    // sameNodePorts: the new ports add no node port the old ones did not have.
    const oldPorts = new Set(portsOf(o).map((p) => p.nodePort ?? 0));
    if (portsOf(spec).every((p) => !p.nodePort || oldPorts.has(p.nodePort))) for (const p of portsOf(spec)) delete p.nodePort;
  }
  if (needsHcNodePort(o) && !needsHcNodePort(spec) && (o.healthCheckNodePort ?? 0) === (spec.healthCheckNodePort ?? 0)) delete spec.healthCheckNodePort;
  if (o.type === 'LoadBalancer' && spec.type !== 'LoadBalancer') {
    if (typeof spec.allocateLoadBalancerNodePorts === 'boolean' && spec.allocateLoadBalancerNodePorts === o.allocateLoadBalancerNodePorts) {
      delete spec.allocateLoadBalancerNodePorts;
    }
    if ((o.loadBalancerClass ?? null) === (spec.loadBalancerClass ?? null)) delete spec.loadBalancerClass;
  }
  if (externallyAccessible(o) && !externallyAccessible(spec) && (o.externalTrafficPolicy ?? '') === (spec.externalTrafficPolicy ?? '')) {
    delete spec.externalTrafficPolicy;
  }
  if (spec.type !== 'LoadBalancer' && obj.status && typeof obj.status === 'object') {
    (obj.status as Record<string, unknown>).loadBalancer = {};
  }
}
