/**
 * A JSON list body made from its items' bytes (see scheme/storage-codec joinJson). Small bodies
 * are one buffer; a big one (a list of thousands of objects) is streamed in chunks of about
 * CHUNK_BYTES, with its Content-Length known up front: the first chunk is on the wire (and being
 * encrypted, sent and read) while the next is assembled, and the event loop is never held for the
 * whole list.
 */
import { Readable } from 'node:stream';
import { joinJson, ServedJson } from '../scheme/storage-codec';

const CHUNK_BYTES = 512 * 1024;

export interface JsonListBody {
  /** Bytes in all. */
  length: number;
  /** The whole body in one buffer, or a stream of it. */
  body: Buffer | Readable;
}

export function jsonListBody(head: string, items: ReadonlyArray<Buffer | ServedJson>, tail: string): JsonListBody {
  let length = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(0, items.length - 1);
  for (const item of items) length += item.length;
  if (length <= 2 * CHUNK_BYTES) return { length, body: joinJson(head, items, tail) };
  return { length, body: Readable.from(chunks(head, items, tail), { objectMode: false, highWaterMark: CHUNK_BYTES }) };
}

function* chunks(head: string, items: ReadonlyArray<Buffer | ServedJson>, tail: string): Generator<Buffer> {
  let start = 0;
  let first = true;
  while (start < items.length) {
    // Whole items up to about CHUNK_BYTES (at least one), joined with their commas.
    let size = 0;
    let end = start;
    while (end < items.length && (end === start || size + items[end].length < CHUNK_BYTES)) size += items[end++].length + 1;
    const last = end === items.length;
    yield joinJson(first ? head : ',', items.slice(start, end), last ? tail : '');
    first = false;
    start = end;
  }
}
