/**
 * The hand-over of a connection asking to upgrade (`Connection: Upgrade`, `Upgrade: SPDY/3.1` or
 * `websocket`): the protocol side that read the request (lib/http1's connection, or node:http's
 * 'upgrade' event in lib/server/upgrade-requests.ts) offers its raw socket here, keyed by the
 * request object; a handler that tunnels the connection (lib/kubelet: exec, attach, port-forward,
 * proxies) takes it once it has authorized the request. A request nobody takes is answered as any
 * other and the connection closes after it. Over HTTP/2 nothing is offered: no upgrade there.
 */
import type { Duplex } from 'node:stream';

export interface UpgradeSocket {
  /** The client's connection, no longer read or written by the HTTP side. */
  socket: Duplex;
  /** Bytes the client sent after the request head (already read off the socket). */
  head: Buffer;
}

const offers = new WeakMap<object, () => UpgradeSocket | undefined>();

/** `take` hands the socket over, or answers undefined when the response has already begun. */
export function offerUpgrade(req: object, take: () => UpgradeSocket | undefined): void {
  offers.set(req, take);
}

/** The request's socket, at most once; undefined when the request was not offered (HTTP/2, no upgrade). */
export function takeUpgrade(req: object): UpgradeSocket | undefined {
  const take = offers.get(req);
  if (!take) return undefined;
  offers.delete(req);
  return take();
}

/** Whether the request is offered for an upgrade (it asked for one over HTTP/1.1). */
export function upgradeOffered(req: object): boolean {
  return offers.has(req);
}

/** Whether headers ask for an upgrade as Go's httpstream.IsUpgradeRequest reads them: a `Connection` token `upgrade` and an `Upgrade` header. */
export function asksUpgrade(headers: Record<string, string | string[] | undefined>): boolean {
  const upgrade = headers.upgrade;
  if (!upgrade || (Array.isArray(upgrade) && !upgrade.length)) return false;
  const conn = headers.connection;
  const values = Array.isArray(conn) ? conn : conn ? [conn] : [];
  return values.some((v) => v.split(',').some((t) => t.trim().toLowerCase() === 'upgrade'));
}
