/**
 * Kubernetes' ValidateKubeletClientCSR and ValidateKubeletServingCSR (pkg/apis/certificates
 * helpers), with Kubernetes' messages: the rules of the kubelet signers (lib/certificates), and
 * what certificates/v1beta1's signerName defaulting recognises (IsKubeletClientCSR,
 * IsKubeletServingCSR: the rule passes).
 */
import { ParsedCsr } from './csr-parse';

/** A rule check: the reason the request does not fit, or undefined. */
export type KubeletCsrRule = (csr: ParsedCsr, usages: readonly string[]) => string | undefined;

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
export const kubeletClientRule: KubeletCsrRule = (csr, usages) => {
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
export const kubeletServingRule: KubeletCsrRule = (csr, usages) => {
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
