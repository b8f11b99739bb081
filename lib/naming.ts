/**
 * Every vendor name the server speaks lives here, so that one switch (`--flavor`) turns the
 * spec's `orch.io` names into Kubernetes' `k8s.io` names that stock tools expect.
 */

export type Flavor = 'orch' | 'kubernetes';

export interface Naming {
  flavor: Flavor;
  /** Vendor domain: `orch.io` or `k8s.io`. */
  domain: string;
  /** Group that carries Table, PartialObjectMetadata, Status etc.: `meta.orch.io` / `meta.k8s.io`. */
  metaGroup: string;
  /** Aggregated discovery group: `apidiscovery.orch.io` / `apidiscovery.k8s.io`. */
  discoveryGroup: string;
  /** Protobuf media type of this flavor. */
  protobufMediaType: string;
  /** Namespaces created at start-up that cannot be deleted. */
  systemNamespace: string;
  publicNamespace: string;
  defaultNamespace: string;
  /** Where node agents keep their heartbeat Leases (`orch-node-lease` / `kube-node-lease`): created at start-up, deletable. */
  nodeLeaseNamespace: string;
  /** The `spec.finalizers` token the namespace controller owns. */
  namespaceFinalizer: string;
  /** Prefix of schema extensions: `x-orch-` / `x-kubernetes-`. */
  schemaExtensionPrefix: string;
  /** A named group of this flavor, e.g. group('storage') -> `storage.orch.io`. */
  group(short: string): string;
  /** Domain of well-known label, annotation and Secret type names: `orch.io` / `kubernetes.io`. */
  labelDomain: string;
  /** Secret type of service-account tokens: `orch.io/service-account-token`. */
  serviceAccountTokenType: string;
  /** Annotation naming the service account of a token Secret: `orch.io/service-account.name`. */
  serviceAccountNameAnnotation: string;
  /** Secret type of bootstrap tokens: `bootstrap.orch.io/token`. */
  bootstrapTokenType: string;
  /** Default service-account issuer: `https://orch.default.svc.cluster.local` / `https://kubernetes.default.svc.cluster.local`. */
  defaultServiceAccountIssuer: string;
  /** The root-CA ConfigMap published to every namespace: `orch-root-ca.crt` / `kube-root-ca.crt`. */
  rootCaConfigMapName: string;
  /** Finalizer the CRD cleanup controller owns: `customresourcecleanup.apiextensions.orch.io`. */
  crdCleanupFinalizer: string;
  /** Annotation approving a CRD in a protected group: `api-approved.orch.io` / `api-approved.kubernetes.io`. */
  apiApprovedAnnotation: string;
  /**
   * Domains whose groups (the domain itself and its subdomains) need that approval: Kubernetes'
   * `k8s.io` and `kubernetes.io` and this project's `orch.io`, whatever the flavor.
   */
  protectedGroupDomains: string[];
}

function make(flavor: Flavor): Naming {
  const domain = flavor === 'orch' ? 'orch.io' : 'k8s.io';
  const system = flavor === 'orch' ? 'orch' : 'kube';
  // Kubernetes spells its well-known names with kubernetes.io, not k8s.io.
  const labelDomain = flavor === 'orch' ? 'orch.io' : 'kubernetes.io';
  return {
    flavor,
    domain,
    metaGroup: `meta.${domain}`,
    discoveryGroup: `apidiscovery.${domain}`,
    protobufMediaType: flavor === 'orch' ? 'application/vnd.orch.protobuf' : 'application/vnd.kubernetes.protobuf',
    systemNamespace: `${system}-system`,
    publicNamespace: `${system}-public`,
    defaultNamespace: 'default',
    nodeLeaseNamespace: `${system}-node-lease`,
    namespaceFinalizer: flavor === 'orch' ? 'orch' : 'kubernetes',
    schemaExtensionPrefix: flavor === 'orch' ? 'x-orch-' : 'x-kubernetes-',
    group: (short: string) => `${short}.${domain}`,
    labelDomain,
    serviceAccountTokenType: `${labelDomain}/service-account-token`,
    serviceAccountNameAnnotation: `${labelDomain}/service-account.name`,
    bootstrapTokenType: `bootstrap.${labelDomain}/token`,
    defaultServiceAccountIssuer: `https://${flavor === 'orch' ? 'orch' : 'kubernetes'}.default.svc.cluster.local`,
    rootCaConfigMapName: `${system}-root-ca.crt`,
    crdCleanupFinalizer: `customresourcecleanup.apiextensions.${domain}`,
    apiApprovedAnnotation: `api-approved.${labelDomain}`,
    protectedGroupDomains: ['k8s.io', 'kubernetes.io', 'orch.io'],
  };
}

export const flavors: Record<Flavor, Naming> = { orch: make('orch'), kubernetes: make('kubernetes') };

/** Media types accepted whatever the flavor ("both spellings are always accepted"). */
export const protobufMediaTypes = [flavors.orch.protobufMediaType, flavors.kubernetes.protobufMediaType];
export const metaGroups = [flavors.orch.metaGroup, flavors.kubernetes.metaGroup];
export const discoveryGroups = [flavors.orch.discoveryGroup, flavors.kubernetes.discoveryGroup];

export function namingFor(flavor: string): Naming {
  if (flavor !== 'orch' && flavor !== 'kubernetes') {
    throw new Error(`--flavor must be "orch" or "kubernetes", not ${JSON.stringify(flavor)}`);
  }
  return flavors[flavor];
}
