/**
 * The user of --insecure-http-port: every request that comes over that plain-HTTP loopback
 * listener is `system:unsecured` in `system:masters`, as every request on kube-apiserver's insecure
 * port was up to release 1.19 (its insecureSuperuser authenticator). The listener marks its
 * connections; this authenticator, first in the chain when the port is open, answers for them and
 * is not the one of any other connection (a TLS connection is never marked).
 */
import type { Socket } from 'node:net';
import { ALL_AUTHENTICATED, SYSTEM_MASTERS, UserInfo } from '../meta/user';
import { AuthResult, AuthnRequest, NOT_MINE, RequestAuthenticator, authenticated } from './authenticator';

export const INSECURE_SUPERUSER: Readonly<UserInfo> = Object.freeze({ name: 'system:unsecured', groups: [SYSTEM_MASTERS, ALL_AUTHENTICATED] });

const unsecuredConnections = new WeakSet<Socket>();

/** Called by the --insecure-http-port listener for each connection it accepts. */
export function markUnsecured(socket: Socket): void {
  unsecuredConnections.add(socket);
}

export function isUnsecured(socket: Socket | undefined): boolean {
  return socket !== undefined && unsecuredConnections.has(socket);
}

export class InsecureSuperuserAuthenticator implements RequestAuthenticator {
  readonly name = 'insecure-superuser';
  private readonly answer = authenticated({ ...INSECURE_SUPERUSER, groups: [...INSECURE_SUPERUSER.groups] });

  authenticate(req: AuthnRequest): AuthResult {
    return req.unsecured ? this.answer : NOT_MINE;
  }
}
