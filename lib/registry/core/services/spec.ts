/**
 * The Service's fields as this kind's code reads them (plain JSON: core/v1 ServiceSpec,
 * ServicePort, ServiceStatus), and the predicates Kubernetes' pkg/api/service and the service
 * REST share: which types take a cluster IP, node ports, a health-check node port.
 */
import type { ApiObject } from '../../../scheme/types';

export interface ServicePort {
  name?: string;
  protocol?: string;
  appProtocol?: string;
  port?: number;
  targetPort?: number | string;
  nodePort?: number;
}

export interface ServiceSpec {
  ports?: ServicePort[];
  selector?: Record<string, string>;
  clusterIP?: string;
  clusterIPs?: string[];
  type?: string;
  externalIPs?: string[];
  sessionAffinity?: string;
  loadBalancerIP?: string;
  loadBalancerSourceRanges?: string[];
  externalName?: string;
  externalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  publishNotReadyAddresses?: boolean;
  sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } };
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  allocateLoadBalancerNodePorts?: boolean;
  loadBalancerClass?: string;
  internalTrafficPolicy?: string;
  trafficDistribution?: string;
}

export interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
  ipMode?: string;
  ports?: { port?: number; protocol?: string; error?: string }[];
}

export interface ServiceStatus {
  loadBalancer?: { ingress?: LoadBalancerIngress[] };
  conditions?: unknown[];
}

export const CLUSTER_IP_NONE = 'None';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object's spec (created when absent, so callers may write to it). */
export function specOf(obj: ApiObject): ServiceSpec {
  if (!isObject(obj.spec)) obj.spec = {};
  return obj.spec as ServiceSpec;
}

export function statusOf(obj: ApiObject): ServiceStatus {
  return isObject(obj.status) ? obj.status as ServiceStatus : {};
}

export const portsOf = (spec: ServiceSpec): ServicePort[] => (Array.isArray(spec.ports) ? spec.ports.filter(isObject) : []);

/** isHeadlessService: clusterIPs[0] is `None`. */
export const isHeadless = (spec: ServiceSpec): boolean => Array.isArray(spec.clusterIPs) && spec.clusterIPs[0] === CLUSTER_IP_NONE;

/** ExternallyAccessible: NodePort, LoadBalancer, or ClusterIP with external IPs. */
export const externallyAccessible = (spec: ServiceSpec): boolean => spec.type === 'LoadBalancer' || spec.type === 'NodePort'
  || (spec.type === 'ClusterIP' && Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0);

/** NeedsHealthCheck: LoadBalancer with externalTrafficPolicy Local. */
export const needsHealthCheck = (spec: ServiceSpec): boolean => spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';

export const needsClusterIP = (spec: ServiceSpec): boolean => spec.type !== 'ExternalName';
export const needsNodePort = (spec: ServiceSpec): boolean => spec.type === 'NodePort' || spec.type === 'LoadBalancer';

/** shouldAllocateNodePorts: NodePort always, LoadBalancer unless allocateLoadBalancerNodePorts is false. */
export const shouldAllocateNodePorts = (spec: ServiceSpec): boolean => spec.type === 'NodePort'
  || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);

/** The node ports a spec holds, each once (collectServiceNodePorts, plus the health-check port). */
export function nodePortsOf(spec: ServiceSpec): number[] {
  const ports = new Set<number>();
  for (const p of portsOf(spec)) if (typeof p.nodePort === 'number' && p.nodePort !== 0) ports.add(p.nodePort);
  return [...ports];
}

const sameList = (a: unknown, b: unknown) => JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
export const sameClusterIPs = (a: ServiceSpec, b: ServiceSpec) => sameList(a.clusterIPs, b.clusterIPs);
export const sameIPFamilies = (a: ServiceSpec, b: ServiceSpec) => sameList(a.ipFamilies, b.ipFamilies);
