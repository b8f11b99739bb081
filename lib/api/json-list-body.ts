/**
 * Writes a JSON list made from its items' bytes (see scheme/storage-codec joinJson). A small
 * body is one buffer handed to Koa. A big one (thousands of objects) is written here in chunks of
 * about CHUNK_BYTES with its Content-Length known up front: a chunk is on the wire (encrypted,
 * sent, read) while the next is assembled, the event loop is never held for the whole list, and
 * the chunk buffers come from a pool and go back to it once written, so a 14 MB list does not
 * allocate 14 MB of fresh buffers (whose external memory would bring on full collections).
 */
import type { Context } from 'koa';
import { joinJson, ServedJson, writeJoined } from '../storage/storage-codec';
import { setContentType } from './response-head';

const CHUNK_BYTES = 512 * 1024;

/**
 * Reusable chunk buffers. Lists in flight each hold one or two, so the pool keeps up to `limit`
 * (64 concurrent 10,000-item lists allocated a fresh 1 MiB buffer per chunk with a limit of 8:
 * 1.8x slower, the server busy collecting garbage). Once no buffer has been taken for `idleMs`,
 * it keeps no more than `idleLimit`, so a burst of big lists does not hold its memory for good.
 */
export class BufferPool {
  private readonly free: Buffer[] = [];
  private lastTaken = 0;
  private trimTimer?: NodeJS.Timeout;

  constructor(readonly bufferSize: number, readonly limit: number, readonly idleLimit: number, readonly idleMs: number) {}

  /** Buffers waiting for reuse. */
  get size(): number {
    return this.free.length;
  }

  /** A buffer of at least `size` bytes: a pooled one when `size` fits, else a new one. */
  take(size: number): Buffer {
    this.lastTaken = performance.now();
    const b = size <= this.bufferSize ? this.free.pop() : undefined;
    return b ?? Buffer.allocUnsafeSlow(Math.max(size, this.bufferSize));
  }

  /** Returns a buffer from take() once nothing reads it any more. */
  giveBack(b: Buffer): void {
    if (b.length !== this.bufferSize || this.free.length >= this.limit) return;
    this.free.push(b);
    if (this.free.length > this.idleLimit) this.scheduleTrim(this.idleMs);
  }

  private scheduleTrim(delayMs: number): void {
    if (this.trimTimer) return;
    this.trimTimer = setTimeout(() => {
      this.trimTimer = undefined;
      const idleFor = performance.now() - this.lastTaken;
      if (idleFor < this.idleMs) {
        this.scheduleTrim(this.idleMs - idleFor);
        return;
      }
      if (this.free.length > this.idleLimit) this.free.length = this.idleLimit;
    }, delayMs);
    this.trimTimer.unref();
  }
}

/** Buffers of 2 chunks (an item may overflow a chunk); up to 128 MiB while busy, 8 MiB after 10 s idle. */
const pool = new BufferPool(CHUNK_BYTES * 2, 128, 8, 10_000);

/** Answers 200 with the list `head` + items joined by commas + `tail` as `contentType`. */
export async function sendJsonList(ctx: Context, contentType: string, head: string,
  items: ReadonlyArray<Buffer | ServedJson>, tail: string): Promise<void> {
  let length = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(0, items.length - 1);
  for (const item of items) length += item.length;
  ctx.status = 200;
  setContentType(ctx, contentType);
  if (length <= 2 * CHUNK_BYTES) {
    ctx.body = joinJson(head, items, tail);
    return;
  }
  // The request timeout answered already (request-timeout.ts): nothing more is written.
  if (ctx.state.timedOut === true || ctx.res.writableEnded) return;
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
    const buf = pool.take(size);
    const n = writeJoined(buf, start === 0 ? head : ',', items, start, end, last ? tail : '');
    const more = res.write(buf.subarray(0, n), () => pool.giveBack(buf));
    start = end;
    if (closed) return;
    if (!more && !last) await drainedOrClosed(res);
    if (closed) return;
  }
  res.end();
}

/**
 * Resolves on the response's 'drain' or 'close', whichever comes first, and removes the other
 * listener: a long body waits many times, and each wait left a 'close' listener behind (past ten,
 * Node warned of a leak on stderr; the fuzz suite's lists of megabyte objects showed it).
 */
export function drainedOrClosed(res: NodeJS.WritableStream): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => { res.removeListener('drain', done); res.removeListener('close', done); resolve(); };
    res.once('drain', done);
    res.once('close', done);
  });
}
