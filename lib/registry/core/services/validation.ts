/**
 * ValidateService, ValidateServiceUpdate and ValidateServiceStatusUpdate of Kubernetes 1.32
 * (pkg/apis/core/validation), with its field paths and messages: ports (names, numbers,
 * protocols, uniqueness), the type and what each type allows, ExternalName's DNS name, session
 * affinity, external IPs, source ranges, node ports, the traffic policies, the load-balancer
 * class, and the load-balancer status.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1123Label, isDns1123Subdomain, isQualifiedName, validateLabels } from '../../../meta/validation';
import { portNumErrors, validatePortNumOrName } from '../pod-spec/ports';
import { validIp, validateClusterIPsRelatedFields, validateClusterIPsUpdate, validateIPFamiliesUpdate } from './cluster-ip-validation';
import { parseCidr, parseIp } from './ip-range';
import {
  ServicePort, ServiceSpec, ServiceStatus, externallyAccessible, isHeadless, needsHealthCheck, portsOf,
} from './spec';

const TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const AFFINITIES = ['ClientIP', 'None'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const TRAFFIC_POLICIES = ['Cluster', 'Local'];
const IP_MODES = ['Proxy', 'VIP'];
/** MaxClientIPServiceAffinitySeconds. */
const MAX_AFFINITY_SECONDS = 86400;
const CIDR_MSG = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';
const SOURCE_RANGES_ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges';

/** Go's %#v of the core.ServicePort key the duplicate-port check reports. */
const goPortKey = (protocol: string, port: number) =>
  `core.ServicePort{Name:"", Protocol:${JSON.stringify(protocol)}, AppProtocol:(*string)(nil), Port:${port}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`;

function validatePort(sp: ServicePort, requireName: boolean, names: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = sp.name ?? '';
  if (requireName && !name) errs.push(fieldErrors.required(child(path, 'name')));
  else if (name) {
    for (const m of isDns1123Label(name)) errs.push(fieldErrors.invalid(child(path, 'name'), name, m));
    if (names.has(name)) errs.push(fieldErrors.duplicate(child(path, 'name'), name));
    else names.add(name);
  }
  for (const m of portNumErrors(sp.port ?? 0)) errs.push(fieldErrors.invalid(child(path, 'port'), sp.port ?? 0, m));
  if (!sp.protocol) errs.push(fieldErrors.required(child(path, 'protocol')));
  else if (!PROTOCOLS.includes(sp.protocol)) errs.push(fieldErrors.notSupported(child(path, 'protocol'), sp.protocol, PROTOCOLS));
  errs.push(...validatePortNumOrName(sp.targetPort ?? 0, child(path, 'targetPort')));
  if (typeof sp.appProtocol === 'string') {
    for (const m of isQualifiedName(sp.appProtocol)) errs.push(fieldErrors.invalid(child(path, 'appProtocol'), sp.appProtocol, m));
  }
  return errs;
}

