/**
 * The CertificateSigningRequest Table (kubectl get csr): NAME, AGE, SIGNERNAME, REQUESTOR,
 * REQUESTEDDURATION, CONDITION, as Kubernetes' printCertificateSigningRequest fills them.
 */
import { ApiObject } from '../../../scheme/types';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { humanDuration, translateTimestampSince } from '../../../meta/human-duration';
import { conditionsOf, specOf, statusOf } from './validation';

/**
 * The CONDITION cell: Denied, else Approved, else Pending; then `,Failed` and `,Issued` (e.g.
 * `Approved,Issued`), as kubectl prints a request's state.
 */
export function csrCondition(obj: ApiObject): string {
  const types = new Set(conditionsOf(obj).map((c) => c.type));
  let out = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) out += ',Failed';
  if (statusOf(obj).certificate) out += ',Issued';
  return out;
}

/** The printed columns of CertificateSigningRequests. */
export const csrTable: TableColumns = {
  columns: [
    nameColumn,
    ageColumn,
    column('SignerName', 'string', 'Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`.'),
    column('Requestor', 'string', 'Base64-encoded PKCS#10 CSR data'),
    column('RequestedDuration', 'string', 'expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.'),
    column('Condition', 'string', 'Conditions applied to the request, such as approval or denial.'),
  ],
  cells: (obj, now) => {
    const csr = obj as ApiObject;
    const spec = specOf(csr);
    const seconds = spec.expirationSeconds;
    return [
      obj.metadata?.name ?? '', translateTimestampSince(obj.metadata?.creationTimestamp, now),
      spec.signerName || '<none>', spec.username ?? '',
      typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>',
      csrCondition(csr),
    ];
  },
};
