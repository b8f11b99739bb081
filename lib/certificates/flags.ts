/**
 * The flags of the cluster's CAs as the controllers use them (kube-controller-manager's): the CA
 * published to every namespace, and the CA the built-in CSR signers sign with. Parsed by
 * lib/server/flags.ts.
 */
import type { ServerConfig } from '../config';
import { duration, flag, givenTogether, text, type FlagDef, type FlagProblem } from '../flag-definitions';

export const CERTIFICATE_FLAGS: readonly FlagDef[] = [
  flag('root-ca-file', 'rootCaFile', text, '',
    'CA bundle published as ca.crt to every namespace and token Secret; empty: the generated CA.'),
  flag('cluster-signing-cert-file', 'clusterSigningCertFile', text, '',
    'PEM CA certificate of the built-in CSR signers; empty: the generated CA (with --cluster-signing-key-file).'),
  flag('cluster-signing-key-file', 'clusterSigningKeyFile', text, '',
    'PEM private key (RSA or EC) of --cluster-signing-cert-file.'),
  flag('cluster-signing-duration', 'clusterSigningDurationMs', duration, 8_760 * 3_600_000,
    'Longest lifetime of a certificate the built-in signers issue (spec.expirationSeconds may ask for less).', { check: (ms: number) => (ms > 0 ? undefined : 'must be positive') }),
];

/** The signing pair: both files or neither. */
export function certificateFlagsProblem(c: ServerConfig): FlagProblem | undefined {
  return givenTogether('cluster-signing-cert-file', c.clusterSigningCertFile, 'cluster-signing-key-file', c.clusterSigningKeyFile);
}
