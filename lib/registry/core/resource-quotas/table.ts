/**
 * kubectl's NAME AGE REQUEST LIMIT table of ResourceQuotas (printResourceQuota): for every
 * resource of status.hard, sorted by name, "name: used/hard"; the `limits.*` ones in LIMIT, the
 * others in REQUEST, each list joined with ", ". A resource not yet in status.used prints 0.
 */
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { formatQuantity, tryParseQuantity } from '../../../meta/quantity';
import { ApiObject } from '../../../scheme/types';
import { statusOf } from './validation';

/** Quantity.String() of a stored value ("0" for an absent one). */
const shown = (raw: unknown): string => {
  const q = tryParseQuantity(raw);
  return q ? formatQuantity(q) : '0';
};

/** The REQUEST and LIMIT cells of a quota. */
export function quotaCells(obj: ApiObject): [string, string] {
  const { hard, used } = statusOf(obj);
  const request: string[] = [];
  const limit: string[] = [];
  for (const name of Object.keys(hard ?? {}).sort()) {
    const pieces = name.split('.');
    const cell = `${name}: ${shown((used ?? {})[name])}/${shown((hard ?? {})[name])}`;
    (pieces.length > 1 && pieces[0] === 'limits' ? limit : request).push(cell);
  }
  return [request.join(', '), limit.join(', ')];
}

export const resourceQuotaTable: TableColumns = {
  columns: [
    nameColumn,
    ageColumn,
    column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    column('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container can use independent of contention on the node.'),
  ],
  cells: (obj, now) => [obj.metadata?.name ?? '', translateTimestampSince(obj.metadata?.creationTimestamp, now), ...quotaCells(obj as ApiObject)],
};
