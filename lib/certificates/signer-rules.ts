/**
 * The rules of the built-in signers (the spec's signer table; Kubernetes' signer.go and
 * certificates helpers), with Kubernetes' messages: a request that breaks its signer's rules is
 * marked Failed with the message as it is, so clients see the words kube-controller-manager writes.
 */
import { Naming } from '../naming';
import { ParsedCsr } from '../registry/certificates/csr-parse';
import { KubeletCsrRule, kubeletClientRule, kubeletServingRule } from '../registry/certificates/kubelet-csr-rules';

/** A rule check: the reason the request may not be signed, or undefined. */
export type SignerRule = KubeletCsrRule;

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
