/**
 * Kubernetes' ValidateEndpoints (create and update alike; pkg/apis/core/validation) over the
 * JSON of core/v1 Endpoints, and SetDefaults_Endpoints (a port's protocol defaults to TCP).
 * Each subset needs an address; each address a valid IP that is not special (ValidateEndpointIP),
 * a DNS-label hostname and a DNS-subdomain nodeName; a port a name when the subset has several
 * ports, a number in 1..65535, a supported protocol and a qualified-name appProtocol.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1123Label, isDns1123Subdomain, isQualifiedName } from '../../../meta/validation';
import { ApiObject } from '../../../scheme/types';
import { validateEndpointIp, validateIp } from '../endpoint-ip';

export const PORT_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

export interface EndpointAddress { ip?: string; hostname?: string; nodeName?: string | null; targetRef?: Record<string, unknown> | null }
export interface EndpointPort { name?: string; port?: number; protocol?: string; appProtocol?: string | null }
export interface EndpointSubset { addresses?: EndpointAddress[] | null; notReadyAddresses?: EndpointAddress[] | null; ports?: EndpointPort[] | null }

export const subsetsOf = (obj: ApiObject): EndpointSubset[] => (Array.isArray(obj.subsets) ? obj.subsets as EndpointSubset[] : []);

/** SetDefaults_Endpoints: every port without a protocol is TCP. */
export function defaultEndpoints(obj: ApiObject): void {
  for (const ss of subsetsOf(obj)) for (const p of ss?.ports ?? []) if (p && !p.protocol) p.protocol = 'TCP';
}

/** Each message of `check(value)` as an Invalid error at `path`. */
const invalidEach = (messages: string[], path: string, value: unknown): FieldError[] => messages.map((m) => fieldErrors.invalid(path, value, m));

/** validateEndpointAddress. */
function validateAddress(a: EndpointAddress, path: string, allowLoopback: boolean): FieldError[] {
  const ip = a.ip ?? '';
  const errs = validateIp(ip, child(path, 'ip'));
  if (a.hostname) errs.push(...invalidEach(isDns1123Label(a.hostname), child(path, 'hostname'), a.hostname));
  if (a.nodeName !== undefined && a.nodeName !== null) errs.push(...invalidEach(isDns1123Subdomain(a.nodeName), child(path, 'nodeName'), a.nodeName));
  errs.push(...validateEndpointIp(ip, child(path, 'ip'), { allowLoopback }));
  return errs;
}

/** validateEndpointPort. */
export function validateEndpointPort(p: EndpointPort, requireName: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = p.name ?? '';
  if (requireName && !name) errs.push(fieldErrors.required(child(path, 'name')));
  else if (name) errs.push(...invalidEach(isDns1123Label(name), child(path, 'name'), name));
  const port = p.port ?? 0;
  if (!Number.isInteger(port) || port < 1 || port > 65535) errs.push(fieldErrors.invalid(child(path, 'port'), port, 'must be between 1 and 65535, inclusive'));
  if (!p.protocol) errs.push(fieldErrors.required(child(path, 'protocol')));
  else if (!PORT_PROTOCOLS.includes(p.protocol)) errs.push(fieldErrors.notSupported(child(path, 'protocol'), p.protocol, PORT_PROTOCOLS));
  if (p.appProtocol !== undefined && p.appProtocol !== null) errs.push(...invalidEach(isQualifiedName(p.appProtocol), child(path, 'appProtocol'), p.appProtocol));
  return errs;
}

/**
 * validateEndpointSubsets. `allowLoopback`: the server's own write of `default/kubernetes` for a
 * replica advertising a loopback address (see ../endpoint-ip.ts); never a client's write.
 */
export function validateEndpoints(obj: ApiObject, opts: { allowLoopback?: boolean } = {}): FieldError[] {
  const errs: FieldError[] = [];
  subsetsOf(obj).forEach((ss, i) => {
    const path = index('subsets', i);
    const addresses = ss?.addresses ?? [];
    const notReady = ss?.notReadyAddresses ?? [];
    if (!addresses.length && !notReady.length) errs.push(fieldErrors.required(path, 'must specify `addresses` or `notReadyAddresses`'));
    addresses.forEach((a, j) => errs.push(...validateAddress(a ?? {}, index(child(path, 'addresses'), j), !!opts.allowLoopback)));
    notReady.forEach((a, j) => errs.push(...validateAddress(a ?? {}, index(child(path, 'notReadyAddresses'), j), !!opts.allowLoopback)));
    const ports = ss?.ports ?? [];
    ports.forEach((p, j) => errs.push(...validateEndpointPort(p ?? {}, ports.length > 1, index(child(path, 'ports'), j))));
  });
  return errs;
}
