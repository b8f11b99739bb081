/**
 * Kubernetes' CertificateSigningRequest validation (certificates/v1) with kube-apiserver's
 * messages: the request's bytes and signature, usages, signerName, expirationSeconds, the
 * conditions and the issued certificate. Problems already present in the stored object are
 * tolerated on update (as Kubernetes does for existing data); what each endpoint may change is
 * decided by the strategies (strategy.ts). Writes through certificates/v1beta1 (`atV1beta1`)
 * are checked as Kubernetes checks that version: every toleration applies, and `/status` may
 * replace an issued certificate.
 */
import { ApiObject } from '../../../scheme/types';
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { isDns1123Label, isDns1123Subdomain } from '../../../meta/validation';
import { certificateProblem, requestProblem } from './pem-request';

export interface CsrCondition {
  type?: string; status?: string; reason?: string; message?: string; lastUpdateTime?: string; lastTransitionTime?: string;
}
export interface CsrSpec {
  request?: string; signerName?: string; expirationSeconds?: number | null; usages?: string[] | null;
  username?: string; uid?: string; groups?: string[] | null; extra?: Record<string, string[]> | null;
}
export interface CsrStatus { conditions?: CsrCondition[] | null; certificate?: string }

export const specOf = (obj: ApiObject): CsrSpec => (obj.spec && typeof obj.spec === 'object' ? obj.spec : {}) as CsrSpec;
export const statusOf = (obj: ApiObject): CsrStatus => (obj.status && typeof obj.status === 'object' ? obj.status : {}) as CsrStatus;
/** The conditions, a non-object entry read as an empty condition (so that it is reported, never crashes). */
export const conditionsOf = (obj: ApiObject): CsrCondition[] => {
  const list = statusOf(obj).conditions;
  return Array.isArray(list) ? list.map((c) => (c && typeof c === 'object' ? c : {}) as CsrCondition) : [];
};

/** The key usages a v1 request may ask for. */
export const KNOWN_USAGES = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment',
  'decipher only', 'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel',
  'ipsec user', 'key agreement', 'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime',
  'server auth', 'signing', 'timestamping',
];

/** Condition types whose status may only be True. */
const TRUE_ONLY = new Set(['Approved', 'Denied', 'Failed']);
const ALL_STATUSES = ['False', 'True', 'Unknown'];

const DOMAIN_MAX = 253;
const SIGNER_MAX = DOMAIN_MAX + (253 + 63 + 1) + 1;

/** What existing data lets an update keep (Kubernetes' getValidationOptions). */
interface Tolerations {
  legacySigner: boolean; unknownUsages: boolean; duplicateUsages: boolean; duplicateTypes: boolean;
  emptyType: boolean; approvedAndDenied: boolean; arbitraryCertificate: boolean;
}

const hasDuplicates = (xs: unknown[]) => new Set(xs).size !== xs.length;
const bytesOf = (b64: unknown) => Buffer.from(typeof b64 === 'string' ? b64 : '', 'base64');

const TOLERATE_ALL: Tolerations = {
  legacySigner: true, unknownUsages: true, duplicateUsages: true, duplicateTypes: true, emptyType: true, approvedAndDenied: false, arbitraryCertificate: true,
};

function tolerations(obj: ApiObject, old: ApiObject | undefined, legacySigner: string, atV1beta1: boolean): Tolerations {
  if (atV1beta1) return { ...TOLERATE_ALL, approvedAndDenied: !!old && tolerations(obj, old, legacySigner, false).approvedAndDenied };
  if (!old) {
    return { legacySigner: false, unknownUsages: false, duplicateUsages: false, duplicateTypes: false, emptyType: false, approvedAndDenied: false, arbitraryCertificate: false };
  }
  const usages = specOf(old).usages ?? [];
  const types = conditionsOf(old).map((c) => c.type ?? '');
  const oldCert = statusOf(old).certificate ?? '';
  return {
    legacySigner: specOf(old).signerName === legacySigner,
    unknownUsages: usages.some((u) => !KNOWN_USAGES.includes(u)),
    duplicateUsages: hasDuplicates(usages),
    duplicateTypes: hasDuplicates(types),
    emptyType: types.includes(''),
    approvedAndDenied: types.includes('Approved') && types.includes('Denied'),
    arbitraryCertificate: (statusOf(obj).certificate ?? '') === oldCert || certificateProblem(bytesOf(oldCert)) !== undefined,
  };
}

