/**
 * Kubernetes 1.32's ValidateEndpointSlice / ValidateEndpointSliceUpdate (pkg/apis/discovery/
 * validation) over an EndpointSlice's JSON at v1 (the storage version; v1beta1 writes are
 * converted first), and SetDefaults_EndpointPort (name "", protocol TCP). Addresses are checked
 * by the slice's addressType (unknown types are not), at most 1000 endpoints, 100 addresses each,
 * 100 ports, 16 deprecatedTopology labels and 8 zone hints; addressType is immutable.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1123Label, isDns1123Subdomain, isQualifiedName, isValidLabelValue, validateLabels } from '../../../meta/validation';
import { ApiObject } from '../../../scheme/types';
import { validateEndpointIp, validateIpv4, validateIpv6 } from '../../core/endpoint-ip';

export const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 100;
const MAX_ENDPOINTS = 1000;
const MAX_ZONE_HINTS = 8;

export interface Endpoint {
  addresses?: string[] | null;
  conditions?: Record<string, boolean | null>;
  hostname?: string | null;
  targetRef?: Record<string, unknown> | null;
  deprecatedTopology?: Record<string, string> | null;
  topology?: Record<string, string> | null;
  nodeName?: string | null;
  zone?: string | null;
  hints?: { forZones?: Array<{ name?: string }> | null } | null;
}
export interface EndpointPort { name?: string | null; protocol?: string | null; port?: number | null; appProtocol?: string | null }

export const endpointsOf = (obj: ApiObject): Endpoint[] => (Array.isArray(obj.endpoints) ? obj.endpoints as Endpoint[] : []);
const portsOf = (obj: ApiObject): EndpointPort[] => (Array.isArray(obj.ports) ? obj.ports as EndpointPort[] : []);
const set = (v: unknown): boolean => v !== undefined && v !== null;
const invalidEach = (messages: string[], path: string, value: unknown): FieldError[] => messages.map((m) => fieldErrors.invalid(path, value, m));

/**
 * SetDefaults_EndpointPort, and the struct Go always writes: an endpoint's `conditions` (a value
 * struct, never omitted) is `{}` when absent.
 */
export function defaultEndpointSlice(obj: ApiObject): void {
  for (const p of portsOf(obj)) {
    if (!p || typeof p !== 'object') continue;
    if (!set(p.name)) p.name = '';
    if (!set(p.protocol)) p.protocol = 'TCP';
  }
  for (const ep of endpointsOf(obj)) if (ep && typeof ep === 'object' && !set(ep.conditions)) ep.conditions = {};
}

/** IsFullyQualifiedDomainName. */
function validateFqdn(value: string, path: string): FieldError[] {
  if (!value) return [fieldErrors.required(path)];
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const sub = isDns1123Subdomain(name);
  if (sub.length) return [fieldErrors.invalid(path, name, sub.join(','))];
  const labels = name.split('.');
  if (labels.length < 2) return [fieldErrors.invalid(path, name, 'should be a domain with at least two segments separated by dots')];
  for (const label of labels) {
    const errs = isDns1123Label(label);
    if (errs.length) return [fieldErrors.invalid(path, label, errs.join(','))];
  }
  return [];
}

function validateEndpoint(ep: Endpoint, addressType: string, path: string, allowLoopback: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const addressPath = child(path, 'addresses');
  const addresses = ep.addresses ?? [];
  if (!addresses.length) errs.push(fieldErrors.required(addressPath, 'must contain at least 1 address'));
  else if (addresses.length > MAX_ADDRESSES) errs.push(fieldErrors.tooMany(addressPath, addresses.length, MAX_ADDRESSES));
  addresses.forEach((a, i) => {
    const p = index(addressPath, i);
    const address = String(a ?? '');
    if (addressType === 'IPv4') errs.push(...validateIpv4(address, p), ...validateEndpointIp(address, p, { allowLoopback }));
    else if (addressType === 'IPv6') errs.push(...validateIpv6(address, p), ...validateEndpointIp(address, p, { allowLoopback }));
    else if (addressType === 'FQDN') errs.push(...validateFqdn(address, p));
  });
  if (set(ep.nodeName)) errs.push(...invalidEach(isDns1123Subdomain(String(ep.nodeName)), child(path, 'nodeName'), ep.nodeName));
  const topologyPath = child(path, 'deprecatedTopology');
  const topology = ep.deprecatedTopology ?? {};
  if (Object.keys(topology).length > MAX_TOPOLOGY_LABELS) errs.push(fieldErrors.tooMany(topologyPath, Object.keys(topology).length, MAX_TOPOLOGY_LABELS));
  errs.push(...validateLabels(topology, topologyPath));
  if (set(ep.hostname)) errs.push(...invalidEach(isDns1123Label(String(ep.hostname)), child(path, 'hostname'), ep.hostname));
  if (set(ep.hints)) errs.push(...validateHints(ep.hints ?? {}, child(path, 'hints')));
  return errs;
}

