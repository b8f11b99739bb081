/**
 * CertificateSubjectRestriction: a new CertificateSigningRequest for the
 * `<domain>/kube-apiserver-client` signer whose subject names the organization (group)
 * `system:masters` is refused (403 `use of <signer> signer with system:masters group is not
 * allowed`): a certificate from that signer would make its holder a cluster superuser.
 *
 * Acts only on the CertificateSigningRequest kind, which issue 16 serves; until then no request
 * reaches it (it is tested with hand-made attributes).
 */
import { AdmissionPlugin } from '../interfaces';
import { SYSTEM_MASTERS } from '../../meta/user';
import { admissionForbidden } from './admission-forbidden';
import { CSR_RESOURCE, csrOrganizations, isCsrRequest, signerNameOf } from './csr-object';

/**
 * @param certificatesGroup `certificates.<domain>`
 * @param clientSigner `<labelDomain>/kube-apiserver-client`
 */
export function certificateSubjectRestriction(certificatesGroup: string, clientSigner: string): AdmissionPlugin {
  return {
    name: 'CertificateSubjectRestriction',
    resources: [`${certificatesGroup}/${CSR_RESOURCE}`],
    async validate(attrs) {
      if (attrs.operation !== 'CREATE' || !isCsrRequest(attrs, certificatesGroup, '')) return;
      if (!attrs.object) throw admissionForbidden(attrs, 'expected type CertificateSigningRequest, got: <nil>');
      if (signerNameOf(attrs.object) !== clientSigner) return;
      let organizations: string[];
      try {
        organizations = csrOrganizations((attrs.object.spec as { request?: unknown } | undefined)?.request);
      } catch (err) {
        throw admissionForbidden(attrs, `failed to parse CSR: ${(err as Error).message}`);
      }
      if (organizations.includes(SYSTEM_MASTERS)) {
        throw admissionForbidden(attrs, `use of ${clientSigner} signer with ${SYSTEM_MASTERS} group is not allowed`);
      }
    },
  };
}