/** Kubernetes' ValidateCertificateSigningRequestSignerName: `<domain>/<path>`. */
export function validateSignerName(path: string, signerName: string): FieldError[] {
  if (!signerName) return [fieldErrors.required(path, 'signerName must be provided')];
  const segments = signerName.split('/');
  if (segments.length !== 2) {
    return [fieldErrors.invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  }
  const [domain, rest] = segments;
  const errs: FieldError[] = [];
  if (domain.length > DOMAIN_MAX) errs.push(fieldErrors.tooLong(path, DOMAIN_MAX));
  const labels = domain.split('.');
  // Only the first bad label is reported: the others' messages would read the same.
  for (const label of labels) {
    const problems = isDns1123Label(label);
    if (problems.length) { errs.push(...problems.map((m) => fieldErrors.invalid(path, domain, `validating label ${JSON.stringify(label)}: ${m}`))); break; }
  }
  if (labels.length < 2) errs.push(fieldErrors.invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of rest.split('.')) {
    const problems = isDns1123Subdomain(label);
    if (problems.length) { errs.push(...problems.map((m) => fieldErrors.invalid(path, rest, `validating label ${JSON.stringify(label)}: ${m}`))); break; }
  }
  if (signerName.length > SIGNER_MAX) errs.push(fieldErrors.tooLong(path, SIGNER_MAX));
  return errs;
}

function validateConditions(obj: ApiObject, tol: Tolerations): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(obj).forEach((c, i) => {
    const path = `status.conditions[${i}]`;
    const type = c.type ?? '';
    if (!tol.emptyType && !type) errs.push(fieldErrors.required(`${path}.type`, ''));
    const allowed = TRUE_ONLY.has(type) ? ['True'] : ALL_STATUSES;
    if (!c.status) errs.push(fieldErrors.required(`${path}.status`, ''));
    else if (!allowed.includes(c.status)) errs.push(fieldErrors.notSupported(`${path}.status`, c.status, allowed));
    if (!tol.approvedAndDenied) {
      if (type === 'Approved') approved = true;
      if (type === 'Denied') denied = true;
      if ((type === 'Approved' && denied) || (type === 'Denied' && approved)) {
        errs.push(fieldErrors.invalid(`${path}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!tol.duplicateTypes && seen.has(type)) errs.push(fieldErrors.duplicate(`${path}.type`, type));
    seen.add(type);
  });
  return errs;
}

function validateCsr(obj: ApiObject, tol: Tolerations, legacySigner: string): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  const problem = requestProblem(bytesOf(spec.request));
  if (problem) errs.push(fieldErrors.invalid('spec.request', spec.request ?? '', problem));
  const usages = Array.isArray(spec.usages) ? spec.usages : [];
  if (!usages.length) errs.push(fieldErrors.required('spec.usages', 'usages must be provided'));
  if (!tol.unknownUsages) {
    usages.forEach((u, i) => { if (!KNOWN_USAGES.includes(u)) errs.push(fieldErrors.notSupported(`spec.usages[${i}]`, u, KNOWN_USAGES)); });
  }
  if (!tol.duplicateUsages) {
    usages.forEach((u, i) => { if (usages.indexOf(u) < i) errs.push(fieldErrors.duplicate(`spec.usages[${i}]`, u)); });
  }
  const signer = spec.signerName ?? '';
  if (!tol.legacySigner && signer === legacySigner) {
    errs.push(fieldErrors.invalid('spec.signerName', signer, 'the legacy signerName is not allowed via this API version'));
  } else {
    errs.push(...validateSignerName('spec.signerName', signer));
  }
  const exp = spec.expirationSeconds;
  if (typeof exp === 'number' && exp < 600) {
    errs.push(fieldErrors.invalid('spec.expirationSeconds', exp, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(obj, tol));
  if (!tol.arbitraryCertificate) {
    const certProblem = certificateProblem(bytesOf(statusOf(obj).certificate));
    if (certProblem) errs.push(fieldErrors.invalid('status.certificate', '<certificate data>', certProblem));
  }
  return errs;
}

/** ValidateCertificateSigningRequestCreate. `legacySigner` is `<labelDomain>/legacy-unknown`. */
export function validateCsrCreate(obj: ApiObject, legacySigner: string, atV1beta1 = false): FieldError[] {
  return validateCsr(obj, tolerations(obj, undefined, legacySigner, atV1beta1), legacySigner);
}

const countOf = (obj: ApiObject, type: string) => conditionsOf(obj).filter((c) => c.type === type).length;

/**
 * The update rules every endpoint shares: the object is valid, Approved/Denied/Failed conditions
 * are never removed, and an issued certificate never changes. (Setting the certificate or the
 * approval conditions is limited to their subresources by the strategies.)
 */
export function validateCsrUpdate(obj: ApiObject, old: ApiObject, legacySigner: string, atV1beta1 = false): FieldError[] {
  const errs = validateCsr(obj, tolerations(obj, old, legacySigner, atV1beta1), legacySigner);
  for (const type of ['Approved', 'Denied', 'Failed']) {
    if (countOf(obj, type) < countOf(old, type)) {
      errs.push(fieldErrors.forbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(type)}`));
    }
  }
  const cert = statusOf(obj).certificate ?? '';
  const oldCert = statusOf(old).certificate ?? '';
  if (cert !== oldCert && oldCert && !atV1beta1) {
    errs.push(fieldErrors.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}

/** Through `/status`: Approved and Denied conditions may not be added (only `/approval` may). */
export function approvalAdditions(obj: ApiObject, old: ApiObject): FieldError[] {
  return ['Approved', 'Denied'].filter((t) => countOf(obj, t) > countOf(old, t))
    .map((t) => fieldErrors.forbidden('status.conditions', `updates may not add a condition of type ${JSON.stringify(t)}`));
}
