/**
 * The representation of a read (GET, list, each watch event): the object or list itself, or
 * the Table / PartialObjectMetadata(List) the client negotiated. Writes answer the object itself
 * whatever was negotiated, so they do not come here.
 */
import { ApiObject, ResourceDef } from '../scheme/types';
import { Negotiated, metaApiVersion } from './negotiation';
import { asPartialObjectMetadata, asPartialObjectMetadataList } from './partial-metadata';
import { convertToTable } from './table/convert-table';
import { parseTableOptions } from './table/table-options';

/**
 * `obj` (an object of `def`'s kind or its list) as `n` asks. Throws 400 for a bad
 * `includeObject` (Table only) and 406 for PartialObjectMetadata of a list or
 * PartialObjectMetadataList of one object. Does not mutate `obj`.
 */
export function represent(def: ResourceDef, obj: ApiObject, n: Negotiated, querystring: string, now = new Date()): unknown {
  if (n.format === 'table') {
    const options = parseTableOptions(new URLSearchParams(querystring));
    return convertToTable(def, obj, { ...options, apiVersion: metaApiVersion(n), now });
  }
  if (n.format === 'partial') {
    return n.as === 'PartialObjectMetadataList' ? asPartialObjectMetadataList(obj, metaApiVersion(n)) : asPartialObjectMetadata(obj, metaApiVersion(n));
  }
  return obj;
}
