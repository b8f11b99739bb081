/**
 * The Table of a custom-resource version (Kubernetes' CRD table convertor): `Name`, then the
 * version's `additionalPrinterColumns`, or `Age` (a `date` column at `.metadata.creationTimestamp`)
 * when there are none. A cell is the first value the column's JSONPath selects, typed as the
 * column says: `string` cells print like kubectl's JSONPath (maps and lists as JSON), `integer`,
 * `number` and `boolean` cells keep JSON values of that type, `date` cells are ages ("5m");
 * anything missing or of another type is null.
 */
import { TableColumnDefinition, TableColumns, ageColumn, column, nameColumn } from '../../meta/table';
import { humanDuration } from '../../meta/human-duration';
import { CrdColumn } from '../../registry/apiextensions/custom-resource-definitions/view';
import { JsonPath, findResults, parseJsonPath } from './jsonpath';
import { goMarshal, goSprint } from './go-print';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const GO_ZERO_TIME = Date.parse('0001-01-01T00:00:00Z');

/** The column definitions Kubernetes serves for a version with these printer columns (Age when none). */
export function crColumnsOrDefault(columns: CrdColumn[] | undefined): CrdColumn[] {
  if (columns?.length) return columns;
  return [{ name: 'Age', type: 'date', description: ageColumn.description, jsonPath: '.metadata.creationTimestamp' }];
}

/**
 * The TableColumns of a version. A column whose path does not parse ends the list there, as
 * Kubernetes serves the columns it managed to build before the bad one.
 */
export function crTableColumns(printerColumns: CrdColumn[] | undefined): TableColumns {
  const columns: TableColumnDefinition[] = [nameColumn];
  const paths: JsonPath[] = [];
  for (const col of crColumnsOrDefault(printerColumns)) {
    let path: JsonPath;
    try {
      path = parseJsonPath(String(col.jsonPath ?? ''));
    } catch {
      break;
    }
    paths.push(path);
    const jsonPath = String(col.jsonPath ?? '');
    columns.push(column(String(col.name ?? ''), String(col.type ?? ''),
      col.description ? String(col.description) : `Custom resource definition column (in JSONPath format): ${jsonPath}`,
      { format: typeof col.format === 'string' ? col.format : '', priority: typeof col.priority === 'number' ? col.priority : 0 }));
  }
  return {
    columns,
    cells: (obj, now) => [obj.metadata?.name ?? '', ...paths.map((p, i) => cellOf(p, columns[i + 1].type, obj, now))],
  };
}

function cellOf(path: JsonPath, type: string, obj: unknown, now: Date): unknown {
  let results: unknown[];
  try {
    results = findResults(path, obj);
  } catch {
    return null;
  }
  if (!results.length) return null;
  const value = results[0];
  if (type === 'string') return stringCell(value);
  return typedCell(type, value, now);
}

// kubectl's JSONPath printer: maps and lists as JSON, null as "<no value>", scalars as fmt.Sprint.
function stringCell(value: unknown): string {
  if (value === null || value === undefined) return '<no value>';
  if (typeof value === 'object') return goMarshal(value);
  return goSprint(value);
}

function typedCell(type: string, value: unknown, now: Date): unknown {
  switch (type) {
    case 'integer': return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number': return typeof value === 'number' ? value : null;
    case 'boolean': return typeof value === 'boolean' ? value : null;
    case 'date': return typeof value === 'string' ? dateCell(value, now) : null;
    default: return null;
  }
}

// metav1.Time's query-parameter parsing: empty or "null" is the zero time, else RFC 3339.
function dateCell(value: string, now: Date): string {
  if (value === '' || value === 'null') return '<unknown>';
  const t = RFC3339.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(t)) return '<invalid>';
  if (t === GO_ZERO_TIME) return '<unknown>';
  return humanDuration(now.getTime() - t);
}
