/**
 * CIDR strings as Kubernetes reads them (netutils.ParseCIDRSloppy: an IPv4 address may have
 * leading zeros), and which IP family a CIDR belongs to, for the pod CIDRs of a Node.
 */
import { isIPv6 } from 'net';

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** 4 or 6 for a valid CIDR, undefined for anything else. */
export function cidrFamily(value: string): 4 | 6 | undefined {
  const slash = value.indexOf('/');
  if (slash < 0) return undefined;
  const addr = value.slice(0, slash);
  const bits = value.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return undefined;
  const prefix = Number(bits);
  const v4 = IPV4.exec(addr);
  if (v4) return v4.slice(1).every((o) => Number(o) <= 255) && prefix <= 32 ? 4 : undefined;
  // An IPv4-mapped or plain IPv6 address; a zone (`%eth0`) is not part of a CIDR.
  if (!addr.includes('%') && isIPv6(addr)) return prefix <= 128 ? 6 : undefined;
  return undefined;
}
