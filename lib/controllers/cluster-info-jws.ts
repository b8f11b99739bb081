/**
 * The detached JWS that signs cluster-info's kubeconfig with a bootstrap token (RFC 7515
 * Appendix F): HS256, protected header `{"alg":"HS256","kid":"<token-id>"}`, compact form with
 * the payload left out (`<header>..<signature>`). Which key signs is the flavor's choice
 * (signingKey): the spec's full token, or Kubernetes' token secret alone.
 */
import { jose } from '../lazy-packages';
import { Flavor } from '../naming';

const encoder = new TextEncoder();

/**
 * The HMAC key of a token. orch (the spec): the full token `<token-id>.<token-secret>`.
 * kubernetes: the token secret alone, as Kubernetes' bootstrapsigner signs and kubeadm's join
 * verifies, so that stock join tooling accepts our cluster-info.
 */
export function signingKey(flavor: Flavor, tokenId: string, tokenSecret: string): Uint8Array {
  return encoder.encode(flavor === 'orch' ? `${tokenId}.${tokenSecret}` : tokenSecret);
}

/** The detached signature of `content` by the token `tokenId` with `key`. */
export async function signDetached(content: string, tokenId: string, key: Uint8Array): Promise<string> {
  const full = await new (jose().CompactSign)(encoder.encode(content)).setProtectedHeader({ alg: 'HS256', kid: tokenId }).sign(key);
  const [header, , signature] = full.split('.');
  return `${header}..${signature}`;
}

/**
 * Whether `detached` signs `content` with `key`, by the spec's steps: the payload goes
 * base64url-encoded between the dots, and only HS256 is accepted (any other `alg`, `none`
 * included, fails).
 */
export async function verifyDetached(detached: string, content: string, key: Uint8Array): Promise<boolean> {
  const parts = detached.split('.');
  if (parts.length !== 3 || parts[1] !== '') return false;
  const payload = Buffer.from(content, 'utf8').toString('base64url');
  try {
    await jose().compactVerify(`${parts[0]}.${payload}.${parts[2]}`, key, { algorithms: ['HS256'] });
    return true;
  } catch {
    return false;
  }
}
