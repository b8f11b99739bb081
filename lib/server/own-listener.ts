/**
 * The HTTPS listener with the server's own HTTP/2 side (--http2-server=own): a TLS server
 * offering `h2` and `http/1.1` by ALPN. An `h2` connection becomes an H2ServerSession; any other
 * an H1Connection (lib/http1, --http1-server=own), or goes to a Node http.Server that never
 * listens itself (--http1-server=node, as node:http2's allowHTTP1 does). Every kind of request is
 * emitted as 'request' (req, res) on the TLS server, where node:http2's server emits them, so the
 * request tracker and the listener limits attach the same way.
 */
import http from 'node:http';
import tls from 'node:tls';
import type { ListenerLimits } from '../http/limits';
import { answerClientErrors, closeSilentConnections, connectionWindow, http1Settings, MAX_READ_FRAME_SIZE, STREAM_WINDOW } from './listener-options';
import { H1Connection } from '../http1/connection';
import { routeUpgradeRequests } from './upgrade-requests';
import { H2ServerSession, type H2SessionOptions } from '../http2/server-session';

export interface OwnH2Listener {
  server: tls.Server;
  sessions: Set<H2ServerSession>;
}

export function sessionOptions(l: ListenerLimits): H2SessionOptions {
  return {
    maxConcurrentStreams: l.maxStreamsPerConnection,
    maxHeaderListSize: l.maxHeaderBytes,
    maxFrameSize: MAX_READ_FRAME_SIZE,
    streamWindow: STREAM_WINDOW,
    connectionWindow: connectionWindow(l),
    idleTimeoutMs: l.idleTimeoutMs,
    maxRejectedStreams: 100,
    maxQueuedBytes: l.maxQueuedBytes,
  };
}

/** `tlsOptions`: certificate, key, client CAs, versions and ciphers (tls-reload.ts). */
export function createOwnH2Listener(tlsOptions: tls.TlsOptions, l: ListenerLimits, http1: 'own' | 'node' = 'own'): OwnH2Listener {
  const server = tls.createServer({
    ...tlsOptions,
    ALPNProtocols: ['h2', 'http/1.1'],
    handshakeTimeout: l.headersTimeoutMs,
    // Nagle off on every accepted socket (see server.ts): HTTP/1.1 responses must not wait for a delayed ACK.
    noDelay: true,
  });
  const nodeHttp1 = http.createServer({
    ...http1Settings(l),
    // node:http2's HTTP/1.1 fallback does not demand a Host header; neither does this.
    requireHostHeader: false,
    noDelay: true,
  });
  nodeHttp1.on('request', (req, res) => server.emit('request', req, res));
  // Upgrade requests (exec, attach, port-forward, proxies) take the same path, offered for a tunnel.
  routeUpgradeRequests(nodeHttp1, server);
  answerClientErrors(nodeHttp1);
  const sessions = new Set<H2ServerSession>();
  const options = sessionOptions(l);
  const onRequest = (req: unknown, res: unknown) => server.emit('request', req, res);
  server.on('secureConnection', (socket: tls.TLSSocket) => {
    if (socket.alpnProtocol === 'h2') {
      const session = new H2ServerSession(socket, options, onRequest);
      sessions.add(session);
      session.on('close', () => sessions.delete(session));
      session.on('internalError', (err: Error) => server.emit('sessionError', err));
      session.on('warning', (message: string) => server.emit('sessionWarning', message));
    } else if (http1 === 'own') {
      new H1Connection(socket, l, onRequest, (err) => server.emit('sessionError', err));
    } else {
      nodeHttp1.emit('connection', socket);
    }
  });
  closeSilentConnections(server, l);
  // The HTTP/1.1 server's head and request timeouts are checked on an interval started by 'listening'.
  server.on('listening', () => nodeHttp1.emit('listening'));
  server.on('close', () => nodeHttp1.close(() => undefined));
  return { server, sessions };
}
