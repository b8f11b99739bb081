/**
 * Kubernetes' SetDefaults_NetworkPolicy and ValidateNetworkPolicy / ValidateNetworkPolicyUpdate
 * (pkg/apis/networking, 1.32) over a NetworkPolicy's JSON. Defaults: ports without a protocol
 * get TCP; without policyTypes a policy is [Ingress], plus Egress when it has egress rules.
 * Validation: label selectors; ports (protocol TCP, UDP or SCTP; a numeric port in range, an
 * endPort only after a numeric port and not below it; a named port an IANA service name);
 * peers (at least one of the selectors or ipBlock, ipBlock alone; its cidr a CIDR and each
 * except a strict subset of it); at most two policyTypes, each Ingress or Egress. An update
 * keeps accepting selector values stored before label values were checked.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { labelSelectorFromObject } from '../../../meta/label-selector';
import { invalidGo } from '../../../meta/go-print';
import { ApiObject } from '../../../scheme/types';
import { portNameErrors, portNumErrors } from '../../core/pod-spec/ports';
import { cidrContains, parseCidr, validateCidr } from '../formats';

type Json = Record<string, unknown>;
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];

const rec = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? v as Json : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(rec) : []);
const set = (v: unknown): boolean => v !== undefined && v !== null;
export const networkPolicySpecOf = (obj: ApiObject): Json => rec(obj.spec);

/** SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort. */
export function defaultNetworkPolicy(obj: ApiObject): void {
  const spec = (obj.spec ??= {}) as Json;
  // A value field without omitempty in Go: always written.
  spec.podSelector ??= {};
  for (const [rules] of [['ingress'], ['egress']]) {
    for (const rule of Array.isArray(spec[rules]) ? spec[rules] as unknown[] : []) {
      for (const port of list(rec(rule).ports)) if (!set(port.protocol)) port.protocol = 'TCP';
    }
  }
  if (!Array.isArray(spec.policyTypes) || !spec.policyTypes.length) {
    spec.policyTypes = ['Ingress', ...(Array.isArray(spec.egress) && spec.egress.length ? ['Egress'] : [])];
  }
}

/** ValidateNetworkPolicyPort. */
function validatePort(port: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (set(port.protocol) && !PROTOCOLS.includes(String(port.protocol))) errs.push(fieldErrors.notSupported(child(path, 'protocol'), port.protocol, PROTOCOLS));
  // A nil *int32 is undefined; decode has checked that a set endPort is an integer.
  const endPort = set(port.endPort) ? Number(port.endPort) : undefined;
  if (set(port.port)) {
    if (typeof port.port === 'number') {
      errs.push(...portNumErrors(port.port).map((m) => fieldErrors.invalid(child(path, 'port'), port.port, m)));
      if (endPort !== undefined) {
        if (endPort < port.port) errs.push(fieldErrors.invalid(child(path, 'endPort'), endPort, 'must be greater than or equal to `port`'));
        errs.push(...portNumErrors(endPort).map((m) => fieldErrors.invalid(child(path, 'endPort'), endPort, m)));
      }
    } else {
      if (endPort !== undefined) errs.push(fieldErrors.invalid(child(path, 'endPort'), endPort, 'may not be specified when `port` is non-numeric'));
      errs.push(...portNameErrors(String(port.port)).map((m) => fieldErrors.invalid(child(path, 'port'), port.port, m)));
    }
  } else if (endPort !== undefined) {
    errs.push(fieldErrors.invalid(child(path, 'endPort'), endPort, 'may not be specified when `port` is not specified'));
  }
  return errs;
}

/** ValidateIPBlock (1.32). */
function validateIpBlock(block: Json, path: string): FieldError[] {
  const cidr = typeof block.cidr === 'string' ? block.cidr : '';
  if (!cidr) return [fieldErrors.required(child(path, 'cidr'))];
  const errs = validateCidr(child(path, 'cidr'), cidr);
  const net = parseCidr(cidr);
  if (!net) return errs;
  (Array.isArray(block.except) ? block.except as unknown[] : []).forEach((e, i) => {
    const at = index(child(path, 'except'), i);
    const text = String(e);
    const bad = validateCidr(at, text);
    errs.push(...bad);
    const except = parseCidr(text);
    if (!except) return;
    if (!cidrContains(net, except) || net.bits >= except.bits) errs.push(fieldErrors.invalid(at, text, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

/** ValidateNetworkPolicyPeer. */
function validatePeer(peer: Json, path: string, allowInvalidLabelValue: boolean): FieldError[] {
  const errs: FieldError[] = [];
  let peers = 0;
  for (const f of ['podSelector', 'namespaceSelector'] as const) {
    if (!set(peer[f])) continue;
    peers++;
    errs.push(...labelSelectorFromObject(peer[f], child(path, f), { allowInvalidExpressionValues: allowInvalidLabelValue }).errors);
  }
  if (set(peer.ipBlock)) {
    peers++;
    errs.push(...validateIpBlock(rec(peer.ipBlock), child(path, 'ipBlock')));
  }
  if (!peers) errs.push(fieldErrors.required(path, 'must specify a peer'));
  else if (peers > 1 && set(peer.ipBlock)) errs.push(fieldErrors.forbidden(path, 'may not specify both ipBlock and another peer'));
  return errs;
}

/** ValidateNetworkPolicySpec. */
export function validateNetworkPolicySpec(spec: Json, opts: { allowInvalidLabelValue?: boolean } = {}, path = 'spec'): FieldError[] {
  const allow = opts.allowInvalidLabelValue ?? false;
  const errs = [...labelSelectorFromObject(spec.podSelector ?? {}, child(path, 'podSelector'), { allowInvalidExpressionValues: allow }).errors];
  for (const [rules, peers] of [['ingress', 'from'], ['egress', 'to']] as const) {
    list(spec[rules]).forEach((rule, i) => {
      const at = index(child(path, rules), i);
      list(rule.ports).forEach((p, j) => errs.push(...validatePort(p, index(child(at, 'ports'), j))));
      list(rule[peers]).forEach((p, j) => errs.push(...validatePeer(p, index(child(at, peers), j), allow)));
    });
  }
  const types = Array.isArray(spec.policyTypes) ? spec.policyTypes as unknown[] : [];
  if (types.length > POLICY_TYPES.length) {
    // Go dereferences &spec.PolicyTypes and prints the slice with %#v.
    const printed = `[]networking.PolicyType{${types.map((t) => JSON.stringify(String(t))).join(', ')}}`;
    return [...errs, invalidGo(child(path, 'policyTypes'), printed, 'may not specify more than two policyTypes')];
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(String(t))) errs.push(fieldErrors.notSupported(index(child(path, 'policyTypes'), i), t, POLICY_TYPES));
  });
  return errs;
}

/** ValidationOptionsForNetworking: the stored podSelector failing label-value checks keeps them relaxed. */
export function allowInvalidLabelValue(old: ApiObject): boolean {
  return labelSelectorFromObject(networkPolicySpecOf(old).podSelector ?? {}, 'spec.podSelector').errors.length > 0;
}
