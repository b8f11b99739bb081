/**
 * What the certificate controllers read of a CertificateSigningRequest's status (Kubernetes'
 * GetCertApprovalCondition and HasTrueCondition), in its JSON form, read defensively.
 */
import { ApiObject } from '../scheme/types';

/** One entry of status.conditions. */
export interface CsrCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

/** The request's status.conditions (empty when absent or malformed). */
export function conditionsOf(csr: ApiObject): CsrCondition[] {
  const list = (csr.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(list) ? list.filter((c): c is CsrCondition => !!c && typeof c === 'object') : [];
}

/** An Approved or Denied condition is present, whatever its status (as Kubernetes reads them). */
export function approvalState(csr: ApiObject): { approved: boolean; denied: boolean } {
  const types = conditionsOf(csr).map((c) => c.type);
  return { approved: types.includes('Approved'), denied: types.includes('Denied') };
}

/** A condition of `type` with status True. */
export const hasTrueCondition = (csr: ApiObject, type: string): boolean =>
  conditionsOf(csr).some((c) => c.type === type && c.status === 'True');

/** status.certificate is set. */
export const hasCertificate = (csr: ApiObject): boolean => !!(csr.status as { certificate?: unknown } | undefined)?.certificate;

/** The request's spec, as the controllers read it. */
export interface CsrSpec {
  request?: unknown;
  signerName?: string;
  usages?: unknown;
  expirationSeconds?: unknown;
  username?: string;
  uid?: string;
  groups?: unknown;
  extra?: unknown;
}

export const specOf = (csr: ApiObject): CsrSpec => ((csr.spec && typeof csr.spec === 'object') ? csr.spec : {}) as CsrSpec;

/** spec.usages as strings. */
export const usagesOf = (csr: ApiObject): string[] => {
  const u = specOf(csr).usages;
  return Array.isArray(u) ? u.map(String) : [];
};

/** Now, as conditions' times are written (RFC 3339, whole seconds). */
export const conditionTime = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
