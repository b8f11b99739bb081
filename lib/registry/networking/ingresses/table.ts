/**
 * kubectl's Ingress table (printIngress): NAME CLASS HOSTS ADDRESS PORTS AGE. CLASS is `<none>`
 * without spec.ingressClassName; HOSTS the first three rule hosts (`*` when none, then
 * `+ N more...`); ADDRESS the load-balancer IPs or hostnames, sorted and deduplicated (served
 * tables are wide: never shortened); PORTS `80`, or `80, 443` with TLS.
 */
import { ApiObject } from '../../../scheme/types';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { loadBalancerAddresses } from '../../load-balancer-status';

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x) => x && typeof x === 'object') : []);

/** formatHosts. */
export function formatHosts(rules: Json[]): string {
  const max = 3;
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === max) more = true;
    if (!more && typeof rule.host === 'string' && rule.host) hosts.push(rule.host);
  }
  if (!hosts.length) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - max} more...` : hosts.join(',');
}

export const ingressTable: TableColumns = {
  columns: [
    nameColumn,
    column('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
    column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    ageColumn,
  ],
  cells: (obj, now) => {
    const o = obj as ApiObject;
    const spec = (o.spec ?? {}) as Json;
    const lb = (((o.status ?? {}) as Json).loadBalancer ?? {}) as Json;
    return [
      o.metadata?.name ?? '', typeof spec.ingressClassName === 'string' ? spec.ingressClassName : '<none>',
      formatHosts(list(spec.rules)), loadBalancerAddresses(list(lb.ingress)), list(spec.tls).length ? '80, 443' : '80',
      translateTimestampSince(o.metadata?.creationTimestamp, now),
    ];
  },
};
