/**
 * Converts an object or a list into a meta/v1 Table: the kind's columns (or the default ones),
 * one row per object, the row's `object` per `includeObject`, and the list's resourceVersion,
 * continue and remainingItemCount (an object's resourceVersion for a single row).
 */
import { ApiObject, ResourceDef } from '../../scheme/types';
import { Table, TableRow } from '../../meta/table';
import { isList, listMetadata, toPartialObjectMetadata } from '../partial-metadata';
import { defaultTableColumns } from './default-columns';
import { TableOptions } from './table-options';

export interface ConvertOptions extends TableOptions {
  /** The Table's apiVersion, e.g. `meta.k8s.io/v1`; also that of PartialObjectMetadata rows. */
  apiVersion: string;
  /** Leave out the column definitions (`null`), as every Table of a watch after the first. */
  noHeaders?: boolean;
  /** The time AGE cells are computed against. */
  now: Date;
}

/** The Table of `obj` (one row) or of a list's items (a row each, in order). Does not mutate `obj`. */
export function convertToTable(def: ResourceDef, obj: ApiObject, opts: ConvertOptions): Table {
  const columns = def.table ?? defaultTableColumns;
  const items = isList(obj) ? (obj.items as ApiObject[]) : [obj];
  const rows = items.map((item): TableRow => ({ cells: columns.cells(item, opts.now), object: rowObject(item, opts) }));
  const metadata = isList(obj) ? listMetadata(obj) : resourceVersionOf(obj);
  return { kind: 'Table', apiVersion: opts.apiVersion, metadata, columnDefinitions: opts.noHeaders ? null : columns.columns, rows };
}

function rowObject(item: ApiObject, opts: ConvertOptions): unknown {
  switch (opts.includeObject) {
    case 'None': return null;
    case 'Object': return item;
    default: return toPartialObjectMetadata(item, opts.apiVersion);
  }
}

function resourceVersionOf(obj: ApiObject): { resourceVersion?: string } {
  const rv = obj.metadata?.resourceVersion;
  return rv ? { resourceVersion: rv } : {};
}
