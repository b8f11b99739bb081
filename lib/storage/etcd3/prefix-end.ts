/**
 * etcd's prefix range end: a range from `prefix` to prefixEnd(prefix) holds exactly the keys
 * that start with `prefix` (clientv3.GetPrefixRangeEnd).
 */
export function prefixEnd(prefix: string): Buffer {
  const b = Buffer.from(prefix);
  for (let i = b.length - 1; i >= 0; i--) {
    if (b[i] < 0xff) {
      const end = Buffer.from(b.subarray(0, i + 1));
      end[i] += 1;
      return end;
    }
  }
  return Buffer.from([0]);
}
