/**
 * Kubernetes' IsAuthorizedForSignerName: may `user` perform `verb` (approve, sign) on the
 * synthetic resource `signers` of the certificates group, named after the signer? A user
 * refused for `example.com/foo` is asked again for `example.com/*` (the signer's domain part),
 * so a role may grant every signer of one domain. Errors count as refusals.
 */
import { Authorizer } from '../../authz/authorizer';
import { AuthorizationAttributes } from '../../authz/attributes';
import { UserInfo } from '../../meta/user';

/** The attributes of one signer check (apiVersion `*`, cluster scope). */
export function signerAttributes(user: UserInfo, verb: string, certificatesGroup: string, name: string): AuthorizationAttributes {
  return {
    user, verb, isResourceRequest: true, path: '', apiGroup: certificatesGroup, apiVersion: '*',
    resource: 'signers', subresource: '', namespace: '', name,
  };
}

/** Allowed for the signer's name, or for `<domain>/*`. */
export async function isAuthorizedForSignerName(authorizer: Authorizer, user: UserInfo, verb: string,
  certificatesGroup: string, signerName: string): Promise<boolean> {
  const exact = await authorizer.authorize(signerAttributes(user, verb, certificatesGroup, signerName));
  if (exact.decision === 'allow') return true;
  const domain = signerName.split('/')[0];
  const wildcard = await authorizer.authorize(signerAttributes(user, verb, certificatesGroup, `${domain}/*`));
  return wildcard.decision === 'allow';
}
