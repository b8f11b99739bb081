/**
 * JSON.stringify's bytes of a large document and their SHA-512 (a ServedDocument, as
 * ./documents.ts servedDocument makes it), made in steps (./time-slice.ts) instead of one call:
 * the objects down to `depth` levels (the document, then its `paths` and `definitions`) are
 * written entry by entry, what is below them with JSON.stringify. The bytes are the same as
 * JSON.stringify's: keys in their order, entries whose value is undefined or a function left
 * out, no spaces.
 */
import { createHash } from 'node:crypto';

/** Text gathered before it is made bytes and hashed. */
const CHUNK_CHARS = 1 << 16;

/** The steps of serializing `doc`; the last one returns the bytes and their hash. */
export function* servedSteps(doc: unknown, depth = 2): Generator<void, { body: Buffer; hash: string }> {
  const hash = createHash('sha512');
  const parts: Buffer[] = [];
  let text = '';
  const flush = () => {
    const b = Buffer.from(text);
    hash.update(b);
    parts.push(b);
    text = '';
  };
  function* write(value: unknown, level: number): Generator<void> {
    if (level === 0 || value === null || typeof value !== 'object' || Array.isArray(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      text += JSON.stringify(value);
      if (text.length >= CHUNK_CHARS) flush();
      yield;
      return;
    }
    text += '{';
    let first = true;
    for (const [key, v] of Object.entries(value)) {
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      text += `${first ? '' : ','}${JSON.stringify(key)}:`;
      first = false;
      yield* write(v, level - 1);
    }
    text += '}';
  }
  yield* write(doc, depth);
  flush();
  return { body: Buffer.concat(parts), hash: hash.digest('hex').toUpperCase() };
}
