/**
 * The Service's Table as kubectl prints it (pkg/printers/internalversion printService):
 * NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE, and SELECTOR for `-o wide`. PORT(S) reads
 * `80/TCP` or `80:30080/TCP`; EXTERNAL-IP is the external IPs, a LoadBalancer's ingress (or
 * `<pending>`), an ExternalName's name, else `<none>`. Tables are made wide on the server.
 */
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { formatLabels } from '../../../meta/label-format';
import { loadBalancerAddresses } from '../../load-balancer-status';
import type { ApiObject } from '../../../scheme/types';
import { ServiceSpec, ServiceStatus, portsOf, specOf, statusOf } from './spec';

/** makePortString. */
export function portString(spec: ServiceSpec): string {
  return portsOf(spec).map((p) => (p.nodePort && p.nodePort > 0 ? `${p.port}:${p.nodePort}/${p.protocol}` : `${p.port}/${p.protocol}`)).join(',');
}

/** getServiceExternalIP. */
export function externalIpString(spec: ServiceSpec, status: ServiceStatus): string {
  const external = spec.externalIPs ?? [];
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerAddresses(status.loadBalancer?.ingress);
      if (external.length) return [...(lb ? lb.split(',') : []), ...external].join(',');
      return lb || '<pending>';
    }
    case 'ExternalName':
      return spec.externalName ?? '';
    default:
      return '<unknown>';
  }
}

export const serviceTable: TableColumns = {
  columns: [
    nameColumn,
    column('Type', 'string', 'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types'),
    column('Cluster-IP', 'string', 'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies'),
    column('External-IP', 'string', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.'),
    column('Port(s)', 'string', 'The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies'),
    ageColumn,
    column('Selector', 'string', 'Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/', { priority: 1 }),
  ],
  cells: (obj, now) => {
    const o = obj as ApiObject;
    const spec = specOf({ ...o, spec: o.spec && typeof o.spec === 'object' ? o.spec : {} });
    const status = statusOf(o);
    return [
      obj.metadata?.name ?? '', spec.type ?? '', spec.clusterIPs?.[0] ?? '<none>', externalIpString(spec, status),
      portString(spec) || '<none>', translateTimestampSince(obj.metadata?.creationTimestamp, now), formatLabels(spec.selector ?? {}),
    ];
  },
};
