/**
 * CertificateSigning: an update of `certificatesigningrequests/status` that changes
 * status.certificate or status.conditions needs `sign` on the request's signer (`signers`,
 * `<signerName>` or `<domain>/*`); otherwise 403 `user not permitted to sign requests with
 * signerName "..."`. The signer is read from the stored request.
 *
 * Acts only on the CertificateSigningRequest kind, which issue 16 serves; until then no request
 * reaches it (it is tested with hand-made attributes).
 */
import { AdmissionPlugin } from '../interfaces';
import { userOf } from '../../registry/admission-attributes';
import { errors } from '../../meta/api-errors';
import { Authorizer } from '../../authz/authorizer';
import { ApiObject } from '../../scheme/types';
import { semanticEqual } from '../../registry/core/semantic-equal';
import { admissionForbidden } from './admission-forbidden';
import { CSR_RESOURCE, isCsrRequest, signerNameOf } from './csr-object';
import { isAuthorizedForSignerName } from './signer-authorization';

const statusOf = (csr: ApiObject) => (csr.status ?? {}) as { certificate?: unknown; conditions?: unknown };
/** Go's reflect.DeepEqual of two byte slices as JSON carries them: unset and "" differ only in Go (nil vs empty), not on the wire. */
const sameBytes = (a: unknown, b: unknown) => (a ?? '') === (b ?? '');

/**
 * @param holder the server's authorization (set before anything is served)
 * @param certificatesGroup `certificates.<domain>`
 */
export function certificateSigning(holder: { authorization?: { chain: Authorizer } }, certificatesGroup: string): AdmissionPlugin {
  return {
    name: 'CertificateSigning',
    resources: [`${certificatesGroup}/${CSR_RESOURCE}`],
    async validate(attrs) {
      if (attrs.operation !== 'UPDATE' || !isCsrRequest(attrs, certificatesGroup, 'status')) return;
      if (!attrs.oldObject) throw admissionForbidden(attrs, 'expected type CertificateSigningRequest, got: <nil>');
      if (!attrs.object) throw admissionForbidden(attrs, 'expected type CertificateSigningRequest, got: <nil>');
      const before = statusOf(attrs.oldObject);
      const after = statusOf(attrs.object);
      if (sameBytes(before.certificate, after.certificate) && semanticEqual(before.conditions, after.conditions)) return;
      const authorizer = holder.authorization?.chain;
      if (!authorizer) throw errors.internal('CertificateSigning requires an authorizer');
      const signerName = signerNameOf(attrs.oldObject);
      if (!await isAuthorizedForSignerName(authorizer, userOf(attrs), 'sign', certificatesGroup, signerName)) {
        throw admissionForbidden(attrs, `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`);
      }
    },
  };
}
