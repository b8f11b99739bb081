/**
 * What a Pod or a PersistentVolume names, for the Node mode (Kubernetes' VisitPodSecretNames,
 * VisitPodConfigmapNames and VisitPVSecretNames): pure functions over plain JSON objects, which
 * never throw on odd shapes (a stored object is read as it is).
 */
import { ApiObject } from '../../scheme/types';

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown, key: string): Json | undefined => (isObj(v) && isObj(v[key]) ? v[key] as Json : undefined);
const list = (v: unknown, key: string): Json[] => (isObj(v) && Array.isArray(v[key]) ? (v[key] as unknown[]).filter(isObj) : []);
const str = (v: unknown, key: string): string => (isObj(v) && typeof v[key] === 'string' ? v[key] as string : '');

/** The names a pod refers to in its own namespace. */
export interface PodReferences {
  secrets: string[];
  configMaps: string[];
  /** Claims of `persistentVolumeClaim` volumes and the generated claims of `ephemeral` ones. */
  claims: string[];
  serviceAccount: string;
}

/** Init, regular and ephemeral containers, in Kubernetes' order. */
function containers(spec: Json | undefined): Json[] {
  return [...list(spec, 'initContainers'), ...list(spec, 'containers'), ...list(spec, 'ephemeralContainers')];
}

type Extract = (source: Json) => string[];

const secretRefName: Extract = (s) => [str(obj(s, 'secretRef'), 'name')];
const projected = (kind: string): Extract => (s) => list(s, 'sources').filter((p) => obj(p, kind)).map((p) => str(obj(p, kind), 'name'));

/**
 * Volume sources that name secrets, and configmaps, in Kubernetes' order: only the first source a
 * volume sets counts (a valid volume sets exactly one).
 */
const POD_SECRET_SOURCES: Array<[string, Extract]> = [
  ['azureFile', (s) => [str(s, 'secretName')]],
  ['cephfs', secretRefName], ['cinder', secretRefName], ['flexVolume', secretRefName],
  ['projected', projected('secret')],
  ['rbd', secretRefName],
  ['secret', (s) => [str(s, 'secretName')]],
  ['scaleIO', secretRefName], ['iscsi', secretRefName], ['storageos', secretRefName],
  ['csi', (s) => [str(obj(s, 'nodePublishSecretRef'), 'name')]],
];
const POD_CONFIGMAP_SOURCES: Array<[string, Extract]> = [
  ['projected', projected('configMap')],
  ['configMap', (s) => [str(s, 'name')]],
];

function firstSource(volume: Json, sources: Array<[string, Extract]>): string[] {
  for (const [key, extract] of sources) {
    const source = obj(volume, key);
    if (source) return extract(source);
  }
  return [];
}

const nonEmpty = (names: string[]): string[] => [...new Set(names.filter((n) => n))];

/** Everything the pod's spec names: volumes, env and envFrom of every container, image pull secrets. */
export function podReferences(pod: ApiObject): PodReferences {
  const spec = obj(pod, 'spec');
  const podName = str(pod.metadata, 'name');
  const secrets = list(spec, 'imagePullSecrets').map((r) => str(r, 'name'));
  const configMaps: string[] = [];
  const claims: string[] = [];
  for (const c of containers(spec)) {
    for (const e of list(c, 'envFrom')) {
      if (obj(e, 'secretRef')) secrets.push(str(obj(e, 'secretRef'), 'name'));
      if (obj(e, 'configMapRef')) configMaps.push(str(obj(e, 'configMapRef'), 'name'));
    }
    for (const e of list(c, 'env')) {
      const from = obj(e, 'valueFrom');
      if (obj(from, 'secretKeyRef')) secrets.push(str(obj(from, 'secretKeyRef'), 'name'));
      if (obj(from, 'configMapKeyRef')) configMaps.push(str(obj(from, 'configMapKeyRef'), 'name'));
    }
  }
  for (const v of list(spec, 'volumes')) {
    secrets.push(...firstSource(v, POD_SECRET_SOURCES));
    configMaps.push(...firstSource(v, POD_CONFIGMAP_SOURCES));
    if (obj(v, 'persistentVolumeClaim')) claims.push(str(obj(v, 'persistentVolumeClaim'), 'claimName'));
    else if (obj(v, 'ephemeral')) claims.push(`${podName}-${str(v, 'name')}`);
  }
  return {
    secrets: nonEmpty(secrets), configMaps: nonEmpty(configMaps), claims: nonEmpty(claims),
    serviceAccount: str(spec, 'serviceAccountName'),
  };
}

export interface NamespacedName {
  namespace: string;
  name: string;
}

/**
 * Secrets a PersistentVolume hands to the node agent (controller-side secrets of CSI are not
 * visible to it). A reference without its own namespace means the bound claim's namespace.
 */
export function persistentVolumeSecrets(pv: ApiObject): NamespacedName[] {
  const spec = obj(pv, 'spec');
  const claimNamespace = str(obj(spec, 'claimRef'), 'namespace');
  const out: NamespacedName[] = [];
  const add = (namespace: string, name: string) => { if (name) out.push({ namespace, name }); };
  const ref = (source: Json | undefined, key: string, fallback: string | undefined) => {
    const r = obj(source, key);
    if (r) add(str(r, 'namespace') || (fallback ?? ''), str(r, 'name'));
  };
  if (obj(spec, 'azureFile')) {
    const a = obj(spec, 'azureFile');
    add(str(a, 'secretNamespace') || claimNamespace, str(a, 'secretName'));
  } else if (obj(spec, 'cephfs')) ref(obj(spec, 'cephfs'), 'secretRef', claimNamespace);
  // Cinder's and StorageOS's references are used with their own namespace only.
  else if (obj(spec, 'cinder')) ref(obj(spec, 'cinder'), 'secretRef', undefined);
  else if (obj(spec, 'flexVolume')) ref(obj(spec, 'flexVolume'), 'secretRef', claimNamespace);
  else if (obj(spec, 'rbd')) ref(obj(spec, 'rbd'), 'secretRef', claimNamespace);
  else if (obj(spec, 'scaleIO')) ref(obj(spec, 'scaleIO'), 'secretRef', claimNamespace);
  else if (obj(spec, 'iscsi')) ref(obj(spec, 'iscsi'), 'secretRef', claimNamespace);
  else if (obj(spec, 'storageos')) ref(obj(spec, 'storageos'), 'secretRef', undefined);
  else if (obj(spec, 'csi')) {
    for (const key of ['nodePublishSecretRef', 'nodeStageSecretRef', 'nodeExpandSecretRef']) ref(obj(spec, 'csi'), key, undefined);
  }
  return out;
}
