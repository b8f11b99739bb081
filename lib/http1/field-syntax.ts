/**
 * The character rules of HTTP field lines (RFC 9110 5.1, 5.5, 5.6.2), shared by request heads
 * (request-head.ts) and trailer sections (chunked-body.ts).
 */

/** tchar (RFC 9110 5.6.2), by character code. */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") TCHAR[c.charCodeAt(0)] = 1;

/** Whether `s` is a token (1*tchar); `from`/`to` bound the part of `s` looked at. */
export function isToken(s: string, from = 0, to = s.length): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c > 127 || TCHAR[c] === 0) return false;
  }
  return true;
}

/** A field value may hold visible ASCII, obs-text, spaces and tabs (RFC 9110 5.5): no CR, LF, NUL, other controls or DEL. */
export const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** The offset of the first character at or after `from` (and before `to`) that is not SP or HTAB. */
export function skipOws(s: string, from: number, to: number): number {
  while (from < to) {
    const c = s.charCodeAt(from);
    if (c !== 32 && c !== 9) break;
    from++;
  }
  return from;
}

/** The offset just after the last character before `to` (and at or after `from`) that is not SP or HTAB. */
export function trimOwsEnd(s: string, from: number, to: number): number {
  while (to > from) {
    const c = s.charCodeAt(to - 1);
    if (c !== 32 && c !== 9) break;
    to--;
  }
  return to;
}
