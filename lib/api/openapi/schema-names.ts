/**
 * Names in the OpenAPI documents, spelled as kube-apiserver spells them so that clients and
 * generators keyed on them (`io.k8s.api.core.v1.ConfigMap`, `readCoreV1NamespacedConfigMap`,
 * tag `core_v1`) work unchanged. Both flavors use these names: a schema name is an identifier,
 * not a vendor label, and kubectl matches nothing by it; only the extensions differ by flavor.
 */
import { flavors } from '../../naming';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** Definitions of meta.k8s.io/v1 and runtime types, shared by every document. */
export const metaNames = {
  objectMeta: `${META}.ObjectMeta`,
  listMeta: `${META}.ListMeta`,
  ownerReference: `${META}.OwnerReference`,
  managedFieldsEntry: `${META}.ManagedFieldsEntry`,
  fieldsV1: `${META}.FieldsV1`,
  time: `${META}.Time`,
  status: `${META}.Status`,
  statusDetails: `${META}.StatusDetails`,
  statusCause: `${META}.StatusCause`,
  deleteOptions: `${META}.DeleteOptions`,
  preconditions: `${META}.Preconditions`,
  patch: `${META}.Patch`,
  watchEvent: `${META}.WatchEvent`,
  apiResource: `${META}.APIResource`,
  apiResourceList: `${META}.APIResourceList`,
  rawExtension: 'io.k8s.apimachinery.pkg.runtime.RawExtension',
} as const;

/** Vendor domains of both flavors: `storage.orch.io` and `storage.k8s.io` name the same Go package. */
const VENDOR_SUFFIXES = Object.values(flavors).map((n) => `.${n.domain}`);

/** Groups whose types live outside k8s.io/api. */
const OUTSIDE_API: Record<string, string> = {
  apiextensions: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions',
  apiregistration: 'io.k8s.kube-aggregator.pkg.apis.apiregistration',
};

function vendorShortName(group: string): string | undefined {
  if (!group.includes('.')) return group || 'core';
  const suffix = VENDOR_SUFFIXES.find((s) => group.endsWith(s));
  return suffix ? group.slice(0, -suffix.length).split('.')[0] : undefined;
}

/**
 * The definition name of a kind: `io.k8s.api.<short group>.<version>.<Kind>` for built-in groups
 * (`''` is `core`, `storage.k8s.io` and `storage.orch.io` are `storage`), and the reversed group
 * for any other (`stable.example.com` -> `com.example.stable.v1.CronTab`, as for CRDs).
 */
export function definitionName(group: string, version: string, kind: string): string {
  const short = vendorShortName(group);
  if (short === undefined) return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
  return `${OUTSIDE_API[short] ?? `io.k8s.api.${short}`}.${version}.${kind}`;
}

export const upperFirst = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

/** The group as operation ids spell it: `Core`, `Storage`, `RbacAuthorization`, `ExampleCom`. */
export function groupCamel(group: string): string {
  if (!group) return 'Core';
  const suffix = VENDOR_SUFFIXES.find((s) => group.endsWith(s));
  const bare = suffix ? group.slice(0, -suffix.length) : group;
  return bare.split(/[.-]/).filter(Boolean).map(upperFirst).join('');
}

/** `readCoreV1NamespacedConfigMap` from ('read', '', 'v1', 'NamespacedConfigMap'). */
export function operationId(verb: string, group: string, version: string, rest: string): string {
  return `${verb}${groupCamel(group)}${upperFirst(version)}${rest}`;
}

/** The operation tag: `core_v1`, `storage_v1`, `rbacAuthorization_v1`. */
export function tagOf(group: string, version: string): string {
  return `${lowerFirst(groupCamel(group))}_${version}`;
}
