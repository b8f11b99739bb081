/**
 * The objects the server keeps for the `default/kubernetes` Service, as kube-apiserver 1.32
 * writes them (pkg/controlplane/reconcilers: lease.go and endpointsadapter.go; pkg/controlplane/
 * controller/kubernetesservice):
 * - the Endpoints: one subset, the live replicas' addresses (sorted) and the port `https` (TCP)
 *   on the secure port, labelled `endpointslice.kubernetes.io/skip-mirror: "true"` so that
 *   kube-controller-manager's mirroring controller leaves it alone;
 * - the EndpointSlice `kubernetes`, made from the Endpoints' first subset: labelled
 *   `kubernetes.io/service-name: kubernetes`, one endpoint per address with `ready: true`;
 * - the Service: port 443 `https` to the secure port, labels component=apiserver and
 *   provider=kubernetes, the first address of the service IP range, no selector.
 */
import { ApiObject } from '../../scheme/types';

export const KUBERNETES = 'kubernetes';
export const DEFAULT_NAMESPACE = 'default';
export const SKIP_MIRROR = 'endpointslice.kubernetes.io/skip-mirror';
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

interface Port { name: string; port: number; protocol: string }
interface Subset { addresses?: Array<{ ip: string }>; notReadyAddresses?: Array<{ ip: string }>; ports?: Port[] }

export const endpointPorts = (securePort: number): Port[] => [{ name: 'https', port: securePort, protocol: 'TCP' }];

/** Whether `current` already lists exactly `ips` (sorted) on exactly the wanted ports, with the skip-mirror label. */
export function endpointsCorrect(current: ApiObject, ips: string[], securePort: number): boolean {
  const subsets = (current.subsets ?? []) as Subset[];
  if (current.metadata?.labels?.[SKIP_MIRROR] !== 'true') return false;
  if (subsets.length !== 1 || (subsets[0].notReadyAddresses ?? []).length) return false;
  const addresses = (subsets[0].addresses ?? []).map((a) => a.ip);
  if (addresses.length !== ips.length || addresses.some((ip, i) => ip !== ips[i])) return false;
  const ports = subsets[0].ports ?? [];
  const want = endpointPorts(securePort)[0];
  return ports.length === 1 && ports[0].name === want.name && ports[0].port === want.port && ports[0].protocol === want.protocol;
}

/** The Endpoints `default/kubernetes` listing `ips` (keeping the rest of `current`'s metadata). */
export function kubernetesEndpoints(current: ApiObject | undefined, ips: string[], securePort: number): ApiObject {
  const metadata = { ...(current?.metadata ?? { name: KUBERNETES, namespace: DEFAULT_NAMESPACE }) };
  metadata.labels = { ...(metadata.labels ?? {}), [SKIP_MIRROR]: 'true' };
  return {
    ...(current ?? {}), apiVersion: 'v1', kind: 'Endpoints', metadata,
    subsets: ips.length ? [{ addresses: [...ips].sort().map((ip) => ({ ip })), ports: endpointPorts(securePort) }] : [],
  };
}

/** endpointSliceFromEndpoints: the slice's addressType, endpoints, ports and labels. */
export function sliceFields(endpoints: ApiObject): { labels: Record<string, string>; fields: ApiObject } {
  const subset = ((endpoints.subsets ?? []) as Subset[])[0];
  const addresses = [...(subset?.addresses ?? []), ...(subset?.notReadyAddresses ?? [])];
  const ipv6 = addresses.length > 0 && addresses.every((a) => a.ip.includes(':'));
  const ready = (list: Array<{ ip: string }> | undefined, isReady: boolean) => (list ?? []).map((a) => ({ addresses: [a.ip], conditions: { ready: isReady } }));
  const fields: ApiObject = {
    addressType: ipv6 ? 'IPv6' : 'IPv4',
    endpoints: [...ready(subset?.addresses, true), ...ready(subset?.notReadyAddresses, false)],
  };
  if (subset?.ports?.length) fields.ports = subset.ports.map((p) => ({ name: p.name, protocol: p.protocol, port: p.port }));
  return { labels: { [SERVICE_NAME_LABEL]: KUBERNETES }, fields };
}

/** The Service `default/kubernetes` on `clusterIP`. */
export function kubernetesService(clusterIP: string, securePort: number): ApiObject {
  return {
    apiVersion: 'v1', kind: 'Service',
    metadata: { name: KUBERNETES, namespace: DEFAULT_NAMESPACE, labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: securePort }],
      clusterIP, clusterIPs: [clusterIP], sessionAffinity: 'None', type: 'ClusterIP',
    },
  };
}
