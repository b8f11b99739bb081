/**
 * Kubernetes' ValidatePodSpec (and ValidatePodCreate's extra rules for a Pod): volumes,
 * containers of every kind, policies, DNS, host aliases, names of referenced objects, security
 * context, scheduling, overhead and resource claims, at any field path (a Pod's `spec`, a
 * template's `template.spec`); see PodSpecPlace.
 */
import { isIP } from 'node:net';
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1123Label, isDns1123Subdomain } from '../../../meta/validation';
import { Json, isObject, items, record, records, text } from '../json-fields';
import { VolumeRules } from '../volumes/volume-list';
import { validateContainers, validateEphemeralContainers, validateInitContainers } from './container-kinds';
import { validateHostNetworkPorts } from './ports';
import { validateResourceRequirements } from './resources';
import { validatePodSecurityContext } from './security-context';
import { validateScheduling } from './scheduling';

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const OS_NAMES = ['linux', 'windows'];
const IP_MSG = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
const MAX_INT32 = 2147483647;

function oneOf(value: string, supported: string[], path: string): FieldError[] {
  if (!value) return [fieldErrors.required(path)];
  return supported.includes(value) ? [] : [fieldErrors.notSupported(path, value, supported)];
}

const nameErrors = (check: (v: string) => string[], value: string, path: string): FieldError[] => (
  value ? check(value).map((m) => fieldErrors.invalid(path, value, m)) : []);

const ipErrors = (ip: string, path: string): FieldError[] => (isIP(ip) ? [] : [fieldErrors.invalid(path, ip, IP_MSG)]);

