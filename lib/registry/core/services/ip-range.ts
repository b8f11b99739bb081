/**
 * IP addresses and CIDRs as Go's net and k8s.io/utils/net read and print them, for the
 * Service ClusterIP allocator and the validation of Service addresses: addresses are BigInts,
 * IPv4-mapped IPv6 addresses count as IPv4 (as Go's To4), IPv6 prints in RFC 5952 form.
 */

export type IPFamily = 'IPv4' | 'IPv6';

export interface ParsedIp { family: IPFamily; value: bigint }

export interface Cidr {
  family: IPFamily;
  /** The network address (host bits cleared). */
  network: bigint;
  prefix: number;
  /** 32 or 128. */
  bits: number;
  /** Go's IPNet.String(): `10.0.0.0/24`, `fd00::/108`. */
  text: string;
}

function parseV4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    // ParseIPSloppy accepts leading zeros (read as decimal), as Go before 1.17.
    if (!/^[0-9]{1,3}$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

function parseV6(s: string): bigint | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  let tail4: bigint | undefined;
  let text = s;
  const lastColon = s.lastIndexOf(':');
  if (s.includes('.')) {
    tail4 = parseV4(s.slice(lastColon + 1));
    if (tail4 === undefined) return undefined;
    text = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  let v = 0n;
  for (const g of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    v = (v << 16n) | BigInt(parseInt(g, 16));
  }
  if (tail4 !== undefined) v = (v & ~0xffffffffn) | tail4;
  return v;
}

/** netutils.ParseIPSloppy: an IPv4 or IPv6 address, or undefined. */
export function parseIp(s: string): ParsedIp | undefined {
  if (typeof s !== 'string' || s === '') return undefined;
  if (!s.includes(':')) {
    const v = parseV4(s);
    return v === undefined ? undefined : { family: 'IPv4', value: v };
  }
  const v = parseV6(s);
  if (v === undefined) return undefined;
  if ((v >> 32n) === 0xffffn) return { family: 'IPv4', value: v & 0xffffffffn };
  return { family: 'IPv6', value: v };
}

/** Go's net.IP.String(). */
export function formatIp(value: bigint, family: IPFamily): string {
  if (family === 'IPv4') return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
  if ((value >> 32n) === 0xffffn) return formatIp(value & 0xffffffffn, 'IPv4');
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((value >> BigInt(i * 16)) & 0xffffn));
  // The longest run of two or more zero groups becomes '::' (the first one on a tie).
  let bestStart = -1; let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) { bestStart = i; bestLen = j - i; }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** netutils.ParseCIDRSloppy: the network of `s` (`10.0.0.7/24` is 10.0.0.0/24), or undefined. */
export function parseCidr(s: string): Cidr | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIp(s.slice(0, slash));
  const len = s.slice(slash + 1);
  if (!ip || !/^[0-9]{1,3}$/.test(len)) return undefined;
  const bits = ip.family === 'IPv4' ? 32 : 128;
  const prefix = Number(len);
  if (prefix > bits) return undefined;
  const { family, value } = ip;
  const hostBits = BigInt(bits - prefix);
  const network = (value >> hostBits) << hostBits;
  const cidr: Cidr = { family, network, prefix, bits, text: '' };
  cidr.text = `${formatIp(network, bits === 32 ? 'IPv4' : 'IPv6')}/${prefix}`;
  return cidr;
}

/** Whether `ip` lies in `cidr` (same family). */
export function cidrContains(cidr: Cidr, ip: ParsedIp): boolean {
  if (ip.family !== cidr.family) return false;
  const hostBits = BigInt(cidr.bits - cidr.prefix);
  return (ip.value >> hostBits) === (cidr.network >> hostBits);
}

/** netutils.RangeSize: addresses in the CIDR; 0 for a /0 or /1 (IPv4) or /127, /128 ... as Go has it. */
export function rangeSize(cidr: Cidr): number {
  const host = cidr.bits - cidr.prefix;
  if ((cidr.bits === 32 && host >= 31) || (cidr.bits === 128 && host >= 127)) return 0;
  if (host >= 63) return Number.MAX_SAFE_INTEGER;
  return 2 ** host;
}

/** The IP family of an address string, or undefined when it is not one. */
export function familyOf(ip: string): IPFamily | undefined {
  return parseIp(ip)?.family;
}
