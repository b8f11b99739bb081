/**
 * The service network of the server, from --service-cluster-ip-range and
 * --service-node-port-range: one or two IP ranges (one per family, the first the primary) and
 * the node-port range, parsed and checked as kube-apiserver 1.32 does, with the shapes of their
 * allocation bitmaps (ipallocator/bitmap.go, portallocator/allocator.go: which offsets exist,
 * the static band, the errors' words).
 */
import { Cidr, IPFamily, ParsedIp, cidrContains, formatIp, parseCidr, rangeSize } from './ip-range';
import type { RangeShape } from './range-store';

/** kube-apiserver's default --service-cluster-ip-range. */
export const DEFAULT_SERVICE_CIDR = '10.0.0.0/24';
/** kube-apiserver's default --service-node-port-range. */
export const DEFAULT_NODE_PORT_RANGE = '30000-32767';
/** The largest range kube-apiserver keeps a bitmap of: 2^20 addresses. */
const MAX_CIDR_BITS = 20;

/** One IP range's bitmap: offset i is the address network + 1 + i (ipallocator.Range). */
export class IpRangeShape implements RangeShape {
  readonly rangeText: string;
  readonly max: number;
  readonly offset: number;
  readonly family: IPFamily;
  readonly resource = 'serviceipallocations';
  private readonly base: bigint;

  constructor(readonly cidr: Cidr, readonly key: string) {
    this.rangeText = cidr.text;
    this.family = cidr.family;
    let max = rangeSize(cidr);
    if (cidr.family === 'IPv6') max = Math.min(max, 65536);
    else max--; // not the broadcast address
    max--; // not the network address
    this.max = Math.max(0, max);
    this.base = cidr.network + 1n;
    this.offset = staticBand(rangeSize(cidr), 16, 256, 16);
  }

  /** The offset of an address, or undefined when it is outside the usable range. */
  offsetOf(ip: ParsedIp): number | undefined {
    if (!cidrContains(this.cidr, ip)) return undefined;
    const off = ip.value - this.base;
    return off < 0n || off >= BigInt(this.max) ? undefined : Number(off);
  }

  addressAt(offset: number): string {
    return formatIp(this.base + BigInt(offset), this.family);
  }

  notInRange(ip: string): string {
    return `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.rangeText}`;
  }
}

/** The node-port bitmap: offset i is port base + i (portallocator.PortAllocator). */
export class PortRangeShape implements RangeShape {
  readonly key = 'servicenodeports';
  readonly resource = 'servicenodeportallocations';
  readonly rangeText: string;
  readonly offset: number;

  constructor(readonly base: number, readonly max: number) {
    this.rangeText = max === 0 ? '' : `${base}-${base + max - 1}`;
    this.offset = staticBand(max, 16, 128, 32);
  }

  offsetOf(port: number): number | undefined {
    return port >= this.base && port < this.base + this.max ? port - this.base : undefined;
  }

  portAt(offset: number): number {
    return this.base + offset;
  }

  notInRange(): string {
    return `provided port is not in the valid range. The range of valid ports is ${this.rangeText}`;
  }
}

/** calculateRangeOffset: min(max(min, size/step), max), 0 for a range of at most `min` items. */
function staticBand(size: number, min: number, max: number, step: number): number {
  if (size <= min) return 0;
  const offset = Math.floor(size / step);
  return offset < min ? min : offset > max ? max : offset;
}

export interface ServiceNetwork {
  /** By family; the primary range first. */
  readonly ipRanges: readonly IpRangeShape[];
  readonly primaryFamily: IPFamily;
  readonly nodePorts: PortRangeShape;
}

/** The IP range of a family, when the cluster has one. */
export function rangeOfFamily(net: ServiceNetwork, family: IPFamily): IpRangeShape | undefined {
  return net.ipRanges.find((r) => r.family === family);
}

/**
 * --service-cluster-ip-range as kube-apiserver reads and validates it: the reason it is refused,
 * in kube's words, or the ranges.
 */
export function parseServiceCidrs(value: string): { cidrs: Cidr[] } | { problem: string } {
  const text = value.trim() === '' ? DEFAULT_SERVICE_CIDR : value;
  const entries = text.split(',');
  if (entries.length > 2) return { problem: '--service-cluster-ip-range must not contain more than two entries' };
  const primary = parseCidr(entries[0]);
  if (!primary) return { problem: 'service-cluster-ip-range[0] is not a valid cidr' };
  const tooLarge = (c: Cidr, flagName: string) => (c.bits - c.prefix > MAX_CIDR_BITS
    ? `specified ${flagName} is too large; for ${c.bits}-bit addresses, the mask must be >= ${c.bits - MAX_CIDR_BITS}` : undefined);
  const big = tooLarge(primary, '--service-cluster-ip-range');
  if (big) return { problem: big };
  if (entries.length === 1) return { cidrs: [primary] };
  const secondary = parseCidr(entries[1]);
  if (!secondary) return { problem: 'service-cluster-ip-range[1] is not an ip net' };
  if (secondary.family === primary.family) return { problem: '--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family' };
  const big2 = tooLarge(secondary, '--service-cluster-ip-range[1]');
  if (big2) return { problem: big2 };
  return { cidrs: [primary, secondary] };
}

/** utilnet.PortRange.Set: `30000-32767`, `30000+2767` or one port; the reason it is refused, or base and size. */
export function parsePortRange(value: string): { base: number; size: number } | { problem: string } {
  const v = value.trim();
  if (v === '') return { base: 0, size: 0 };
  const atoi = (s: string): number | undefined => (/^[+-]?[0-9]+$/.test(s) ? Number(s) : undefined);
  const hyphen = v.indexOf('-');
  const plus = v.indexOf('+');
  let low: number | undefined; let high: number | undefined;
  if (hyphen < 0 && plus < 0) {
    low = high = atoi(v);
    if (low === undefined) return { problem: `strconv.Atoi: parsing ${JSON.stringify(v)}: invalid syntax` };
  } else if (hyphen >= 0 && plus < 0) {
    low = atoi(v.slice(0, hyphen)); high = atoi(v.slice(hyphen + 1));
  } else if (plus >= 0 && hyphen < 0) {
    low = atoi(v.slice(0, plus));
    const off = atoi(v.slice(plus + 1));
    high = low !== undefined && off !== undefined ? low + off : undefined;
  } else {
    return { problem: `unable to parse port range: ${v}` };
  }
  if (low === undefined || high === undefined) return { problem: `unable to parse port range: ${v}` };
  if (low > 65535 || high > 65535) return { problem: `the port range cannot be greater than 65535: ${v}` };
  if (high < low) return { problem: `end port cannot be less than start port: ${v}` };
  return { base: low, size: 1 + high - low };
}

/** The service network of parsed flag values (they were checked when the flags were parsed). */
export function serviceNetworkOf(clusterIpRange: string, nodePortRange: string): ServiceNetwork {
  const cidrs = parseServiceCidrs(clusterIpRange);
  const ports = parsePortRange(nodePortRange);
  if ('problem' in cidrs) throw new Error(cidrs.problem);
  if ('problem' in ports) throw new Error(ports.problem);
  const ipRanges = cidrs.cidrs.map((c, i) => new IpRangeShape(c, i === 0 ? 'serviceips' : 'secondaryserviceips'));
  return { ipRanges, primaryFamily: ipRanges[0].family, nodePorts: new PortRangeShape(ports.base, ports.size) };
}
