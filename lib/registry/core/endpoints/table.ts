/**
 * kubectl's NAME ENDPOINTS AGE table of Endpoints (printers.go printEndpoints / formatEndpoints):
 * the first three `ip:port` pairs (a bare ip for a subset without ports), then `+ N more...`;
 * `<none>` when there are no subsets.
 */
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { ApiObject } from '../../../scheme/types';
import { SUBSETS_DESCRIPTION } from './schema';
import { subsetsOf } from './validation';

const MAX = 3;

/** net.JoinHostPort: an IPv6 address in brackets. */
const joinHostPort = (ip: string, port: number) => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);

/** formatEndpoints(endpoints, nil). */
export function formatEndpoints(obj: ApiObject): string {
  const subsets = subsetsOf(obj);
  if (!subsets.length) return '<none>';
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const ss of subsets) {
    const addresses = ss?.addresses ?? [];
    const ports = ss?.ports ?? [];
    if (!ports.length) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === MAX) { more = true; break; }
        list.push(a?.ip ?? '');
      }
      continue;
    }
    for (const p of ports) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === MAX) { more = true; break; }
        list.push(joinHostPort(a?.ip ?? '', p?.port ?? 0));
      }
    }
  }
  const ret = list.join(',');
  return more ? `${ret} + ${count - MAX} more...` : ret;
}

export const endpointsTable: TableColumns = {
  columns: [nameColumn, column('Endpoints', 'string', SUBSETS_DESCRIPTION), ageColumn],
  cells: (obj, now) => [obj.metadata?.name ?? '', formatEndpoints(obj as ApiObject), translateTimestampSince(obj.metadata?.creationTimestamp, now)],
};
