/**
 * IP checks of the endpoint kinds (core/v1 Endpoints, discovery EndpointSlice), as Kubernetes
 * 1.32 makes them: addresses parse as Go's netutils.ParseIPSloppy parses them (IPv4 octets may
 * have leading zeros), and ValidateEndpointIP (pkg/apis/core/validation) refuses the addresses
 * an endpoint may not have: unspecified, loopback, link-local unicast and link-local multicast.
 * Shared by both groups' kinds, so it lives in the core group folder beside them.
 */
import { FieldError, fieldErrors } from '../../meta/field-errors';

/** The 16 bytes of an IP (IPv4 as ::ffff:a.b.c.d, as Go holds it) and whether it is an IPv4 address. */
export interface ParsedIp { bytes: number[]; v4: boolean }

function parseV4(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^[0-9]{1,3}$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out.push(n);
  }
  return out;
}

function parseV6(s: string): number[] | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string): number[] | undefined => {
    if (h === '') return [];
    const out: number[] = [];
    const parts = h.split(':');
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = parseV4(p);
        if (!v4) return undefined;
        out.push(...v4);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(p)) return undefined;
      const n = parseInt(p, 16);
      out.push(n >> 8, n & 0xff);
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return undefined;
  // An embedded IPv4 address may only end the address.
  if (halves.length === 2 && halves[0].includes('.')) return undefined;
  if (halves.length === 1) return head.length === 16 ? head : undefined;
  if (head.length + tail.length > 14) return undefined;
  return [...head, ...new Array<number>(16 - head.length - tail.length).fill(0), ...tail];
}

const V4_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/** Go's netutils.ParseIPSloppy: undefined when `s` is not an IP address. */
export function parseIpSloppy(s: string): ParsedIp | undefined {
  const v4 = parseV4(s);
  if (v4) return { bytes: [...V4_PREFIX, ...v4], v4: true };
  if (!s.includes(':')) return undefined;
  const v6 = parseV6(s);
  if (!v6) return undefined;
  return { bytes: v6, v4: V4_PREFIX.every((b, i) => v6[i] === b) };
}

/** validation.IsValidIP: `must be a valid IP address, (e.g. ...)`. */
export function validateIp(value: string, path: string): FieldError[] {
  return parseIpSloppy(value) ? [] : [fieldErrors.invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}

/** validation.IsValidIPv4Address. */
export function validateIpv4(value: string, path: string): FieldError[] {
  return parseIpSloppy(value)?.v4 ? [] : [fieldErrors.invalid(path, value, 'must be a valid IPv4 address')];
}

/** validation.IsValidIPv6Address. */
export function validateIpv6(value: string, path: string): FieldError[] {
  const ip = parseIpSloppy(value);
  return ip && !ip.v4 ? [] : [fieldErrors.invalid(path, value, 'must be a valid IPv6 address')];
}

/** The special ranges ValidateEndpointIP refuses, in its order. */
export function specialRanges(ip: ParsedIp): string[] {
  const b = ip.bytes;
  const out: string[] = [];
  const v4 = b.slice(12);
  if (ip.v4 ? v4.every((x) => x === 0) : b.every((x) => x === 0)) out.push('unspecified');
  if (ip.v4 ? v4[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1) out.push('loopback');
  if (ip.v4 ? v4[0] === 169 && v4[1] === 254 : b[0] === 0xfe && (b[1] & 0xc0) === 0x80) out.push('link-local');
  if (ip.v4 ? v4[0] === 224 && v4[1] === 0 && v4[2] === 0 : b[0] === 0xff && (b[1] & 0x0f) === 0x02) out.push('link-local multicast');
  return out;
}

/**
 * ValidateEndpointIP: an endpoint's address may not be unspecified, loopback, link-local or
 * link-local multicast. `allowLoopback`: the server's own `default/kubernetes` endpoints written
 * in-process for a replica advertising a loopback address (tests, single-host clusters).
 */
export function validateEndpointIp(value: string, path: string, opts: { allowLoopback?: boolean } = {}): FieldError[] {
  const ip = parseIpSloppy(value);
  if (!ip) return [fieldErrors.invalid(path, value, 'must be a valid IP address')];
  const messages: Record<string, string> = {
    unspecified: `may not be unspecified (${value})`,
    loopback: 'may not be in the loopback range (127.0.0.0/8, ::1/128)',
    'link-local': 'may not be in the link-local range (169.254.0.0/16, fe80::/10)',
    'link-local multicast': 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)',
  };
  return specialRanges(ip).filter((r) => !(opts.allowLoopback && r === 'loopback')).map((r) => fieldErrors.invalid(path, value, messages[r]));
}
