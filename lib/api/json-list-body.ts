/**
 * Writes a JSON list made from its items' bytes (see scheme/storage-codec joinJson). A small
 * body is one buffer handed to Koa. A big one (thousands of objects) is written here in chunks of
 * about CHUNK_BYTES with its Content-Length known up front: a chunk is on the wire (encrypted,
 * sent, read) while the next is assembled, the event loop is never held for the whole list, and
 * the chunk buffers come from a small pool and go back to it once written, so a 14 MB list does
 * not allocate 14 MB of fresh buffers (whose external memory would bring on full collections).
 */
import type { Context } from 'koa';
import { joinJson, ServedJson, writeJoined } from '../scheme/storage-codec';

const CHUNK_BYTES = 512 * 1024;
/** Chunk buffers (1 MiB each) kept for reuse across all lists: at most 8 MiB. */
const POOL_LIMIT = 8;
const pool: Buffer[] = [];

function takeBuffer(size: number): Buffer {
  const b = size <= CHUNK_BYTES * 2 ? pool.pop() : undefined;
  return b ?? Buffer.allocUnsafeSlow(Math.max(size, CHUNK_BYTES * 2));
}

function giveBack(b: Buffer): void {
  if (pool.length < POOL_LIMIT && b.length === CHUNK_BYTES * 2) pool.push(b);
}

/** Answers 200 with the list `head` + items joined by commas + `tail` as `contentType`. */
export async function sendJsonList(ctx: Context, contentType: string, head: string,
  items: ReadonlyArray<Buffer | ServedJson>, tail: string): Promise<void> {
  let length = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(0, items.length - 1);
  for (const item of items) length += item.length;
  ctx.status = 200;
  ctx.type = contentType;
  if (length <= 2 * CHUNK_BYTES) {
    ctx.body = joinJson(head, items, tail);
    return;
  }
  ctx.length = length;
  ctx.respond = false;
  const res = ctx.res;
  let closed = false;
  res.once('close', () => { closed = true; });
  let start = 0;
  while (start < items.length) {
    // Whole items up to about CHUNK_BYTES (at least one), joined with their commas.
    let size = start === 0 ? Buffer.byteLength(head) : 1;
    let end = start;
    while (end < items.length && (end === start || size + items[end].length < CHUNK_BYTES)) size += items[end++].length + 1;
    const last = end === items.length;
    if (last) size += Buffer.byteLength(tail);
    const buf = takeBuffer(size);
    const n = writeJoined(buf, start === 0 ? head : ',', items, start, end, last ? tail : '');
    const more = res.write(buf.subarray(0, n), () => giveBack(buf));
    start = end;
    if (closed) return;
    if (!more && !last) await new Promise<void>((resolve) => { res.once('drain', resolve); res.once('close', resolve); });
    if (closed) return;
  }
  res.end();
}
