/**
 * The rules of the built-in signers (the spec's signer table; Kubernetes' signer.go and
 * certificates helpers), with Kubernetes' messages: a request that breaks its signer's rules is
 * marked Failed with the message as it is, so clients see the words kube-controller-manager writes.
 */
import { Naming } from '../naming';
import { ParsedCsr } from './csr-parse';

/** A rule check: the reason the request may not be signed, or undefined. */
export type SignerRule = (csr: ParsedCsr, usages: readonly string[]) => string | undefined;

const NODES_ORG = 'system:nodes';
const NODE_PREFIX = 'system:node:';

const sameSet = (usages: readonly string[], wanted: readonly string[]): boolean => {
  const set = new Set(usages);
  return set.size === wanted.length && wanted.every((u) => set.has(u));
};

/** Go's %v of a sorted string set. */
const goList = (items: readonly string[]): string => `[${[...items].sort().join(' ')}]`;

const orgIsNodes = (csr: ParsedCsr): boolean => csr.organizations.length === 1 && csr.organizations[0] === NODES_ORG;

const KUBELET_CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const KUBELET_CLIENT_USAGES_NO_RSA = ['digital signature', 'client auth'];
const KUBELET_SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];
const KUBELET_SERVING_USAGES_NO_RSA = ['digital signature', 'server auth'];

/** ValidateKubeletClientCSR: a node's client certificate. */
export const kubeletClientRule: SignerRule = (csr, usages) => {
  if (!orgIsNodes(csr)) return 'subject organization is not system:nodes';
  if (csr.dnsNames.length) return 'DNS subjectAltNames are not allowed';
  if (csr.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (csr.ipAddresses.length) return 'IP subjectAltNames are not allowed';
  if (csr.uris.length) return 'URI subjectAltNames are not allowed';
  if (!csr.commonName.startsWith(NODE_PREFIX)) return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, KUBELET_CLIENT_USAGES) && !sameSet(usages, KUBELET_CLIENT_USAGES_NO_RSA)) {
    return `usages did not match ${goList(KUBELET_CLIENT_USAGES)}`;
  }
  return undefined;
};

/** ValidateKubeletServingCSR: a node's serving certificate. */
export const kubeletServingRule: SignerRule = (csr, usages) => {
  if (!orgIsNodes(csr)) return 'subject organization is not system:nodes';
  if (!csr.dnsNames.length && !csr.ipAddresses.length) return 'DNS or IP subjectAltName is required';
  if (csr.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (csr.uris.length) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, KUBELET_SERVING_USAGES) && !sameSet(usages, KUBELET_SERVING_USAGES_NO_RSA)) {
    return `usages did not match ${goList(KUBELET_SERVING_USAGES)}`;
  }
  if (!csr.commonName.startsWith(NODE_PREFIX)) return 'subject common name does not begin with system:node:';
  return undefined;
};

/** A client certificate for this server: any subject (CertificateSubjectRestriction guards system:masters). */
export const apiServerClientRule: SignerRule = (_csr, usages) => {
  let clientAuth = false;
  for (const u of usages) {
    if (u === 'client auth') clientAuth = true;
    else if (u !== 'digital signature' && u !== 'key encipherment') return `invalid usage for client certificate: ${u}`;
  }
  return clientAuth ? undefined : 'missing required usage for client certificate: client auth';
};

/** legacy-unknown: no restriction (kept as Kubernetes has it; v1 refuses such requests at creation). */
export const legacyUnknownRule: SignerRule = () => undefined;

/** The built-in signers by name, with their rules. */
export function builtInSigners(naming: Naming): Map<string, SignerRule> {
  const d = naming.labelDomain;
  return new Map<string, SignerRule>([
    [`${d}/kube-apiserver-client`, apiServerClientRule],
    [`${d}/kube-apiserver-client-kubelet`, kubeletClientRule],
    [`${d}/kubelet-serving`, kubeletServingRule],
    [`${d}/legacy-unknown`, legacyUnknownRule],
  ]);
}

/** Kubernetes' IsKubeletClientCSR, for the approver. */
export const isKubeletClientCsr = (csr: ParsedCsr, usages: readonly string[]): boolean => kubeletClientRule(csr, usages) === undefined;
