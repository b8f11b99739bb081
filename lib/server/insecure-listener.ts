/**
 * --insecure-http-port: plain HTTP/1.1 on a loopback address (--insecure-http-bind-address),
 * through the same handler chain as the TLS listener. Each accepted connection is marked, and the
 * insecure superuser authenticates its requests (lib/authn/insecure-superuser.ts), as
 * kube-apiserver's insecure port did up to release 1.19: the port controller-runtime's envtest up
 * to v0.8 polls for /healthz and gives its clients. Stopped with the TLS listener (drainServer).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ListenerLimits } from '../http/limits';
import { markUnsecured } from '../authn/insecure-superuser';
import { answerClientErrors, http1Settings } from './listener-options';
import { routeUpgradeRequests } from './upgrade-requests';
import { RequestTracker } from './graceful-shutdown';

export interface InsecureListener {
  server: http.Server;
  sockets: Set<Socket>;
  sessions: Set<never>;
  tracker: RequestTracker;
  /** e.g. `http://127.0.0.1:8080` */
  url: string;
}

export async function listenInsecure(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void, port: number, address: string, limits: ListenerLimits,
): Promise<InsecureListener> {
  const server = http.createServer({ ...http1Settings(limits), noDelay: true }, handler);
  const sockets = new Set<Socket>();
  server.on('connection', (sock: Socket) => {
    markUnsecured(sock);
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
  });
  // Upgrade requests (exec, attach, port-forward, proxies) take the same path, offered for a tunnel.
  routeUpgradeRequests(server, server);
  answerClientErrors(server);
  const tracker = new RequestTracker(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => { server.off('error', reject); resolve(); });
  });
  const host = address.includes(':') ? `[${address}]` : address;
  return { server, sockets, sessions: new Set(), tracker, url: `http://${host}:${(server.address() as AddressInfo).port}` };
}
