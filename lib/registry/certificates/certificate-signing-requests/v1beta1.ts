/**
 * CertificateSigningRequest at certificates/v1beta1: removed from Kubernetes in 1.22 (deprecated
 * in 1.19), served here only when `--runtime-config=<certificates group>/v1beta1=true` (or
 * emulation of an earlier release) switches it on, with Kubernetes' deprecation warning. Its
 * objects are v1's (stored at v1, the same JSON); what differs is how a write is defaulted and
 * checked, as pkg/apis/certificates/v1beta1/defaults.go and the validation's v1beta1 options have it:
 * - `spec.usages` absent: `digital signature`, `key encipherment`;
 * - `spec.signerName` absent: from the request, `<domain>/kube-apiserver-client-kubelet` for a
 *   node's client certificate request, `<domain>/kubelet-serving` for a node's serving one, else
 *   (or when the request does not parse) `<domain>/legacy-unknown`;
 * - legacy-unknown, unknown and duplicate usages, duplicate and empty condition types and any
 *   certificate bytes are allowed, and `/status` may replace an issued certificate.
 * The signers and the approver (lib/certificates) act on these objects as on any other.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { Schema } from '../../../scheme/schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { Naming } from '../../../naming';
import { servedOverStorage } from '../../served-version';
import { parseCsr } from '../csr-parse';
import { kubeletClientRule, kubeletServingRule } from '../kubelet-csr-rules';
import { certificateSigningRequestResource } from './definition';
import { applyApprovalUpdate, applyStatusUpdate, defaultCsr, prepareCsrCreate } from './strategy';
import { CsrSpec, validateCsrCreate, validateCsrUpdate } from './validation';

const KIND = 'CertificateSigningRequest';
export const V1BETA1_DEFAULT_USAGES = ['digital signature', 'key encipherment'];

/** DefaultSignerNameFromSpec: the signer a request without one is meant for (its usages defaulted first). */
export function defaultSignerName(spec: CsrSpec, labelDomain: string): string {
  const usages = spec.usages ?? [];
  try {
    const csr = parseCsr(spec.request);
    if (!kubeletClientRule(csr, usages)) return `${labelDomain}/kube-apiserver-client-kubelet`;
    if (!kubeletServingRule(csr, usages)) return `${labelDomain}/kubelet-serving`;
  } catch {
    // Not a request: the legacy signer, as Kubernetes has it.
  }
  return `${labelDomain}/legacy-unknown`;
}

/** SetDefaults_CertificateSigningRequestSpec of v1beta1, in place; the spec keeps Go's field order. */
export function defaultSpecV1beta1(obj: ApiObject, labelDomain: string): void {
  const given = (obj.spec && typeof obj.spec === 'object' ? obj.spec : {}) as CsrSpec;
  const spec: CsrSpec = { request: undefined, signerName: undefined, expirationSeconds: undefined, usages: undefined, ...given };
  if (spec.usages === undefined || spec.usages === null) spec.usages = [...V1BETA1_DEFAULT_USAGES];
  if (spec.signerName === undefined || spec.signerName === null) spec.signerName = defaultSignerName(spec, labelDomain);
  obj.spec = Object.fromEntries(Object.entries(spec).filter(([, v]) => v !== undefined));
}

/** v1's schema with signerName optional (a pointer, defaulted) as v1beta1 has it. */
function schemaAtV1beta1(v1: Schema): Schema {
  const props = v1.properties ?? {};
  const spec = props.spec ?? {};
  return {
    ...v1,
    properties: {
      ...props,
      spec: {
        ...spec,
        required: ['request'],
        properties: {
          ...spec.properties,
          signerName: { type: 'string', description: 'The requested signer, a qualified name (e.g. example.com/signer-name); defaulted from the request when absent; immutable.' },
          usages: { ...spec.properties?.usages, description: 'The key usages requested in the issued certificate; defaults to "digital signature" and "key encipherment".' },
        },
      },
    },
  };
}

/** The certificates/v1beta1 def over the v1 objects, off unless switched on. */
export function certificateSigningRequestV1beta1Resource(naming: Naming): ResourceDef {
  const v1 = certificateSigningRequestResource(naming);
  const legacySigner = `${naming.labelDomain}/legacy-unknown`;
  const schema = schemaAtV1beta1(v1.schema);
  const defaults = (obj: ApiObject) => { defaultSpecV1beta1(obj, naming.labelDomain); defaultCsr(obj); };
  const def: ResourceDef = {
    ...v1,
    version: 'v1beta1',
    servedByDefault: false,
    deprecation: { deprecatedIn: [1, 19], removedIn: [1, 22], replacement: { group: v1.group, version: 'v1', kind: KIND } },
    schema,
    subresources: v1.subresources.map((sub) => ({
      ...sub, applyUpdate: sub.name === 'status' ? applyStatusUpdate(legacySigner, v1.group, true) : applyApprovalUpdate,
    })),
    strategy: {
      ...v1.strategy,
      checkDecode: (obj) => decodeProblem(obj, schema, KIND),
      default: defaults,
      prepareForCreate: (obj, ctx) => { defaults(obj); prepareCsrCreate(obj, ctx); },
      validate: (obj) => validateCsrCreate(obj, legacySigner, true),
      validateUpdate: (obj, old) => validateCsrUpdate(obj, old, legacySigner, true),
    },
  };
  return servedOverStorage(def, 'v1');
}
