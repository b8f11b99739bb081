/**
 * Signs service-account tokens with the signing key (jose): bound tokens for TokenRequest and
 * legacy tokens for the token controller. The header carries `alg` and the key's `kid`.
 */
import { randomUUID } from 'node:crypto';
import { jose } from '../lazy-packages';
import { BoundTokenSpec, ClaimNames, boundClaims, legacyClaims, ObjectRef } from './claims';
import { SigningKey } from './keys';

export class TokenGenerator {
  /** `issuer`: the first --service-account-issuer. */
  constructor(private readonly key: SigningKey, readonly issuer: string, readonly names: ClaimNames) {}

  async bound(spec: BoundTokenSpec, now = Date.now()): Promise<{ token: string; expiresAt: Date }> {
    const nowSeconds = Math.floor(now / 1000);
    const claims = boundClaims(this.names, this.issuer, spec, nowSeconds, randomUUID());
    return { token: await this.sign(claims), expiresAt: new Date(claims.exp * 1000) };
  }

  legacy(namespace: string, serviceAccount: ObjectRef, secretName: string): Promise<string> {
    return this.sign(legacyClaims(this.names, namespace, serviceAccount, secretName));
  }

  private sign(claims: Record<string, unknown>): Promise<string> {
    return new (jose().SignJWT)(claims).setProtectedHeader({ alg: this.key.alg, kid: this.key.kid }).sign(this.key.privateKey);
  }
}
