/**
 * What conversion needs to know of a CRD, read once per converter, and the checks Kubernetes'
 * crConverter makes before any strategy runs: the target and every object's version must be
 * versions of the CRD (served or not: objects stored in an unserved version still convert).
 */
import { ApiObject } from '../../scheme/types';
import { crdNames, crdSpec, crdStatus, crdVersions } from '../../registry/apiextensions/custom-resource-definitions/view';
import { ConversionError } from './conversion-error';
import { groupVersionString } from './go-names';

/** The CRD's group, kinds and versions, as conversion uses them. */
export interface CrdConversionInfo {
  /** metadata.name (`<plural>.<group>`). */
  name: string;
  group: string;
  kind: string;
  listKind: string;
  /** Every version of spec.versions. */
  versions: ReadonlySet<string>;
}

/** Reads the info from a CRD (accepted names first, as the served kinds are those). */
export function conversionInfoOf(crd: ApiObject): CrdConversionInfo {
  const spec = crdSpec(crd);
  const accepted = crdStatus(crd).acceptedNames ?? {};
  const names = crdNames(spec);
  const kind = accepted.kind || names.kind || '';
  return {
    name: String(crd.metadata?.name ?? ''),
    group: typeof spec.group === 'string' ? spec.group : '',
    kind,
    listKind: accepted.listKind || names.listKind || `${kind}List`,
    versions: new Set(crdVersions(spec).map((v) => v.name).filter((n): n is string => typeof n === 'string')),
  };
}

/**
 * Throws Kubernetes' error when `toVersion` or an object's apiVersion is not a version of the
 * CRD. `list`: the objects are a list's items (Kubernetes names the index).
 */
export function checkVersions(info: CrdConversionInfo, objects: readonly ApiObject[], toVersion: string, list: boolean): void {
  const valid = (apiVersion: unknown): boolean => {
    if (typeof apiVersion !== 'string') return false;
    const slash = apiVersion.indexOf('/');
    return slash > 0 && apiVersion.slice(0, slash) === info.group && info.versions.has(apiVersion.slice(slash + 1));
  };
  if (!info.versions.has(toVersion)) {
    throw new ConversionError(`request to convert CR to an invalid group/version: ${info.group}/${toVersion}`);
  }
  objects.forEach((o, i) => {
    if (valid(o.apiVersion)) return;
    const gv = groupVersionString(o.apiVersion);
    throw new ConversionError(list
      ? `request to convert CR list failed, list index ${i} has invalid group/version: ${gv}`
      : `request to convert CR from an invalid group/version: ${gv}`);
  });
}
