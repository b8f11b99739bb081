/**
 * Kubernetes' IP and CIDR libraries (library/ip.go, library/cidr.go, in the base environment since
 * 1.30): `ip(string)` / `isIP` with Go netip's strict parsing (no leading zeros, no zones, no
 * IPv4-mapped IPv6), `ip.isCanonical(string)`, family, isUnspecified, isLoopback,
 * isLinkLocalMulticast, isLinkLocalUnicast, isGlobalUnicast, `string(ip)`; `cidr(string)` /
 * `isCIDR`, containsIP and containsCIDR (of a value or a string), prefixLength, masked, ip() (the
 * address as written), `string(cidr)`. Error texts are Kubernetes' (including its doubled
 * "network address parse error" prefix for CIDRs).
 *
 * Cost (library/cost.go): ip, isIP, cidr, isCIDR, ip.isCanonical, string() cost ceil(size * 0.1);
 * containsIP/containsCIDR and the predicates a small constant (IP_COSTS).
 */

import { registerLibrary } from '../environment';
import { celError, declareNamespace } from './engine';
import * as netip from './go-netip';
import { STRING_TRAVERSAL, type CostTable } from './cost-table';

/** The CEL net.IP value. */
export class NetIP {
  constructor(readonly addr: netip.Addr) {}
  celEquals(other: unknown): boolean {
    return other instanceof NetIP && netip.sameAddr(this.addr, other.addr);
  }
}

/** The CEL net.CIDR value. */
export class NetCIDR {
  constructor(readonly prefix: netip.Prefix) {}
  celEquals(other: unknown): boolean {
    return other instanceof NetCIDR && netip.sameAddr(this.prefix.addr, other.prefix.addr) && this.prefix.bits === other.prefix.bits;
  }
}

function parseIPAddr(raw: string): netip.Addr {
  let addr: netip.Addr;
  try {
    addr = netip.parseAddr(raw);
  } catch (e) {
    throw new Error(`IP Address ${JSON.stringify(raw)} parse error during conversion from string: ${(e as Error).message}`);
  }
  if (addr.zone !== '') throw new Error(`IP address ${JSON.stringify(raw)} with zone value is not allowed`);
  if (netip.is4In6(addr)) throw new Error(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return addr;
}

function parseCIDR(raw: string): netip.Prefix {
  let p: netip.Prefix;
  try {
    p = netip.parsePrefix(raw);
  } catch (e) {
    throw new Error(`network address parse error during conversion from string: ${(e as Error).message}`);
  }
  if (netip.is4In6(p.addr)) throw new Error(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return p;
}

function toIP(s: string): NetIP {
  try {
    return new NetIP(parseIPAddr(s));
  } catch (e) {
    throw celError((e as Error).message);
  }
}

function toCIDR(s: string): NetCIDR {
  try {
    return new NetCIDR(parseCIDR(s));
  } catch (e) {
    throw celError(`network address parse error during conversion from string: ${(e as Error).message}`);
  }
}

const succeeds = (f: () => unknown): boolean => {
  try {
    f();
    return true;
  } catch {
    return false;
  }
};

function containsCIDR(c: NetCIDR, other: NetCIDR): boolean {
  const a = c.prefix;
  const b = other.prefix;
  if (a.addr.bytes.length !== b.addr.bytes.length) return false;
  const equalMasked = netip.sameAddr(netip.masked(a).addr, netip.masked({ addr: b.addr, bits: a.bits }).addr);
  return equalMasked && a.bits <= b.bits;
}

export const IP_COSTS: CostTable = {
  ip: { kind: 'linear', of: 'arg0', factor: STRING_TRAVERSAL },
  isIP: { kind: 'linear', of: 'arg0', factor: STRING_TRAVERSAL },
  'ip.isCanonical': { kind: 'linear', of: 'arg0', factor: STRING_TRAVERSAL },
  cidr: { kind: 'linear', of: 'arg0', factor: STRING_TRAVERSAL },
  isCIDR: { kind: 'linear', of: 'arg0', factor: STRING_TRAVERSAL },
  'string/net.IP': { kind: 'constant', cost: 1, note: 'ceil(size of the printed address * 0.1)' },
  'string/net.CIDR': { kind: 'constant', cost: 1, note: 'ceil(size of the printed prefix * 0.1)' },
  'net.CIDR.containsIP': { kind: 'constant', cost: 2, note: 'plus ceil(size * 0.1) for a string argument' },
  'net.CIDR.containsCIDR': { kind: 'constant', cost: 4, note: 'plus ceil(size * 0.1) for a string argument' },
};

registerLibrary((env) => {
  env.registerType('net.IP', NetIP);
  env.registerType('net.CIDR', NetCIDR);
  env.registerOperator('net.IP == net.IP', (a: NetIP, b: NetIP) => a.celEquals(b));
  env.registerOperator('net.CIDR == net.CIDR', (a: NetCIDR, b: NetCIDR) => a.celEquals(b));
  env.registerFunction('ip(string): net.IP', toIP);
  env.registerFunction('isIP(string): bool', (s: string) => succeeds(() => parseIPAddr(s)));
  declareNamespace(env, 'ip', 'kubernetes.IPNamespace');
  env.registerFunction('kubernetes.IPNamespace.isCanonical(string): bool', (_: unknown, s: string) => {
    try {
      return netip.addrString(parseIPAddr(s)) === s;
    } catch (e) {
      throw celError((e as Error).message);
    }
  });
  env.registerFunction('string(net.IP): string', (a: NetIP) => netip.addrString(a.addr));
  env.registerFunction('net.IP.family(): int', (a: NetIP) => (netip.is4(a.addr) ? 4n : 6n));
  env.registerFunction('net.IP.isUnspecified(): bool', (a: NetIP) => netip.isUnspecified(a.addr));
  env.registerFunction('net.IP.isLoopback(): bool', (a: NetIP) => netip.isLoopback(a.addr));
  env.registerFunction('net.IP.isLinkLocalMulticast(): bool', (a: NetIP) => netip.isLinkLocalMulticast(a.addr));
  env.registerFunction('net.IP.isLinkLocalUnicast(): bool', (a: NetIP) => netip.isLinkLocalUnicast(a.addr));
  env.registerFunction('net.IP.isGlobalUnicast(): bool', (a: NetIP) => netip.isGlobalUnicast(a.addr));
  env.registerFunction('cidr(string): net.CIDR', toCIDR);
  env.registerFunction('isCIDR(string): bool', (s: string) => succeeds(() => parseCIDR(s)));
  env.registerFunction('string(net.CIDR): string', (c: NetCIDR) => netip.prefixString(c.prefix));
  env.registerFunction('net.CIDR.containsIP(net.IP): bool', (c: NetCIDR, a: NetIP) => netip.prefixContains(c.prefix, a.addr));
  env.registerFunction('net.CIDR.containsIP(string): bool', (c: NetCIDR, s: string) => netip.prefixContains(c.prefix, toIP(s).addr));
  env.registerFunction('net.CIDR.containsCIDR(net.CIDR): bool', containsCIDR);
  env.registerFunction('net.CIDR.containsCIDR(string): bool', (c: NetCIDR, s: string) => containsCIDR(c, toCIDR(s)));
  env.registerFunction('net.CIDR.prefixLength(): int', (c: NetCIDR) => BigInt(c.prefix.bits));
  env.registerFunction('net.CIDR.masked(): net.CIDR', (c: NetCIDR) => new NetCIDR(netip.masked(c.prefix)));
  env.registerFunction('net.CIDR.ip(): net.IP', (c: NetCIDR) => new NetIP(c.prefix.addr));
});
