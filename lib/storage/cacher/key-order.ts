/**
 * etcd orders keys by their bytes (UTF-8). JavaScript's `<` compares UTF-16 code units, which
 * disagrees for characters above U+FFFF against U+E000..U+FFFF; this comparator agrees with etcd.
 */

/** Maps a code unit >= 0xD800 so that surrogates (code points above U+FFFF) sort last, as in UTF-8. */
const rank = (c: number): number => (c >= 0xe000 ? c - 0x800 : c + 0x2000);

/** Negative, zero or positive as `a` sorts before, equal to or after `b` in etcd's key order. */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return x >= 0xd800 && y >= 0xd800 ? rank(x) - rank(y) : x - y;
  }
  return a.length - b.length;
}

/** Code units where JavaScript's order and etcd's may part (see compareKeys). */
const HIGH_UNITS = /[\ud800-\uffff]/;

/**
 * Whether JavaScript's own `<` orders `key` against any other key as etcd does: the orders part
 * only where both strings have code units >= 0xD800 at their first difference, so a key with
 * none (nearly every key) can be compared natively, whatever the other key holds.
 */
export function comparesNatively(key: string): boolean {
  return !HIGH_UNITS.test(key);
}

/** The first index in sorted `keys` whose key is not before `key` (keys.length when none). */
export function lowerBound(keys: readonly string[], key: string, from = 0): number {
  let lo = from;
  let hi = keys.length;
  if (comparesNatively(key)) {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeys(keys[mid], key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The first index at or after `from` whose key does not start with `prefix`, given that
 * keys[from] is not before `prefix`: the keys with a prefix are the smallest keys not before it.
 */
export function prefixEndIndex(keys: readonly string[], prefix: string, from: number): number {
  let lo = from;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid].startsWith(prefix)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
