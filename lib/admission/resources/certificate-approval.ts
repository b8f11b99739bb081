/**
 * CertificateApproval: an update of `certificatesigningrequests/approval` needs `approve` on
 * the request's signer (`signers` of the certificates group, named `<signerName>` or
 * `<domain>/*`); otherwise 403 `user not permitted to approve requests with signerName "..."`.
 * The signer is read from the stored request, so that a change of signerName through this
 * endpoint cannot pick the signer checked.
 *
 * Acts only on the CertificateSigningRequest kind, which issue 16 serves; until then no request
 * reaches it (it is tested with hand-made attributes).
 */
import { AdmissionPlugin } from '../interfaces';
import { userOf } from '../../registry/admission-attributes';
import { errors } from '../../meta/api-errors';
import { Authorizer } from '../../authz/authorizer';
import { admissionForbidden } from './admission-forbidden';
import { CSR_RESOURCE, isCsrRequest, signerNameOf } from './csr-object';
import { isAuthorizedForSignerName } from './signer-authorization';

/**
 * @param holder the server's authorization (set before anything is served)
 * @param certificatesGroup `certificates.<domain>`
 */
export function certificateApproval(holder: { authorization?: { chain: Authorizer } }, certificatesGroup: string): AdmissionPlugin {
  return {
    name: 'CertificateApproval',
    resources: [`${certificatesGroup}/${CSR_RESOURCE}`],
    async validate(attrs) {
      if (attrs.operation !== 'UPDATE' || !isCsrRequest(attrs, certificatesGroup, 'approval')) return;
      if (!attrs.oldObject) throw admissionForbidden(attrs, 'expected type CertificateSigningRequest, got: <nil>');
      const authorizer = holder.authorization?.chain;
      // Deny by default: nothing is served before the holder is set, so this is a wiring fault.
      if (!authorizer) throw errors.internal('CertificateApproval requires an authorizer');
      const signerName = signerNameOf(attrs.oldObject);
      if (!await isAuthorizedForSignerName(authorizer, userOf(attrs), 'approve', certificatesGroup, signerName)) {
        throw admissionForbidden(attrs, `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`);
      }
    },
  };
}
