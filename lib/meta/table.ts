/**
 * meta/v1 Table, the server-side printing kubectl asks for (`Accept: application/json;as=Table;
 * v=v1;g=meta.k8s.io`): column definitions and one row of cells per object. Field names, their
 * order and which are always present follow Kubernetes' Go types, since clients decode them.
 */

export interface TableColumnDefinition {
  /** Human-readable column name; kubectl prints it upper-cased (`Name` -> NAME). */
  name: string;
  /** OpenAPI type of the cells: `string`, `integer`, `number`, `boolean`, `date`. */
  type: string;
  /** OpenAPI format refining `type`; `name` marks the column holding the object's name. */
  format: string;
  description: string;
  /** 0 = shown by default; higher only with `-o wide`. */
  priority: number;
}

export interface TableRow {
  /** One cell per column definition, in order. */
  cells: unknown[];
  /** The row's object per `includeObject`: PartialObjectMetadata, the object, or null (None). */
  object: unknown;
}

export interface Table {
  kind: 'Table';
  /** `<meta group>/<v1|v1beta1>`, echoing the group and version the client asked for. */
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  /** null after the first Table of a watch: headers are sent once per stream. */
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

/** A kind's own columns (as kube's printers define them): definitions and the cells of one object. */
export interface TableColumns {
  columns: TableColumnDefinition[];
  /** The cells of one object, one per column; `now` dates the AGE cells. Must not mutate `obj`. */
  cells(obj: { metadata?: { name?: string; creationTimestamp?: string }; [key: string]: unknown }, now: Date): unknown[];
}

const NAME_DESCRIPTION = 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.';
const CREATION_DESCRIPTION = 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists.';

/** A column definition with kube's defaults for the fields a printer leaves unset. */
export function column(name: string, type: string, description: string, extra: { format?: string; priority?: number } = {}): TableColumnDefinition {
  return { name, type, format: extra.format ?? '', description, priority: extra.priority ?? 0 };
}

/** The `Name` column every kube printer starts with. */
export const nameColumn = column('Name', 'string', NAME_DESCRIPTION, { format: 'name' });
/** The `Age` column printers end with: a string cell such as "5m" (translateTimestampSince). */
export const ageColumn = column('Age', 'string', CREATION_DESCRIPTION);
/** The default table's `Created At` column: an RFC 3339 cell. */
export const createdAtColumn = column('Created At', 'date', CREATION_DESCRIPTION);
