/**
 * The claims of service-account tokens, as Kubernetes writes them.
 * Bound tokens (TokenRequest): `iss`, `sub` (`system:serviceaccount:<ns>:<name>`), `aud`, `exp`,
 * `iat`, `nbf`, `jti`, and one private claim named after the flavor's domain (`orch.io` /
 * `kubernetes.io`) with the namespace, the service account and the bound pod or secret, each as
 * `{name, uid}`.
 * Legacy tokens (Secrets of the service-account-token type): issuer `<orch|kubernetes>/serviceaccount`,
 * flat claims `<domain>/serviceaccount/{namespace,secret.name,service-account.name,service-account.uid}`,
 * no expiry.
 */
import { Naming } from '../naming';
import { serviceAccountUsername } from '../meta/user';

export interface ObjectRef { name: string; uid: string }

export interface BoundPrivateClaim {
  namespace: string;
  serviceaccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
}

export interface BoundClaims {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  [privateClaim: string]: unknown;
}

export interface ClaimNames {
  /** The bound token's private claim: `orch.io` / `kubernetes.io`. */
  privateClaim: string;
  /** Issuer of legacy tokens: `orch/serviceaccount` / `kubernetes/serviceaccount`. */
  legacyIssuer: string;
  legacyNamespace: string;
  legacySecretName: string;
  legacyServiceAccountName: string;
  legacyServiceAccountUid: string;
  /** Extra keys of a service-account user: `authentication.<domain>/pod-name`, ... */
  extraPodName: string;
  extraPodUid: string;
  extraCredentialId: string;
}

export function claimNames(naming: Naming): ClaimNames {
  const d = naming.labelDomain;
  const legacy = `${d}/serviceaccount/`;
  return {
    privateClaim: d,
    legacyIssuer: `${naming.flavor === 'orch' ? 'orch' : 'kubernetes'}/serviceaccount`,
    legacyNamespace: `${legacy}namespace`,
    legacySecretName: `${legacy}secret.name`,
    legacyServiceAccountName: `${legacy}service-account.name`,
    legacyServiceAccountUid: `${legacy}service-account.uid`,
    extraPodName: `authentication.${d}/pod-name`,
    extraPodUid: `authentication.${d}/pod-uid`,
    extraCredentialId: `authentication.${d}/credential-id`,
  };
}

export interface BoundTokenSpec {
  namespace: string;
  serviceAccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  audiences: string[];
  expirationSeconds: number;
}

export function boundClaims(names: ClaimNames, issuer: string, spec: BoundTokenSpec, nowSeconds: number, jti: string): BoundClaims {
  const priv: BoundPrivateClaim = { namespace: spec.namespace, serviceaccount: spec.serviceAccount };
  if (spec.pod) priv.pod = spec.pod;
  else if (spec.secret) priv.secret = spec.secret;
  return {
    aud: spec.audiences, exp: nowSeconds + spec.expirationSeconds, iat: nowSeconds, iss: issuer, jti,
    [names.privateClaim]: priv, nbf: nowSeconds, sub: serviceAccountUsername(spec.namespace, spec.serviceAccount.name),
  };
}

export function legacyClaims(names: ClaimNames, namespace: string, serviceAccount: ObjectRef, secretName: string): Record<string, string> {
  return {
    iss: names.legacyIssuer,
    [names.legacyNamespace]: namespace,
    [names.legacySecretName]: secretName,
    [names.legacyServiceAccountName]: serviceAccount.name,
    [names.legacyServiceAccountUid]: serviceAccount.uid,
    sub: serviceAccountUsername(namespace, serviceAccount.name),
  };
}
