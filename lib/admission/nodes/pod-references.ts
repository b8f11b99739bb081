/**
 * What a mirror pod may not reference when a node agent creates it (NodeRestriction's
 * admitPodCreate): a service account, secrets, config maps, claims, generic ephemeral volumes,
 * resource claims. Answers the end of Kubernetes' sentence ("reference secrets"...), or undefined.
 */
import { ApiObject } from '../../scheme/types';
import { podReferences } from '../../authz/node/references';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function podReferencesOtherObjects(pod: ApiObject): string | undefined {
  const spec = isObject(pod.spec) ? pod.spec : {};
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName) return 'reference a service account';
  const refs = podReferences(pod);
  if (refs.secrets.length) return 'reference secrets';
  if (refs.configMaps.length) return 'reference configmaps';
  for (const v of Array.isArray(spec.volumes) ? spec.volumes.filter(isObject) : []) {
    if (isObject(v.persistentVolumeClaim)) return 'reference persistentvolumeclaims';
    if (isObject(v.ephemeral)) return 'use generic ephemeral volumes';
    const projected = isObject(v.projected) && Array.isArray(v.projected.sources) ? v.projected.sources.filter(isObject) : [];
    if (projected.some((s) => isObject(s.clusterTrustBundle))) return 'use clustertrustbundles';
  }
  if (Array.isArray(spec.resourceClaims) && spec.resourceClaims.length) return 'reference resourceclaims';
  return undefined;
}
