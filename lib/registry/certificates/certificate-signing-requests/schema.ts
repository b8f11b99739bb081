/**
 * Schema of the certificates group's kind (certificates/v1): CertificateSigningRequest. As in
 * Kubernetes' types, usages and groups are atomic lists and status.conditions a map list keyed
 * by type (so an apply or a strategic merge of the approval subresource merges by type).
 */
import { Schema, atomicList, bytes, int32, mapList, object, str, time } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';

const condition: Schema = object({
  type: str('Approved, Denied, Failed, or a custom type; at most one condition of each type.'),
  status: str('True, False or Unknown (Approved, Denied and Failed: only True); defaults to True.'),
  reason: str('A brief reason for the request state.'),
  message: str('A human readable message with details about the request state.'),
  lastUpdateTime: time('The time of the last update to this condition.'),
  lastTransitionTime: time('The last time the condition transitioned from one status to another.'),
}, { required: ['type', 'status'] });

/** CertificateSigningRequest: a request for a certificate from a named signer. */
export const certificateSigningRequestSchema: Schema = kindSchema({
  spec: object({
    request: bytes('A PEM-encoded PKCS#10 certificate signing request (base64 in JSON and YAML); immutable.'),
    signerName: str('The requested signer, a qualified name (e.g. example.com/signer-name); immutable.'),
    expirationSeconds: int32('The requested duration of validity of the issued certificate (minimum 600); the signer may issue another.'),
    usages: atomicList(str(), 'The key usages requested in the issued certificate (e.g. "digital signature", "key encipherment", "client auth").'),
    username: str('The name of the user that created the request, filled by the server; immutable.'),
    uid: str('The uid of the user that created the request, filled by the server; immutable.'),
    groups: atomicList(str(), 'The group membership of the user that created the request, filled by the server; immutable.'),
    extra: { type: 'object', additionalProperties: atomicList(str()), description: 'The extra attributes of the user that created the request, filled by the server; immutable.' },
  }, { required: ['request', 'signerName'] }),
  status: object({
    conditions: mapList(condition, ['type'], 'Applied to the request: Approved, Denied, Failed.'),
    certificate: bytes('The issued certificate (PEM CERTIFICATE blocks), set by the signer through the status subresource once approved; immutable once set.'),
  }),
}, 'CertificateSigningRequest objects provide a mechanism to obtain x509 certificates by submitting a certificate signing request, and having it asynchronously approved and issued.');
