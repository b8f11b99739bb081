/**
 * Go's net/netip parsing and predicates, which Kubernetes' IP and CIDR libraries use: ParseAddr
 * (strict: no leading zeros in IPv4 octets, zones parsed so the library can refuse them) and
 * ParsePrefix with their error texts, the canonical String() (RFC 5952 for IPv6), Masked, Contains,
 * and the IsLoopback / IsGlobalUnicast / ... classifications.
 */

export interface Addr {
  /** 4 or 16 bytes. */
  bytes: number[];
  zone: string;
}

export class NetipError extends Error {}

function addrError(input: string, msg: string, at?: string): NetipError {
  return new NetipError(`ParseAddr(${JSON.stringify(input)}): ${msg}${at !== undefined && at !== '' ? ` (at ${JSON.stringify(at)})` : ''}`);
}

function parseIPv4Fields(input: string, off: number, end: number): number[] {
  const s = input.slice(off, end);
  const fields: number[] = [];
  let val = 0;
  let digLen = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c >= '0' && c <= '9') {
      if (digLen === 1 && val === 0) throw addrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c.charCodeAt(0) - 48);
      digLen++;
      if (val > 255) throw addrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') throw addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (fields.length === 3) throw addrError(input, 'IPv4 address too long');
      fields.push(val);
      val = 0;
      digLen = 0;
    } else {
      throw addrError(input, 'unexpected character', s.slice(i));
    }
  }
  if (fields.length < 3) throw addrError(input, 'IPv4 address too short');
  fields.push(val);
  return fields;
}

function parseIPv6(input: string): Addr {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') throw addrError(input, 'zone must be a non-empty string');
  }
  const ip = new Array<number>(16).fill(0);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return { bytes: ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const d = parseInt(s[off], 16);
      if (Number.isNaN(d) || !/[0-9a-fA-F]/.test(s[off])) break;
      acc = acc * 16 + d;
      if (off > 3) throw addrError(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) throw addrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw addrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const end = input.length - (zone.length > 0 ? zone.length + 1 : 0);
      const f = parseIPv4Fields(input, end - s.length, end);
      ip.splice(i, 4, ...f);
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ':') throw addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) throw addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j];
    for (let j = ellipsis; j < ellipsis + n; j++) ip[j] = 0;
  } else if (ellipsis >= 0) {
    throw addrError(input, 'the :: must expand to at least one field of zeros');
  }
  return { bytes: ip, zone };
}

/** netip.ParseAddr. */
export function parseAddr(s: string): Addr {
  for (const c of s) {
    if (c === '.') return { bytes: parseIPv4Fields(s, 0, s.length), zone: '' };
    if (c === ':') return parseIPv6(s);
    if (c === '%') throw addrError(s, 'missing IPv6 address');
  }
  throw addrError(s, 'unable to parse IP');
}

export const is4 = (a: Addr): boolean => a.bytes.length === 4;
export const is4In6 = (a: Addr): boolean => a.bytes.length === 16 && a.bytes.slice(0, 10).every((b) => b === 0) && a.bytes[10] === 0xff && a.bytes[11] === 0xff;

/** Addr.String(): dotted IPv4, RFC 5952 IPv6 (the longest run of two or more zero groups as ::). */
export function addrString(a: Addr): string {
  if (is4(a)) return a.bytes.join('.');
  if (is4In6(a)) return `::ffff:${a.bytes.slice(12).join('.')}${a.zone ? '%' + a.zone : ''}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((a.bytes[i] << 8) | a.bytes[i + 1]);
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) { bestStart = i; bestLen = j - i; }
    i = j;
  }
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === bestStart) { out += '::'; i += bestLen - 1; continue; }
    if (out !== '' && !out.endsWith(':')) out += ':';
    out += groups[i].toString(16);
  }
  return out + (a.zone ? '%' + a.zone : '');
}

export const isUnspecified = (a: Addr): boolean => a.bytes.every((b) => b === 0);
export const isLoopback = (a: Addr): boolean => (is4(a) ? a.bytes[0] === 127 : a.bytes.slice(0, 15).every((b) => b === 0) && a.bytes[15] === 1);
export const isMulticast = (a: Addr): boolean => (is4(a) ? (a.bytes[0] & 0xf0) === 0xe0 : a.bytes[0] === 0xff);
export const isLinkLocalMulticast = (a: Addr): boolean =>
  is4(a) ? a.bytes[0] === 224 && a.bytes[1] === 0 && a.bytes[2] === 0 : a.bytes[0] === 0xff && (a.bytes[1] & 0x0f) === 0x02;
export const isLinkLocalUnicast = (a: Addr): boolean =>
  is4(a) ? a.bytes[0] === 169 && a.bytes[1] === 254 : a.bytes[0] === 0xfe && (a.bytes[1] & 0xc0) === 0x80;
export function isGlobalUnicast(a: Addr): boolean {
  if (is4(a) && a.bytes.every((b) => b === 255)) return false;
  return !isUnspecified(a) && !isLoopback(a) && !isMulticast(a) && !isLinkLocalUnicast(a);
}

export interface Prefix {
  addr: Addr;
  bits: number;
}

/** netip.ParsePrefix. */
export function parsePrefix(s: string): Prefix {
  const fail = (msg: string): NetipError => new NetipError(`netip.ParsePrefix(${JSON.stringify(s)}): ${msg}`);
  const i = s.lastIndexOf('/');
  if (i < 0) throw fail("no '/'");
  let addr: Addr;
  try {
    addr = parseAddr(s.slice(0, i));
  } catch (e) {
    throw fail((e as Error).message);
  }
  if (!is4(addr) && addr.zone !== '') throw fail('IPv6 zones cannot be present in a prefix');
  const bitsStr = s.slice(i + 1);
  if ((bitsStr.length > 1 && (bitsStr[0] < '1' || bitsStr[0] > '9')) || !/^[0-9]+$/.test(bitsStr)) throw fail(`bad bits after slash: ${JSON.stringify(bitsStr)}`);
  const bits = Number(bitsStr);
  if (bits > (is4(addr) ? 32 : 128)) throw fail('prefix length out of range');
  return { addr, bits };
}

/** Prefix.Masked(): the host bits cleared. */
export function masked(p: Prefix): Prefix {
  const bytes = p.addr.bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, p.bits - i * 8));
    return b & ((0xff << (8 - keep)) & 0xff);
  });
  return { addr: { bytes, zone: '' }, bits: p.bits };
}

export const prefixString = (p: Prefix): string => `${addrString(p.addr)}/${p.bits}`;
export const sameAddr = (a: Addr, b: Addr): boolean => a.bytes.length === b.bytes.length && a.bytes.every((x, i) => x === b.bytes[i]) && a.zone === b.zone;

/** Prefix.Contains(ip): same family and equal under the mask. */
export function prefixContains(p: Prefix, a: Addr): boolean {
  if (a.bytes.length !== p.addr.bytes.length || a.zone !== '') return false;
  return sameAddr(masked(p).addr, masked({ addr: a, bits: p.bits }).addr);
}
