/**
 * CertificateSigningRequest (certificates/v1, cluster-scoped, short name `csr`): a PKCS#10
 * request for a certificate from a named signer. The creating user is recorded in the spec;
 * approval (Approved/Denied conditions) goes through `/approval`, issuance (status.certificate)
 * through `/status`; the CertificateApproval and CertificateSigning admission plugins check the
 * caller's `approve` / `sign` right on the signer. DELETE answers the object.
 */
import { ResourceDef } from '../../../scheme/types';
import { certificateSigningRequestSchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { Naming } from '../../../naming';
import { csrTable } from './table';
import { specOf, validateCsrCreate, validateCsrUpdate } from './validation';
import {
  applyApprovalUpdate, applyStatusUpdate, defaultCsr, populateConditionTimestamps, prepareCsrCreate, prepareCsrUpdate,
} from './strategy';

const KIND = 'CertificateSigningRequest';

/** The kind, in `certificates.<domain>`. */
export function certificateSigningRequestResource(naming: Naming): ResourceDef {
  const group = naming.group('certificates');
  const legacySigner = `${naming.labelDomain}/legacy-unknown`;
  const subVerbs = ['get', 'patch', 'update'];
  return {
    group, version: 'v1', kind: KIND, listKind: 'CertificateSigningRequestList',
    resource: 'certificatesigningrequests', singular: 'certificatesigningrequest', namespaced: false,
    shortNames: ['csr'], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [
      { name: 'approval', kind: KIND, verbs: subVerbs, applyUpdate: applyApprovalUpdate },
      { name: 'status', kind: KIND, verbs: subVerbs, applyUpdate: applyStatusUpdate(legacySigner, group) },
    ],
    deleteReturnsStatus: false,
    // Kubernetes does not care what requests are called: any name that fits in a path.
    nameValidation: 'path-segment',
    schema: certificateSigningRequestSchema,
    table: csrTable,
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, certificateSigningRequestSchema, KIND),
      default: defaultCsr,
      prepareForCreate: prepareCsrCreate,
      prepareForUpdate: prepareCsrUpdate,
      validate: (obj) => validateCsrCreate(obj, legacySigner),
      validateUpdate: (obj, old) => validateCsrUpdate(obj, old, legacySigner),
      // In-process writers (controllers) may leave timestamps to the server.
      canonicalize: (obj) => populateConditionTimestamps(obj),
      fieldSet: (obj) => ({ 'spec.signerName': String(specOf(obj).signerName ?? '') }),
      selectableFields: ['spec.signerName'],
    },
  };
}
