/**
 * Upgrade requests on node:http's HTTP/1.1 side (--http1-server=node, and node:http2's
 * allowHTTP1 fallback): node:http emits them as 'upgrade' (request, socket, head) with no
 * response. Each is given a response on its socket and goes through the same 'request' path as
 * any other request (authentication, authorization, audit, in-flight limits), offered for a
 * hand-over (lib/http/upgrade.ts): a tunnelling handler takes the socket; otherwise the request is
 * answered as usual and the connection closes after it (node:http no longer reads that socket,
 * as lib/http1's connection closes after any upgrade request).
 */
import http from 'node:http';
import type { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { offerUpgrade } from '../http/upgrade';

/** `source` emits 'upgrade'; the request and its response are emitted as 'request' on `target`. */
export function routeUpgradeRequests(source: EventEmitter, target: EventEmitter): void {
  source.on('upgrade', (req: http.IncomingMessage, socket: Socket, head: Buffer) => {
    // Nothing reads the socket until a tunnel takes it or the answer is written.
    socket.pause();
    const res = new http.ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    let handedOver = false;
    offerUpgrade(req, () => {
      if (res.headersSent || res.writableEnded) return undefined;
      handedOver = true;
      res.detachSocket(socket);
      // The exchange is over for the request tracker: the tunnel runs on its own.
      process.nextTick(() => res.emit('close'));
      return { socket, head };
    });
    res.on('finish', () => { if (!handedOver) socket.end(); });
    socket.on('error', () => socket.destroy());
    target.emit('request', req, res);
  });
}
