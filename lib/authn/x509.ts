/**
 * Client-certificate authentication: a certificate that chains to the client CA names the user
 * (CN) and its groups (O). TLS verification is done by the TLS layer (`authorized`).
 */
import type { TLSSocket } from 'node:tls';
import type { Context } from 'koa';
import { User } from '../api/handlers/scope';

/** The TLS socket of a request, over HTTP/1.1 or HTTP/2. */
function tlsSocketOf(ctx: Context): TLSSocket | undefined {
  const req = ctx.req as unknown as { socket?: TLSSocket; stream?: { session?: { socket?: TLSSocket } } };
  return req.stream?.session?.socket ?? req.socket;
}

/**
 * The user of a connection, read once per TLS socket: a connection's client certificate cannot
 * change, and reading it costs tens of microseconds per request.
 */
const usersBySocket = new WeakMap<TLSSocket, User | null>();

export function userFromClientCertificate(ctx: Context): User | undefined {
  const socket = tlsSocketOf(ctx);
  if (!socket || typeof socket.getPeerCertificate !== 'function') return undefined;
  let user = usersBySocket.get(socket);
  if (user === undefined) {
    user = readUser(socket) ?? null;
    usersBySocket.set(socket, user);
  }
  return user ?? undefined;
}

function readUser(socket: TLSSocket): User | undefined {
  if (!socket.authorized) return undefined;
  const cert = socket.getPeerCertificate();
  if (!cert || !cert.subject) return undefined;
  const cn = cert.subject.CN;
  const org = cert.subject.O;
  if (!cn) return undefined;
  const name = Array.isArray(cn) ? cn[0] : cn;
  const groups = org === undefined ? [] : Array.isArray(org) ? org : [org];
  return { name, groups: [...groups, 'system:authenticated'] };
}