/** validateHints: at most 8 zones, each a unique label value. */
function validateHints(hints: NonNullable<Endpoint['hints']>, path: string): FieldError[] {
  const fzPath = child(path, 'forZones');
  const zones = hints.forZones ?? [];
  if (zones.length > MAX_ZONE_HINTS) return [fieldErrors.tooMany(fzPath, zones.length, MAX_ZONE_HINTS)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  zones.forEach((z, i) => {
    const p = child(index(fzPath, i), 'name');
    const name = z?.name ?? '';
    if (seen.has(name)) errs.push(fieldErrors.duplicate(p, name));
    else seen.add(name);
    errs.push(...invalidEach(isValidLabelValue(name), p, name));
  });
  return errs;
}

function validatePorts(ports: EndpointPort[]): FieldError[] {
  if (ports.length > MAX_PORTS) return [fieldErrors.tooMany('ports', ports.length, MAX_PORTS)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const p = index('ports', i);
    const name = port?.name ?? '';
    if (name) errs.push(...invalidEach(isDns1123Label(name), child(p, 'name'), name));
    if (names.has(name)) errs.push(fieldErrors.duplicate(child(p, 'name'), name));
    else names.add(name);
    if (!set(port?.protocol)) errs.push(fieldErrors.required(child(p, 'protocol')));
    else if (!PROTOCOLS.includes(String(port.protocol))) errs.push(fieldErrors.notSupported(child(p, 'protocol'), port.protocol, PROTOCOLS));
    if (set(port?.appProtocol)) errs.push(...invalidEach(isQualifiedName(String(port.appProtocol)), child(p, 'appProtocol'), port.appProtocol));
  });
  return errs;
}

/**
 * ValidateEndpointSlice (the metadata is the store's). `allowLoopback`: the server's own write of
 * `default/kubernetes` for a replica advertising a loopback address (../../core/endpoint-ip.ts).
 */
export function validateEndpointSlice(obj: ApiObject, opts: { allowLoopback?: boolean } = {}): FieldError[] {
  const errs: FieldError[] = [];
  const addressType = typeof obj.addressType === 'string' ? obj.addressType : '';
  if (!addressType) errs.push(fieldErrors.required('addressType'));
  else if (!ADDRESS_TYPES.includes(addressType)) errs.push(fieldErrors.notSupported('addressType', addressType, ADDRESS_TYPES));
  const endpoints = endpointsOf(obj);
  if (endpoints.length > MAX_ENDPOINTS) errs.push(fieldErrors.tooMany('endpoints', endpoints.length, MAX_ENDPOINTS));
  else endpoints.forEach((ep, i) => errs.push(...validateEndpoint(ep ?? {}, addressType, index('endpoints', i), !!opts.allowLoopback)));
  errs.push(...validatePorts(portsOf(obj)));
  return errs;
}

/** ValidateEndpointSliceUpdate: addressType may not change. */
export function validateEndpointSliceUpdate(obj: ApiObject, old: ApiObject, opts: { allowLoopback?: boolean } = {}): FieldError[] {
  const errs = validateEndpointSlice(obj, opts);
  if ((obj.addressType ?? '') !== (old.addressType ?? '')) errs.push(fieldErrors.immutable('addressType', obj.addressType ?? ''));
  return errs;
}
