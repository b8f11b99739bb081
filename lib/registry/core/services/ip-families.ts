/**
 * initIPFamilyFields of Kubernetes 1.32's service REST (pkg/registry/core/service/storage/alloc.go):
 * ipFamilyPolicy and ipFamilies defaulted from the cluster's ranges (SingleStack unless asked,
 * RequireDualStack for a headless service without selector, the families inferred from given
 * addresses, the second family added for dual-stack policies on a dual-stack cluster), and the
 * refusals of families or policies the cluster cannot serve. Throws a 422 Invalid.
 */
import type { ApiObject } from '../../../scheme/types';
import { FieldError, fieldErrors, index } from '../../../meta/field-errors';
import { goStrings } from '../../../meta/go-print';
import { errors } from '../../../meta/api-errors';
import { validateClusterIPsRelatedFields } from './cluster-ip-validation';
import { familyOf } from './ip-range';
import { ServiceNetwork, rangeOfFamily } from './network';
import { CLUSTER_IP_NONE, ServiceSpec, sameClusterIPs, sameIPFamilies, specOf } from './spec';

const invalid = (obj: ApiObject, errs: FieldError[]) => errors.invalid('Service', '', String(obj.metadata?.name ?? ''), errs);

/** isMatchingPreferDualStackClusterIPFields: a PreferDualStack service whose IP fields did not change is left alone. */
function matchingPreferDualStack(spec: ServiceSpec, old?: ServiceSpec): boolean {
  if (!old || old.ipFamilyPolicy !== 'PreferDualStack' || spec.ipFamilyPolicy !== 'PreferDualStack') return false;
  return sameClusterIPs(old, spec) && sameIPFamilies(old, spec);
}

export function initIPFamilyFields(net: ServiceNetwork, obj: ApiObject, oldObj?: ApiObject): void {
  const spec = specOf(obj);
  const old = oldObj ? specOf(oldObj) : undefined;
  if (spec.type === 'ExternalName') return;
  if (matchingPreferDualStack(spec, old)) return;
  const headlessNoSelector = spec.clusterIP === CLUSTER_IP_NONE && Object.keys(spec.selector ?? {}).length === 0;
  if (!spec.ipFamilyPolicy) {
    if (old?.ipFamilyPolicy) spec.ipFamilyPolicy = old.ipFamilyPolicy;
    else spec.ipFamilyPolicy = headlessNoSelector ? 'RequireDualStack' : 'SingleStack';
  }
  const pre = validateClusterIPsRelatedFields(spec);
  if (pre.length) throw invalid(obj, pre);
  const errs: FieldError[] = [];
  const policyPath = 'spec.ipFamilyPolicy';
  if (old) {
    if (spec.ipFamilyPolicy === 'SingleStack') {
      if (sameClusterIPs(old, spec) && (spec.clusterIPs?.length ?? 0) > 1) spec.clusterIPs = spec.clusterIPs!.slice(0, 1);
      if (sameIPFamilies(old, spec) && (spec.ipFamilies?.length ?? 0) > 1) spec.ipFamilies = spec.ipFamilies!.slice(0, 1);
    } else {
      const reduced = (a?: unknown[], b?: unknown[]) => (a?.length ?? 0) === 2 && (b?.length ?? 0) === 1;
      if (reduced(old.clusterIPs, spec.clusterIPs)) errs.push(fieldErrors.invalid(policyPath, spec.ipFamilyPolicy, "must be 'SingleStack' to release the secondary cluster IP"));
      if (reduced(old.ipFamilies, spec.ipFamilies)) errs.push(fieldErrors.invalid(policyPath, spec.ipFamilyPolicy, "must be 'SingleStack' to release the secondary IP family"));
    }
  }
  if (spec.ipFamilyPolicy === 'SingleStack') {
    if (spec.clusterIPs?.length === 2) errs.push(fieldErrors.invalid(policyPath, spec.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
    if (spec.ipFamilies?.length === 2) errs.push(fieldErrors.invalid(policyPath, spec.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
  }
  const ips = spec.clusterIPs ?? [];
  for (let i = 0; i < ips.length; i++) {
    if (ips[i] === CLUSTER_IP_NONE) break;
    const fam = familyOf(ips[i]);
    if (!fam || i < (spec.ipFamilies?.length ?? 0)) continue;
    if (!rangeOfFamily(net, fam)) {
      errs.push({ type: 'FieldValueInvalid', field: index('spec.clusterIPs', i), message: `Invalid value: ${goStrings(spec.clusterIPs)}: ${fam} is not configured on this cluster` });
    } else {
      spec.ipFamilies = [...(spec.ipFamilies ?? []), fam];
    }
  }
  if (errs.length) throw invalid(obj, errs);
  const other = (f: string) => (f === 'IPv4' ? 'IPv6' : 'IPv4');
  if (headlessNoSelector) {
    if (!spec.ipFamilies?.length) spec.ipFamilies = [net.primaryFamily];
    if (spec.ipFamilies.length < 2 && spec.ipFamilyPolicy !== 'SingleStack') spec.ipFamilies = [...spec.ipFamilies, other(spec.ipFamilies[0])];
    return;
  }
  if (spec.ipFamilyPolicy === 'RequireDualStack' && net.ipRanges.length < 2) {
    errs.push(fieldErrors.invalid(policyPath, spec.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
  }
  (spec.ipFamilies ?? []).forEach((f, i) => {
    if (!rangeOfFamily(net, f as 'IPv4' | 'IPv6')) errs.push(fieldErrors.invalid(index('spec.ipFamilies', i), f, 'not configured on this cluster'));
  });
  if (errs.length) throw invalid(obj, errs);
  if (!spec.ipFamilies?.length) spec.ipFamilies = [net.primaryFamily];
  if (spec.ipFamilyPolicy !== 'SingleStack' && spec.ipFamilies.length === 1 && net.ipRanges.length === 2) {
    spec.ipFamilies = [...spec.ipFamilies, other(spec.ipFamilies[0])];
  }
}
