/**
 * The body of a watch stream in the negotiated representation: one JSON document per line (or
 * the protobuf serializer's frames), each event's object as is, as PartialObjectMetadata, or as
 * a one-row Table whose column definitions only the first Table carries (Kubernetes sends
 * headers once per stream). ERROR events carry a Status and are never transformed.
 */
import { ApiObject, ResourceDef } from '../scheme/types';
import { Negotiated, metaApiVersion, registeredProtobufSerializer } from './negotiation';
import { toPartialObjectMetadata } from './partial-metadata';
import { convertToTable } from './table/convert-table';
import { parseTableOptions } from './table/table-options';

export interface WatchEncoder {
  /** The Content-Type of the stream. */
  contentType: string;
  /** One event, ready to write. Not reentrant: a Table watch remembers it sent the headers. */
  encode(event: { type: string; object: unknown }): string | Buffer;
  /**
   * The representation, when the same event always encodes to the same bytes in it (no
   * per-stream state): streams with the same key may share one encoding of an event (undefined:
   * a Table, whose headers go once per stream and whose ages are of the moment).
   */
  shareKey?: string;
}

/** Builds the encoder of one watch stream; throws (before the stream starts) for a bad `includeObject`. */
export function watchEncoder(def: ResourceDef, n: Negotiated, querystring: string): WatchEncoder {
  const tableOptions = n.format === 'table' ? parseTableOptions(new URLSearchParams(querystring)) : undefined;
  let headersSent = false;
  const transform = (object: unknown): unknown => {
    if (n.format === 'partial') return toPartialObjectMetadata(object as ApiObject, metaApiVersion(n));
    if (!tableOptions) return object;
    const table = convertToTable(def, object as ApiObject, { ...tableOptions, apiVersion: metaApiVersion(n), noHeaders: headersSent, now: new Date() });
    headersSent = true;
    return table;
  };
  const shape = (event: { type: string; object: unknown }) =>
    (event.type === 'ERROR' || n.format === n.encoding ? event : { type: event.type, object: transform(event.object) });
  const sharedAs = (contentType: string): string | undefined =>
    (n.format === n.encoding ? contentType : n.format === 'partial' ? `${contentType};as=PartialObjectMetadata;v=${metaApiVersion(n)}` : undefined);

  if (n.encoding === 'protobuf') {
    const protobuf = registeredProtobufSerializer();
    if (!protobuf) throw new Error('protobuf was negotiated without a registered serializer');
    const contentType = `${n.mediaType};stream=watch`;
    return { contentType, encode: (event) => protobuf.encodeWatchEvent(shape(event), n.mediaType), shareKey: sharedAs(contentType) };
  }
  return { contentType: n.mediaType, encode: (event) => `${JSON.stringify(shape(event))}\n`, shareKey: sharedAs(n.mediaType) };
}
