/**
 * The Service network's flags, as kube-apiserver names and checks them: the cluster-IP ranges
 * (one per family; dual stack as `v4,v6`) and the node-port range. Parsed by lib/server/flags.ts;
 * the ranges reach the Service kind through ServerConfig (network.ts reads them).
 */
import { flag, text, type FlagDef } from '../../../flag-definitions';
import { DEFAULT_NODE_PORT_RANGE, DEFAULT_SERVICE_CIDR, parsePortRange, parseServiceCidrs } from './network';

const cidrsProblem = (v: string) => { const r = parseServiceCidrs(v); return 'problem' in r ? r.problem : undefined; };
const portsProblem = (v: string) => {
  const r = parsePortRange(v);
  if ('problem' in r) return r.problem;
  return r.size === 0 ? 'must not be empty' : undefined;
};

export const SERVICE_FLAGS: readonly FlagDef[] = [
  flag('service-cluster-ip-range', 'serviceClusterIpRange', text, DEFAULT_SERVICE_CIDR,
    'A CIDR notation IP range from which to assign service cluster IPs, or two of different IP families separated '
    + 'by a comma for dual-stack services (e.g. 10.0.0.0/24,fd00::/108). At most 2^20 addresses each. Allocations '
    + 'are kept in etcd under <etcd-prefix>/ranges/serviceips and /ranges/secondaryserviceips.', { check: cidrsProblem }),
  flag('service-node-port-range', 'serviceNodePortRange', text, DEFAULT_NODE_PORT_RANGE,
    'A port range to reserve for services with NodePort visibility (e.g. 30000-32767, or 30000+2767). '
    + 'Allocations are kept in etcd under <etcd-prefix>/ranges/servicenodeports.', { check: portsProblem }),
];
