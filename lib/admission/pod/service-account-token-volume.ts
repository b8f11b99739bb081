/**
 * The volume the ServiceAccount plugin gives a pod: `kube-api-access-<5 random characters>`, a
 * projected volume of a bound token (expirationSeconds 3607, which the token issuer treats as
 * an hour with a warning-only extension), the root-CA ConfigMap's ca.crt and the namespace,
 * mounted read-only at the service-account path in every init container and container that
 * has nothing mounted there yet. Ephemeral containers get no mount, as in Kubernetes.
 */
import { Naming } from '../../naming';
import { generateNameFrom } from '../../registry/system-fields';
import { Json, objects, podContainers, str } from './pod-json';

/** Prefix of the volume's name (Kubernetes' ServiceAccountVolumeName). */
export const TOKEN_VOLUME_PREFIX = 'kube-api-access-';

/** Kubernetes' WarnOnlyBoundTokenExpirationSeconds. */
const TOKEN_EXPIRATION_SECONDS = 3607;

/** 0644, written out as Kubernetes does (kubernetes/kubernetes#104464). */
const DEFAULT_MODE = 420;

/** Where the token, ca.crt and namespace files appear in containers. */
export const tokenMountPath = (naming: Naming): string => `/var/run/secrets/${naming.labelDomain}/serviceaccount`;

/** The projected volume source of the token, CA and namespace. */
export function tokenVolumeSource(naming: Naming): Json {
  return {
    defaultMode: DEFAULT_MODE,
    sources: [
      { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
      { configMap: { name: naming.rootCaConfigMapName, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  };
}

/**
 * Mounts the token volume in `spec` (changed in place): an existing `kube-api-access-*` volume
 * is reused, otherwise one is added when some container got the mount.
 */
export function mountServiceAccountToken(spec: Json, naming: Naming, generateName: (prefix: string) => string = generateNameFrom): void {
  const existing = objects(spec, 'volumes').find((v) => str(v, 'name').startsWith(TOKEN_VOLUME_PREFIX));
  const volumeName = existing ? str(existing, 'name') : generateName(TOKEN_VOLUME_PREFIX);
  const mountPath = tokenMountPath(naming);
  let mounted = false;
  for (const { container } of podContainers(spec, ['initContainers', 'containers'])) {
    // A container with something at the path already keeps it.
    if (objects(container, 'volumeMounts').some((m) => str(m, 'mountPath') === mountPath)) continue;
    const mounts = Array.isArray(container.volumeMounts) ? container.volumeMounts as unknown[] : (container.volumeMounts = []) as unknown[];
    mounts.push({ name: volumeName, readOnly: true, mountPath });
    mounted = true;
  }
  if (existing || !mounted) return;
  const volumes = Array.isArray(spec.volumes) ? spec.volumes as unknown[] : (spec.volumes = []) as unknown[];
  volumes.push({ name: volumeName, projected: tokenVolumeSource(naming) });
}
