/**
 * kubectl's NAME ADDRESSTYPE PORTS ENDPOINTS AGE table of EndpointSlices (printers.go
 * printEndpointSlice): at most three ports (the number, else the name, else `*`) and three
 * addresses, then `+ N more...`; `<unset>` when there are none.
 */
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { ApiObject } from '../../../scheme/types';
import { ADDRESS_TYPE_DESCRIPTION, ENDPOINTS_DESCRIPTION, PORTS_DESCRIPTION } from './schema';
import { endpointsOf } from './validation';

const MAX = 3;

/** listWithMoreString. */
function listWithMore(list: string[], count: number): string {
  const ret = list.join(',');
  if (count > MAX) return `${ret} + ${count - MAX} more...`;
  return ret === '' ? '<unset>' : ret;
}

/** formatDiscoveryPorts. */
export function formatDiscoveryPorts(obj: ApiObject): string {
  const ports = Array.isArray(obj.ports) ? obj.ports as Array<{ port?: number | null; name?: string | null }> : [];
  const list = ports.slice(0, MAX).map((p) => (p?.port !== undefined && p?.port !== null ? String(p.port) : p?.name !== undefined && p?.name !== null ? p.name : '*'));
  return listWithMore(list, ports.length);
}

/** formatDiscoveryEndpoints: the addresses of every endpoint, in order. */
export function formatDiscoveryEndpoints(obj: ApiObject): string {
  const addresses = endpointsOf(obj).flatMap((ep) => ep?.addresses ?? []);
  return listWithMore(addresses.slice(0, MAX), addresses.length);
}

export const endpointSliceTable: TableColumns = {
  columns: [
    nameColumn,
    column('AddressType', 'string', ADDRESS_TYPE_DESCRIPTION),
    column('Ports', 'string', PORTS_DESCRIPTION),
    column('Endpoints', 'string', ENDPOINTS_DESCRIPTION),
    ageColumn,
  ],
  cells: (obj, now) => [
    obj.metadata?.name ?? '', String((obj as ApiObject).addressType ?? ''), formatDiscoveryPorts(obj as ApiObject),
    formatDiscoveryEndpoints(obj as ApiObject), translateTimestampSince(obj.metadata?.creationTimestamp, now),
  ],
};
