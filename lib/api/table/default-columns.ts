/**
 * The table of kinds that bring no columns of their own (Kubernetes' default TableConvertor):
 * `Name` (string, format name) and `Created At` (date, an RFC 3339 UTC cell).
 */
import { TableColumns, createdAtColumn, nameColumn } from '../../meta/table';

/** Go's zero time, which kube prints for an object without a creationTimestamp. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

function rfc3339(timestamp: string | undefined): string {
  const t = timestamp ? Date.parse(timestamp) : NaN;
  if (Number.isNaN(t)) return ZERO_TIME;
  return new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export const defaultTableColumns: TableColumns = {
  columns: [nameColumn, createdAtColumn],
  cells: (obj) => [obj.metadata?.name ?? '', rfc3339(obj.metadata?.creationTimestamp)],
};
