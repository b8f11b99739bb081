/**
 * The flags of the server's connections to kubelets, as kube-apiserver 1.32 has them
 * (pkg/kubelet/client KubeletClientConfig): the client certificate and key presented to the
 * kubelet, the CA its serving certificate must chain to (none: not verified, as kube-apiserver),
 * the node address types tried in order, and the timeout of a kubelet request. Parsed by
 * lib/server/flags.ts; read by lib/kubelet/client.ts.
 */
import type { ServerConfig } from '../config';
import { bool, duration, flag, givenTogether, list, text, type FlagDef, type FlagProblem } from '../flag-definitions';

/** Kubernetes' NodeAddressType values. */
export const NODE_ADDRESS_TYPES = ['Hostname', 'InternalIP', 'ExternalIP', 'InternalDNS', 'ExternalDNS'] as const;
export type NodeAddressType = typeof NODE_ADDRESS_TYPES[number];

export const KUBELET_FLAGS: readonly FlagDef[] = [
  flag('kubelet-client-certificate', 'kubeletClientCertificate', text, '', 'Path to a client cert file for TLS.'),
  flag('kubelet-client-key', 'kubeletClientKey', text, '', 'Path to a client key file for TLS.'),
  flag('kubelet-certificate-authority', 'kubeletCertificateAuthority', text, '', 'Path to a cert file for the certificate authority.'),
  flag('kubelet-preferred-address-types', 'kubeletPreferredAddressTypes', list<NodeAddressType>(NODE_ADDRESS_TYPES),
    ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'],
    'List of the preferred NodeAddressTypes to use for kubelet connections.',
    { check: (v: string[]) => (v.length ? undefined : 'must name at least one address type') }),
  flag('kubelet-timeout', 'kubeletTimeoutMs', duration, 5_000, 'Timeout for kubelet operations.'),
  flag('kubelet-https', 'kubeletHttps', bool, true,
    'Use https for kubelet connections (kube-apiserver had it until 1.21). false dials kubelets in plain HTTP: only for '
    + 'kubelets that serve no TLS, such as kubemark\'s hollow kubelets; never across an untrusted network.'),
];

/** The client pair: both files or neither. */
export function kubeletFlagsProblem(c: ServerConfig): FlagProblem | undefined {
  return givenTogether('kubelet-client-certificate', c.kubeletClientCertificate, 'kubelet-client-key', c.kubeletClientKey);
}
