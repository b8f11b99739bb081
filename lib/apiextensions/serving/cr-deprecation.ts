/**
 * The deprecation of a custom-resource version: served with a `Warning` that is the version's
 * `deprecationWarning`, or Kubernetes' default `<group>/<version> <Kind> is deprecated; use
 * <group>/<v> <Kind>` naming the highest-priority served, non-deprecated version that ranks above
 * the deprecated one (the `; use` part left out when there is none). Kind is `spec.names.kind`.
 */
import { ApiDeprecation } from '../../scheme/types';
import { CrdSpec, CrdVersion, crdNames, crdVersions } from '../../registry/apiextensions/crd-view';

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const TYPE_RANK: Record<string, number> = { alpha: 0, beta: 1, '': 2 };

/**
 * Kubernetes' CompareKubeAwareVersionStrings: > 0 when `a` has the higher priority (GA > beta >
 * alpha > anything else; then higher major, then higher minor; other names in reverse lexical order).
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const ma = KUBE_VERSION.exec(a);
  const mb = KUBE_VERSION.exec(b);
  if (!ma && !mb) return b < a ? -1 : b > a ? 1 : 0;
  if (!ma) return -1;
  if (!mb) return 1;
  const ta = TYPE_RANK[ma[2] ?? ''];
  const tb = TYPE_RANK[mb[2] ?? ''];
  if (ta !== tb) return ta - tb;
  if (ma[1] !== mb[1]) return Number(ma[1]) - Number(mb[1]);
  return Number(ma[3] ?? 0) - Number(mb[3] ?? 0);
}

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
