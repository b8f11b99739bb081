/**
 * The deprecation of a custom-resource version: served with a `Warning` that is the version's
 * `deprecationWarning`, or Kubernetes' default `<group>/<version> <Kind> is deprecated; use
 * <group>/<v> <Kind>` naming the highest-priority served, non-deprecated version that ranks above
 * the deprecated one (the `; use` part left out when there is none). Kind is `spec.names.kind`.
 */
import { ApiDeprecation } from '../../scheme/types';
import { CrdSpec, CrdVersion, crdNames, crdVersions } from '../../registry/apiextensions/custom-resource-definitions/view';
import { compareKubeAwareVersions } from '../../meta/kube-version';

/** Kubernetes' default warning text for a deprecated version of the CRD with this spec. */
export function defaultDeprecationWarning(version: string, spec: CrdSpec): string {
  const kind = String(crdNames(spec).kind ?? '');
  const text = `${spec.group}/${version} ${kind} is deprecated`;
  const better = crdVersions(spec)
    .filter((v) => v.served === true && v.deprecated !== true && compareKubeAwareVersions(version, String(v.name ?? '')) < 0)
    .map((v) => String(v.name))
    .sort((x, y) => compareKubeAwareVersions(y, x));
  return better.length ? `${text}; use ${spec.group}/${better[0]} ${kind}` : text;
}

/** The ApiDeprecation of a version, or undefined when it is not deprecated. */
export function crDeprecation(v: CrdVersion, spec: CrdSpec): ApiDeprecation | undefined {
  if (v.deprecated !== true) return undefined;
  const warning = typeof v.deprecationWarning === 'string' ? v.deprecationWarning : defaultDeprecationWarning(String(v.name), spec);
  return { warning };
}
