/**
 * The Secrets a pod refers to (Kubernetes' VisitPodSecretNames over every container), and the
 * mountable-secrets rule of the ServiceAccount plugin: with enforcement on, a pod may use only
 * the secrets its account lists in `secrets` and pull only with its `imagePullSecrets`.
 */
import { ContainerList, Json, obj, objects, podContainers, str } from './pod-json';

/** Volume sources whose secret is named by `secretRef.name`. */
const SECRET_REF_SOURCES = ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos'];

/** Whether the pod spec names any Secret (pull secrets, env, envFrom, volumes). */
export function referencesSecrets(spec: Json): boolean {
  if (objects(spec, 'imagePullSecrets').length) return true;
  for (const { container } of podContainers(spec)) {
    if (objects(container, 'envFrom').some((e) => obj(e, 'secretRef'))) return true;
    if (objects(container, 'env').some((e) => obj(obj(e, 'valueFrom'), 'secretKeyRef'))) return true;
  }
  return objects(spec, 'volumes').some((v) => obj(v, 'secret') || obj(v, 'azureFile')
    || SECRET_REF_SOURCES.some((s) => obj(obj(v, s), 'secretRef'))
    || obj(obj(v, 'csi'), 'nodePublishSecretRef')
    || objects(obj(v, 'projected'), 'sources').some((p) => obj(p, 'secret')));
}

/** Whether the pod uses a projected service-account token (refused on mirror pods). */
export function projectsServiceAccountToken(spec: Json): boolean {
  return objects(spec, 'volumes').some((v) => objects(obj(v, 'projected'), 'sources').some((p) => obj(p, 'serviceAccountToken')));
}

const names = (account: Json, key: string): Set<string> => new Set(objects(account, key).map((r) => str(r, 'name')));

const WHO: Record<ContainerList, string> = { initContainers: 'init container', containers: 'container', ephemeralContainers: 'ephemeral container' };

/** The first env or envFrom secret of `lists`' containers the account does not list, as Kubernetes words it. */
export function containerSecretViolation(spec: Json, account: Json, lists: ContainerList[]): string | undefined {
  const mountable = names(account, 'secrets');
  const accountName = str(obj(account, 'metadata'), 'name');
  for (const { container, list } of podContainers(spec, lists)) {
    const who = `${WHO[list]} ${str(container, 'name')}`;
    for (const env of objects(container, 'env')) {
      const ref = obj(obj(env, 'valueFrom'), 'secretKeyRef');
      if (ref && !mountable.has(str(ref, 'name'))) {
        return `${who} with envVar ${str(env, 'name')} referencing secret.secretName="${str(ref, 'name')}" is not allowed because service account ${accountName} does not reference that secret`;
      }
    }
    for (const from of objects(container, 'envFrom')) {
      const ref = obj(from, 'secretRef');
      if (ref && !mountable.has(str(ref, 'name'))) {
        return `${who} with envFrom referencing secret.secretName="${str(ref, 'name')}" is not allowed because service account ${accountName} does not reference that secret`;
      }
    }
  }
  return undefined;
}

/**
 * limitSecretReferences: secret volumes, then init containers' and containers' env and
 * envFrom, then image pull secrets. The first violation's message, or undefined.
 */
export function secretReferenceViolation(spec: Json, account: Json): string | undefined {
  const mountable = names(account, 'secrets');
  const accountName = str(obj(account, 'metadata'), 'name');
  for (const volume of objects(spec, 'volumes')) {
    const secret = obj(volume, 'secret');
    if (secret && !mountable.has(str(secret, 'secretName'))) {
      return `volume with secret.secretName="${str(secret, 'secretName')}" is not allowed because service account ${accountName} does not reference that secret`;
    }
  }
  const inContainers = containerSecretViolation(spec, account, ['initContainers', 'containers']);
  if (inContainers) return inContainers;
  const pullable = names(account, 'imagePullSecrets');
  const pulls = objects(spec, 'imagePullSecrets');
  for (let i = 0; i < pulls.length; i++) {
    if (!pullable.has(str(pulls[i], 'name'))) {
      return `imagePullSecrets[${i}].name="${str(pulls[i], 'name')}" is not allowed because service account ${accountName} does not reference that imagePullSecret`;
    }
  }
  return undefined;
}