/** validatePodDNSConfig, including what dnsPolicy None requires. */
function validateDNSConfig(spec: Json, path: string): FieldError[] {
  const config = record(spec, 'dnsConfig');
  if (text(spec, 'dnsPolicy') === 'None') {
    if (!config) return [fieldErrors.required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (!items(config, 'nameservers').length) {
      return [fieldErrors.required(child(path, 'nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
    }
  }
  if (!config) return [];
  const errs: FieldError[] = [];
  const nameservers = items(config, 'nameservers').map((s) => (typeof s === 'string' ? s : ''));
  if (nameservers.length > 3) errs.push(fieldErrors.invalid(child(path, 'nameservers'), nameservers, 'must not have more than 3 nameservers'));
  nameservers.forEach((ns, i) => errs.push(...ipErrors(ns, index(child(path, 'nameservers'), i))));
  const searches = items(config, 'searches').map((s) => (typeof s === 'string' ? s : ''));
  if (searches.length > 32) errs.push(fieldErrors.invalid(child(path, 'searches'), searches, 'must not have more than 32 search paths'));
  if (searches.join(' ').length > 2048) {
    errs.push(fieldErrors.invalid(child(path, 'searches'), searches, 'must not have more than 2048 characters (including spaces) in the search list'));
  }
  searches.forEach((s, i) => {
    // A trailing dot is allowed.
    const search = s.endsWith('.') ? s.slice(0, -1) : s;
    errs.push(...isDns1123Subdomain(search).map((m) => fieldErrors.invalid(index(child(path, 'searches'), i), search, m)));
  });
  records(config, 'options').forEach((o, i) => {
    if (!text(o, 'name')) errs.push(fieldErrors.required(index(child(path, 'options'), i), 'Option.Name must not be empty'));
  });
  return errs;
}

function validateHostAliases(aliases: Json[], path: string): FieldError[] {
  return aliases.flatMap((a, i) => [
    ...ipErrors(text(a, 'ip'), child(index(path, i), 'ip')),
    ...items(a, 'hostnames').flatMap((h, j) => {
      const hostname = typeof h === 'string' ? h : '';
      return isDns1123Subdomain(hostname).map((m) => fieldErrors.invalid(index(child(index(path, i), 'hostnames'), j), hostname, m));
    }),
  ]);
}

function validateOS(os: Json | undefined, path: string): FieldError[] {
  if (!os) return [];
  const name = text(os, 'name');
  if (!name) return [fieldErrors.required(child(path, 'name'))];
  return OS_NAMES.includes(name) ? [] : [fieldErrors.notSupported(child(path, 'name'), name, OS_NAMES)];
}

function validateResourceClaims(claims: Json[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  claims.forEach((c, i) => {
    const at = index(path, i);
    const name = text(c, 'name');
    errs.push(...(name ? nameErrors(isDns1123Label, name, child(at, 'name')) : [fieldErrors.required(child(at, 'name'))]));
    if (seen.has(name)) errs.push(fieldErrors.duplicate(child(at, 'name'), name));
    seen.add(name);
    const sources = ['resourceClaimName', 'resourceClaimTemplateName'].filter((k) => typeof c[k] === 'string');
    if (sources.length !== 1) errs.push(fieldErrors.invalid(at, c, 'must specify one of: `resourceClaimName`, `resourceClaimTemplateName`'));
    for (const k of sources) errs.push(...nameErrors(isDns1123Subdomain, text(c, k), child(at, k)));
  });
  return errs;
}

/**
 * Where a PodSpec stands: `path` is its field path (`spec` in a Pod, `template.spec` in a
 * PodTemplate, `spec.template.spec` in a workload), `podName` the Pod's name ('' in a template:
 * ephemeral claims are then not named) and `isPod` whether it is a Pod's own spec (Kubernetes'
 * PodValidationOptions.ResourceIsPod: only a Pod must spell out the host ports of hostNetwork).
 */
export interface PodSpecPlace {
  path: string;
  podName: string;
  isPod: boolean;
}

/** ValidatePodSpec at `place.path`. */
export function validatePodSpec(spec: Json, place: PodSpecPlace, volumeRules: VolumeRules): FieldError[] {
  const at = (field: string): string => child(place.path, field);
  const vols = volumeRules.validate(records(spec, 'volumes'), place.podName, at('volumes'));
  const grace = spec.terminationGracePeriodSeconds;
  const ctx = { volumes: vols.valid, hostUsers: spec.hostUsers !== false, gracePeriod: typeof grace === 'number' ? grace : undefined };
  const containers = records(spec, 'containers');
  const initContainers = records(spec, 'initContainers');
  const errs = [
    ...vols.errors,
    ...validateContainers(containers, ctx, at('containers')),
    ...validateInitContainers(initContainers, containers, ctx, at('initContainers')),
    ...validateEphemeralContainers(records(spec, 'ephemeralContainers'), [...containers, ...initContainers], ctx, at('ephemeralContainers')),
  ];
  if (grace === undefined || grace === null) errs.push(fieldErrors.required(at('terminationGracePeriodSeconds')));
  errs.push(...oneOf(text(spec, 'restartPolicy'), RESTART_POLICIES, at('restartPolicy')));
  errs.push(...oneOf(text(spec, 'dnsPolicy'), DNS_POLICIES, at('dnsPolicy')));
  errs.push(...validateDNSConfig(spec, at('dnsConfig')));
  errs.push(...nameErrors(isDns1123Subdomain, text(spec, 'serviceAccountName'), at('serviceAccountName')));
  errs.push(...nameErrors(isDns1123Subdomain, text(spec, 'nodeName'), at('nodeName')));
  errs.push(...nameErrors(isDns1123Label, text(spec, 'hostname'), at('hostname')));
  errs.push(...nameErrors(isDns1123Label, text(spec, 'subdomain'), at('subdomain')));
  errs.push(...nameErrors(isDns1123Subdomain, text(spec, 'priorityClassName'), at('priorityClassName')));
  if (typeof spec.runtimeClassName === 'string') errs.push(...isDns1123Subdomain(spec.runtimeClassName).map((m) => fieldErrors.invalid(at('runtimeClassName'), spec.runtimeClassName, m)));
  const deadline = spec.activeDeadlineSeconds;
  if (typeof deadline === 'number' && (deadline < 1 || deadline > MAX_INT32)) {
    errs.push(fieldErrors.invalid(at('activeDeadlineSeconds'), deadline, `must be between 1 and ${MAX_INT32}, inclusive`));
  }
  errs.push(...validatePodSecurityContext(spec, at('securityContext')));
  if (spec.hostNetwork === true) {
    errs.push(...validateHostNetworkPorts(containers, at('containers'), place.isPod), ...validateHostNetworkPorts(initContainers, at('initContainers'), place.isPod));
  }
  errs.push(...validateHostAliases(records(spec, 'hostAliases'), at('hostAliases')));
  errs.push(...validateScheduling(spec, place.path));
  errs.push(...validateOS(record(spec, 'os'), at('os')));
  if (isObject(spec.overhead)) errs.push(...validateResourceRequirements({ limits: spec.overhead }, at('overhead')));
  errs.push(...validateResourceRequirements(record(spec, 'resources'), at('resources')));
  errs.push(...validateResourceClaims(records(spec, 'resourceClaims'), at('resourceClaims')));
  return errs;
}

/** ValidatePodCreate's rules on top of the spec's: no ephemeral containers, no node while gated. */
export function validatePodSpecCreate(spec: Json): FieldError[] {
  const errs: FieldError[] = [];
  if (records(spec, 'ephemeralContainers').length) errs.push(fieldErrors.forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  if (text(spec, 'nodeName') && records(spec, 'schedulingGates').length) {
    errs.push(fieldErrors.forbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
  }
  return errs;
}
