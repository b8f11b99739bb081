/**
 * ServiceAccount: on pod creation sets `serviceAccountName` to `default` when empty, requires
 * the account to exist, mounts its token (projected volume) unless the pod's or else the
 * account's `automountServiceAccountToken` is false, copies the account's imagePullSecrets to
 * a pod without any, and, when the account is annotated `<domain>/enforce-mountable-secrets:
 * "true"`, refuses secrets the account does not list. Mirror pods are left unchanged and may
 * not name an account, secrets or token projections. Updates are only checked for the
 * ephemeral containers they add. Refusals are Kubernetes' (403 with its sentences).
 */
import { AdmissionPlugin } from '../interfaces';
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { ApiError } from '../../meta/api-errors';
import { ApiObject } from '../../scheme/types';
import { Naming } from '../../naming';
import { Json, objects, podAnnotations, podSpec, str } from './pod-json';
import { admissionForbidden, isPodWrite } from './pod-attributes';
import { containerSecretViolation, projectsServiceAccountToken, referencesSecrets, secretReferenceViolation } from './pod-secret-references';
import { mountServiceAccountToken } from './service-account-token-volume';

const DEFAULT_ACCOUNT = 'default';

/** Reads a ServiceAccount: `live` false may answer from the watch cache; undefined when missing. */
export type ServiceAccountGetter = (namespace: string, name: string, live: boolean) => Promise<ApiObject | undefined>;

export interface ServiceAccountOptions {
  /** Live reads of a `default` account missing from the cache (its controller may be creating it). */
  defaultAttempts?: number;
  /** Pause between those reads, in ms (Kubernetes: 100 to 200). */
  retryIntervalMs?: () => number;
  /** Draws the token volume's name (tests fix it). */
  generateName?: (prefix: string) => string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Go's strconv.ParseBool truths. */
const isTrue = (v: string | undefined): boolean => ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v ?? '');

export function serviceAccountPlugin(naming: Naming, getAccount: ServiceAccountGetter, opts: ServiceAccountOptions = {}): AdmissionPlugin {
  const mirrorAnnotation = `${naming.labelDomain}/config.mirror`;
  const enforceAnnotation = `${naming.labelDomain}/enforce-mountable-secrets`;
  const attempts = opts.defaultAttempts ?? 10;
  const interval = opts.retryIntervalMs ?? (() => 100 + Math.floor(Math.random() * 100));

  const notFound = (name: string) => new ApiError(404, 'NotFound', `serviceaccount "${name}" not found`);

  /** The account from the cache, else read live (several times for `default`). */
  async function lookUp(attrs: AdmissionAttributes, name: string): Promise<Json> {
    const namespace = attrs.namespace ?? '';
    try {
      const cached = await getAccount(namespace, name, false);
      if (cached) return cached as Json;
      const tries = name === DEFAULT_ACCOUNT ? attempts : 1;
      const pause = interval();
      for (let i = 0; i < tries; i++) {
        if (i) await sleep(pause);
        const live = await getAccount(namespace, name, true);
        if (live) return live as Json;
      }
      throw notFound(name);
    } catch (err) {
      throw admissionForbidden(attrs, `error looking up service account ${namespace}/${name}: ${(err as Error).message}`);
    }
  }

  const enforces = (account: Json): boolean => isTrue(podAnnotations(account as ApiObject)[enforceAnnotation]);

  /** What a mirror pod may not reference. */
  function checkMirrorPod(attrs: AdmissionAttributes, spec: Json): void {
    if (str(spec, 'serviceAccountName')) throw admissionForbidden(attrs, 'a mirror pod may not reference service accounts');
    if (referencesSecrets(spec)) throw admissionForbidden(attrs, 'a mirror pod may not reference secrets');
    if (projectsServiceAccountToken(spec)) throw admissionForbidden(attrs, 'a mirror pod may not use ServiceAccountToken volume projections');
  }

  async function validate(attrs: AdmissionAttributes): Promise<void> {
    if (!isPodWrite(attrs, ['ephemeralcontainers'])) return;
    const pod = attrs.object!;
    const spec = podSpec(pod);
    const accountName = str(spec, 'serviceAccountName');
    const ephemeral = attrs.operation === 'UPDATE' && attrs.subresource === 'ephemeralcontainers';
    if (!ephemeral && (attrs.operation !== 'CREATE' || attrs.subresource)) return;
    if (!ephemeral && mirrorAnnotation in podAnnotations(pod)) return checkMirrorPod(attrs, spec);
    if (!accountName) throw admissionForbidden(attrs, `no service account specified for pod ${attrs.namespace}/${pod.metadata?.name ?? ''}`);
    const account = await lookUp(attrs, accountName);
    if (!enforces(account)) return;
    const violation = ephemeral ? containerSecretViolation(spec, account, ['ephemeralContainers']) : secretReferenceViolation(spec, account);
    if (violation) throw admissionForbidden(attrs, violation);
  }

  return {
    name: 'ServiceAccount',
    resources: ['/pods'],
    async admit(attrs) {
      // Only new pods are changed; the spec fields involved are immutable afterwards.
      if (!isPodWrite(attrs) || attrs.operation !== 'CREATE') return;
      const pod = attrs.object!;
      if (mirrorAnnotation in podAnnotations(pod)) return validate(attrs);
      const spec = podSpec(pod, true);
      if (!str(spec, 'serviceAccountName')) {
        spec.serviceAccountName = DEFAULT_ACCOUNT;
        // v1 shows the deprecated spelling beside it, as Kubernetes' conversion writes it.
        spec.serviceAccount = DEFAULT_ACCOUNT;
      }
      const account = await lookUp(attrs, spec.serviceAccountName as string);
      const automount = typeof spec.automountServiceAccountToken === 'boolean' ? spec.automountServiceAccountToken
        : typeof account.automountServiceAccountToken === 'boolean' ? account.automountServiceAccountToken : true;
      if (automount) mountServiceAccountToken(spec, naming, opts.generateName);
      if (!objects(spec, 'imagePullSecrets').length) {
        const pulls = objects(account, 'imagePullSecrets').map((r) => ({ name: str(r, 'name') }));
        if (pulls.length) spec.imagePullSecrets = pulls;
      }
      return validate(attrs);
    },
    validate,
  };
}