/** ValidateNonSpecialIP. */
function nonSpecialIp(ip: string, path: string): FieldError[] {
  const p = parseIp(ip);
  if (!p) return [fieldErrors.invalid(path, ip, 'must be a valid IP address')];
  const errs: FieldError[] = [];
  const v4 = p.family === 'IPv4';
  const v = p.value;
  if (v === 0n) errs.push(fieldErrors.invalid(path, ip, 'may not be unspecified (0.0.0.0)'));
  if (v4 ? (v >> 24n) === 127n : v === 1n) errs.push(fieldErrors.invalid(path, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (v4 ? (v >> 16n) === 0xa9fen : (v >> 118n) === 0x3fan) errs.push(fieldErrors.invalid(path, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  if (v4 ? (v >> 8n) === 0xe00000n : (v >> 112n) === 0xff02n) errs.push(fieldErrors.invalid(path, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  return errs;
}

function validateTrafficPolicies(spec: ServiceSpec): FieldError[] {
  const errs: FieldError[] = [];
  if (!externallyAccessible(spec)) {
    if (spec.externalTrafficPolicy) errs.push(fieldErrors.invalid('spec.externalTrafficPolicy', spec.externalTrafficPolicy, 'may only be set for externally-accessible services'));
  } else if (!spec.externalTrafficPolicy) {
    errs.push(fieldErrors.required('spec.externalTrafficPolicy'));
  } else if (!TRAFFIC_POLICIES.includes(spec.externalTrafficPolicy)) {
    errs.push(fieldErrors.notSupported('spec.externalTrafficPolicy', spec.externalTrafficPolicy, TRAFFIC_POLICIES));
  }
  const hc = spec.healthCheckNodePort ?? 0;
  if (!needsHealthCheck(spec)) {
    if (hc !== 0) errs.push(fieldErrors.invalid('spec.healthCheckNodePort', hc, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
  } else if (hc === 0) {
    errs.push(fieldErrors.required('spec.healthCheckNodePort'));
  } else {
    for (const m of portNumErrors(hc)) errs.push(fieldErrors.invalid('spec.healthCheckNodePort', hc, m));
  }
  const itp = spec.internalTrafficPolicy;
  if ((itp === undefined || itp === null) && spec.type !== 'ExternalName') errs.push(fieldErrors.required('spec.internalTrafficPolicy'));
  if (itp !== undefined && itp !== null && !TRAFFIC_POLICIES.includes(itp)) errs.push(fieldErrors.notSupported('spec.internalTrafficPolicy', itp, TRAFFIC_POLICIES));
  if (spec.trafficDistribution !== undefined && spec.trafficDistribution !== null && spec.trafficDistribution !== 'PreferClose') {
    errs.push(fieldErrors.notSupported('spec.trafficDistribution', spec.trafficDistribution, ['PreferClose']));
  }
  return errs;
}

/** validateLoadBalancerClassField (old absent on create). */
function validateLoadBalancerClass(spec: ServiceSpec, old?: ServiceSpec): FieldError[] {
  const errs: FieldError[] = [];
  const path = 'spec.loadBalancerClass';
  if (old && old.type === 'LoadBalancer' && spec.type === 'LoadBalancer' && (old.loadBalancerClass ?? null) !== (spec.loadBalancerClass ?? null)) {
    errs.push(fieldErrors.invalid(path, spec.loadBalancerClass ?? null, 'may not change once set'));
  }
  if (typeof spec.loadBalancerClass === 'string') {
    if (spec.type !== 'LoadBalancer') errs.push(fieldErrors.forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
    else for (const m of isQualifiedName(spec.loadBalancerClass)) errs.push(fieldErrors.invalid(path, spec.loadBalancerClass, m));
  }
  return errs;
}

/** ValidateService without the object meta (the store checks that): errors in Kubernetes' order. */
export function validateServiceSpec(spec: ServiceSpec, annotations: Record<string, string> = {}): FieldError[] {
  const errs: FieldError[] = [];
  const ports = portsOf(spec);
  const headless = isHeadless(spec);
  if (ports.length === 0 && !headless && spec.type !== 'ExternalName') errs.push(fieldErrors.required('spec.ports'));
  if (spec.type === 'LoadBalancer' && headless) errs.push(fieldErrors.invalid('spec.clusterIPs[0]', spec.clusterIPs?.[0], "may not be set to 'None' for LoadBalancer services"));
  if (spec.type === 'NodePort' && headless) errs.push(fieldErrors.invalid('spec.clusterIPs[0]', spec.clusterIPs?.[0], "may not be set to 'None' for NodePort services"));
  if (spec.type === 'ExternalName') {
    if (spec.clusterIPs?.length) errs.push(fieldErrors.forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if (spec.ipFamilies?.length) errs.push(fieldErrors.forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null) errs.push(fieldErrors.forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    const cname = (spec.externalName ?? '').replace(/\.$/, '');
    if (cname) for (const m of isDns1123Subdomain(cname)) errs.push(fieldErrors.invalid('spec.externalName', cname, m));
    else errs.push(fieldErrors.required('spec.externalName'));
  }
  const names = new Set<string>();
  ports.forEach((p, i) => errs.push(...validatePort(p, ports.length > 1, names, index('spec.ports', i))));
  if (spec.selector !== undefined && spec.selector !== null) errs.push(...validateLabels(spec.selector, 'spec.selector'));
  if (!spec.sessionAffinity) errs.push(fieldErrors.required('spec.sessionAffinity'));
  else if (!AFFINITIES.includes(spec.sessionAffinity)) errs.push(fieldErrors.notSupported('spec.sessionAffinity', spec.sessionAffinity, AFFINITIES));
  if (spec.sessionAffinity === 'ClientIP') {
    const path = 'spec.sessionAffinityConfig';
    const cfg = spec.sessionAffinityConfig;
    const when = 'when session affinity type is ClientIP';
    if (!cfg) errs.push(fieldErrors.required(path, when));
    else if (!cfg.clientIP) errs.push(fieldErrors.required(`${path}.clientIP`, when));
    else if (cfg.clientIP.timeoutSeconds === undefined || cfg.clientIP.timeoutSeconds === null) errs.push(fieldErrors.required(`${path}.clientIP.timeoutSeconds`, when));
    else if (cfg.clientIP.timeoutSeconds <= 0 || cfg.clientIP.timeoutSeconds > MAX_AFFINITY_SECONDS) {
      errs.push(fieldErrors.invalid(`${path}.clientIP.timeoutSeconds`, cfg.clientIP.timeoutSeconds, `must be greater than 0 and less than ${MAX_AFFINITY_SECONDS}`));
    }
  } else if (spec.sessionAffinity === 'None' && spec.sessionAffinityConfig) {
    errs.push(fieldErrors.forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }
  errs.push(...validateClusterIPsRelatedFields(spec));
  (spec.externalIPs ?? []).forEach((ip, i) => {
    const path = index('spec.externalIPs', i);
    const e = validIp(path, ip);
    errs.push(...(e.length ? e : nonSpecialIp(ip, path)));
  });
  if (!spec.type) errs.push(fieldErrors.required('spec.type'));
  else if (!TYPES.includes(spec.type)) errs.push(fieldErrors.notSupported('spec.type', spec.type, TYPES));
  if (spec.type === 'ClusterIP') {
    ports.forEach((p, i) => { if (p.nodePort) errs.push(fieldErrors.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'")); });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (!p.nodePort) return;
    const key = `${p.protocol}/${p.nodePort}`;
    if (nodePorts.has(key)) errs.push(fieldErrors.duplicate(`spec.ports[${i}].nodePort`, p.nodePort));
    nodePorts.add(key);
  });
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${p.protocol}/${p.port}`;
    if (seen.has(key)) errs.push({ type: 'FieldValueDuplicate', field: index('spec.ports', i), message: `Duplicate value: ${goPortKey(p.protocol ?? '', p.port ?? 0)}` });
    seen.add(key);
  });
  if (spec.loadBalancerSourceRanges?.length) {
    // Kubernetes spells this path with a capital L.
    const path = 'spec.LoadBalancerSourceRanges';
    if (spec.type !== 'LoadBalancer') errs.push(fieldErrors.forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
    spec.loadBalancerSourceRanges.forEach((v, i) => {
      const value = String(v).trim();
      if (!parseCidr(value)) errs.push(fieldErrors.invalid(index(path, i), value, CIDR_MSG));
    });
  } else if (SOURCE_RANGES_ANNOTATION in annotations) {
    const path = `metadata.annotations[${SOURCE_RANGES_ANNOTATION}]`;
    if (spec.type !== 'LoadBalancer') errs.push(fieldErrors.forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
    const val = annotations[SOURCE_RANGES_ANNOTATION].trim();
    if (val) for (const v of val.split(',')) if (!parseCidr(v.trim())) errs.push(fieldErrors.invalid(path, v.trim(), CIDR_MSG));
  }
  if (typeof spec.allocateLoadBalancerNodePorts === 'boolean' && spec.type !== 'LoadBalancer') {
    errs.push(fieldErrors.forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  }
  if (spec.type === 'LoadBalancer' && typeof spec.allocateLoadBalancerNodePorts !== 'boolean') errs.push(fieldErrors.required('allocateLoadBalancerNodePorts'));
  errs.push(...validateLoadBalancerClass(spec));
  errs.push(...validateTrafficPolicies(spec));
  return errs;
}

/** ValidateServiceUpdate's own rules (before ValidateService's, as Kubernetes orders them). */
export function validateServiceSpecUpdate(spec: ServiceSpec, old: ServiceSpec): FieldError[] {
  return [
    ...validateClusterIPsUpdate(old, spec), ...validateIPFamiliesUpdate(old, spec),
    ...validateLoadBalancerClass(spec, old).filter((e) => e.message.endsWith('may not change once set')),
  ];
}

/** ValidateLoadBalancerStatus at status.loadBalancer. */
export function validateServiceStatus(status: ServiceStatus, spec: ServiceSpec): FieldError[] {
  const errs: FieldError[] = [];
  const ingress = status.loadBalancer?.ingress ?? [];
  const path = 'status.loadBalancer.ingress';
  if (spec.type !== 'LoadBalancer' && ingress.length) return [fieldErrors.forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'")];
  ingress.forEach((ing, i) => {
    const p = index(path, i);
    if (ing.ip) errs.push(...validIp(`${p}.ip`, ing.ip));
    if (ing.ipMode && !ing.ip) errs.push(fieldErrors.forbidden(`${p}.ipMode`, 'may not be specified when `ip` is not'));
    else if (ing.ipMode && !IP_MODES.includes(ing.ipMode)) errs.push(fieldErrors.notSupported(`${p}.ipMode`, ing.ipMode, IP_MODES));
    else if (!ing.ipMode && ing.ip) errs.push(fieldErrors.required(`${p}.ipMode`, 'must be specified when `ip` is set'));
    if (ing.hostname) {
      for (const m of isDns1123Subdomain(ing.hostname)) errs.push(fieldErrors.invalid(`${p}.hostname`, ing.hostname, m));
      if (parseIp(ing.hostname)) errs.push(fieldErrors.invalid(`${p}.hostname`, ing.hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

