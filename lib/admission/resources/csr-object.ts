/**
 * What the certificate plugins read of a CertificateSigningRequest
 * (`certificates.<domain>/v1`, issue 16) in its JSON form: spec.signerName, spec.request (base64
 * of a PEM PKCS#10 request), status.certificate and status.conditions. Read defensively: the
 * kind's validation runs before the validating plugins, but a plugin must not crash on input.
 */
import type * as Forge from 'node-forge';
import { forge } from '../../lazy-packages';
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { ApiObject } from '../../scheme/types';

/** The resource the certificate plugins act on. */
export const CSR_RESOURCE = 'certificatesigningrequests';

/** A write of `certificatesigningrequests` of the certificates group through `subresource` ('' for the object). */
export const isCsrRequest = (attrs: AdmissionAttributes, certificatesGroup: string, subresource: string): boolean =>
  attrs.resource.group === certificatesGroup && attrs.resource.resource === CSR_RESOURCE && (attrs.subresource ?? '') === subresource;

export const signerNameOf = (csr: ApiObject): string => String((csr.spec as { signerName?: unknown } | undefined)?.signerName ?? '');

/** The first PEM block of `text`: its type and DER bytes (Go's pem.Decode), or undefined. */
function firstPemBlock(text: string): { type: string; der: string } | undefined {
  const m = /-----BEGIN ([^-\r\n]*)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (!m) return undefined;
  const body = m[2].split(/\r?\n/).filter((l) => !l.includes(':')).join('');
  if (!/^[A-Za-z0-9+/=\s]*$/.test(body)) return undefined;
  return { type: m[1], der: Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('latin1') };
}

const ORGANIZATION_OID = '2.5.4.10';

/**
 * certificates.ParseCSR, as far as the subject goes: the organizations (O) of the request's
 * subject. Throws with Kubernetes' words when the bytes are not a PEM CERTIFICATE REQUEST.
 * Reads the ASN.1 itself so that requests for any key type (RSA, ECDSA, Ed25519) parse.
 */
export function csrOrganizations(request: unknown): string[] {
  const pem = typeof request === 'string' ? Buffer.from(request, 'base64').toString('latin1') : '';
  const block = firstPemBlock(pem);
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  try {
    const root = forge().asn1.fromDer(block.der);
    const info = (root.value as Forge.asn1.Asn1[])[0];
    const subject = (info.value as Forge.asn1.Asn1[])[1];
    const out: string[] = [];
    for (const rdn of subject.value as Forge.asn1.Asn1[]) {
      for (const atv of rdn.value as Forge.asn1.Asn1[]) {
        const [oid, value] = atv.value as Forge.asn1.Asn1[];
        if (forge().asn1.derToOid(oid.value as string) === ORGANIZATION_OID) out.push(forge().util.decodeUtf8(value.value as string));
      }
    }
    return out;
  } catch {
    throw new Error('x509: malformed certificate request');
  }
}
