/**
 * ValidateServiceClusterIPsRelatedFields and the update rules on clusterIPs and ipFamilies
 * (validateUpgradeDowngradeClusterIPs, validateUpgradeDowngradeIPFamilies) of Kubernetes 1.32's
 * pkg/apis/core/validation, with its field paths and messages: clusterIP and clusterIPs in step,
 * `None` only alone, at most one address per family, families matching addresses, and the
 * primary address and family fixed once set (except to and from ExternalName).
 */
import { FieldError, fieldErrors, index } from '../../../meta/field-errors';
import { goStrings, invalidGo } from '../../../meta/go-print';
import { familyOf, parseIp } from './ip-range';
import { CLUSTER_IP_NONE, ServiceSpec, isHeadless } from './spec';

export const IP_MSG = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
const CLUSTER_IPS = 'spec.clusterIPs';
const IP_FAMILIES = 'spec.ipFamilies';
const FAMILIES = ['IPv4', 'IPv6'];
const POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];

/** IsValidIP at `path`. */
export function validIp(path: string, value: string): FieldError[] {
  return parseIp(value) ? [] : [fieldErrors.invalid(path, value, IP_MSG)];
}

export function validateClusterIPsRelatedFields(spec: ServiceSpec): FieldError[] {
  if (spec.type === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
  const ipsGo = goStrings(spec.clusterIPs);
  if (spec.clusterIP) {
    if (ips.length === 0) errs.push(fieldErrors.required(CLUSTER_IPS));
    else if (ips[0] !== spec.clusterIP) errs.push(invalidGo(CLUSTER_IPS, ipsGo, 'first value must match `clusterIP`'));
  } else if (ips.length !== 0) {
    errs.push(invalidGo(CLUSTER_IPS, ipsGo, 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<string>();
  (spec.ipFamilies ?? []).forEach((f, i) => {
    if (!FAMILIES.includes(f)) errs.push(fieldErrors.notSupported(index(IP_FAMILIES, i), f, FAMILIES));
    if (seen.has(f)) errs.push(fieldErrors.duplicate(index(IP_FAMILIES, i), f));
    seen.add(f);
  });
  if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null && !POLICIES.includes(spec.ipFamilyPolicy)) {
    errs.push(fieldErrors.notSupported('spec.ipFamilyPolicy', spec.ipFamilyPolicy, POLICIES));
  }
  let invalidIps = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === CLUSTER_IP_NONE) {
      if (ips.length > 1) { invalidIps = true; errs.push(invalidGo(CLUSTER_IPS, ipsGo, "'None' must be the first and only value")); }
      return;
    }
    const e = validIp(index(CLUSTER_IPS, i), ip);
    if (e.length) invalidIps = true;
    errs.push(...e);
  });
  if (ips.length > 2) errs.push(invalidGo(CLUSTER_IPS, ipsGo, 'may only hold up to 2 values'));
  if (invalidIps) return errs;
  if (ips.length > 1 && !(ips.length === 2 && familyOf(ips[0]) !== familyOf(ips[1]))) {
    errs.push(invalidGo(CLUSTER_IPS, ipsGo, 'may specify no more than one IP for each IP family'));
  }
  const families = spec.ipFamilies ?? [];
  if (!isHeadless(spec) && ips.length > 0 && families.length > 0) {
    ips.forEach((ip, i) => {
      if (i >= families.length) return;
      const fam = familyOf(ip);
      if (families[i] === 'IPv4' && fam === 'IPv6') errs.push(fieldErrors.invalid(index(CLUSTER_IPS, i), ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (families[i] === 'IPv6' && fam !== 'IPv6') errs.push(fieldErrors.invalid(index(CLUSTER_IPS, i), ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errs;
}

/** validateUpgradeDowngradeClusterIPs. */
export function validateClusterIPsUpdate(old: ServiceSpec, spec: ServiceSpec): FieldError[] {
  if (spec.type === 'ExternalName' || old.type === 'ExternalName') return [];
  if (isHeadless(old) && isHeadless(spec)) return [];
  const errs: FieldError[] = [];
  const oldIps = old.clusterIPs ?? [];
  const ips = spec.clusterIPs ?? [];
  const ipsGo = goStrings(spec.clusterIPs);
  const first = index(CLUSTER_IPS, 0);
  if (oldIps.length === ips.length) {
    oldIps.forEach((ip, i) => { if (ip !== ips[i]) errs.push(invalidGo(index(CLUSTER_IPS, i), ipsGo, 'may not change once set')); });
  } else if (oldIps.length > ips.length) {
    if (ips.length === 0) errs.push(invalidGo(first, ipsGo, 'primary clusterIP can not be unset'));
    if (oldIps.length > 0 && ips.length > 0 && ips[0] !== oldIps[0]) errs.push(invalidGo(first, ipsGo, 'may not change once set'));
    if (ips.length === 1 && spec.ipFamilyPolicy !== 'SingleStack') {
      errs.push(invalidGo(first, ipsGo, "`ipFamilyPolicy` must be set to 'SingleStack' when releasing the secondary clusterIP"));
    }
  } else if (oldIps.length > 0 && ips[0] !== oldIps[0]) {
    errs.push(invalidGo(first, ipsGo, 'may not change once set'));
  }
  return errs;
}

/** validateUpgradeDowngradeIPFamilies. */
export function validateIPFamiliesUpdate(old: ServiceSpec, spec: ServiceSpec): FieldError[] {
  if (spec.type === 'ExternalName' || old.type === 'ExternalName') return [];
  if (isHeadless(old) !== isHeadless(spec) || isHeadless(spec)) return [];
  const errs: FieldError[] = [];
  const oldFams = old.ipFamilies ?? [];
  const fams = spec.ipFamilies ?? [];
  const famsGo = `[]core.IPFamily{${fams.map((f) => JSON.stringify(f)).join(', ')}}`;
  const ipsGo = goStrings(spec.clusterIPs);
  const first = index(IP_FAMILIES, 0);
  if (oldFams.length === fams.length) {
    oldFams.forEach((f, i) => { if (f !== fams[i]) errs.push(invalidGo(first, fams.length ? famsGo : '[]core.IPFamily(nil)', 'may not change once set')); });
  } else if (oldFams.length > fams.length) {
    if (!(spec.clusterIPs ?? []).length) errs.push(invalidGo(first, fams.length ? famsGo : '[]core.IPFamily(nil)', 'primary ipFamily can not be unset'));
    if (fams.length > 0 && fams[0] !== oldFams[0]) errs.push(invalidGo(first, ipsGo, 'may not change once set'));
    if (fams.length === 1 && spec.ipFamilyPolicy !== 'SingleStack') {
      errs.push(invalidGo(index(CLUSTER_IPS, 0), ipsGo, "`ipFamilyPolicy` must be set to 'SingleStack' when releasing the secondary ipFamily"));
    }
  } else if (oldFams.length > 0 && fams.length > 0 && fams[0] !== oldFams[0]) {
    errs.push(invalidGo(first, ipsGo, 'may not change once set'));
  }
  return errs;
}
