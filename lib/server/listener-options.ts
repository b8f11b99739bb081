/**
 * Limits of the HTTPS listener (HTTP/2 by ALPN, HTTP/1.1 fallback), from kube-apiserver's
 * http.Server and http2.Server (k8s.io/apiserver pkg/server/secure_serving.go):
 *  - HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS: --http2-max-streams-per-connection, 0 meaning 1000
 *    (kube's recommended value); a stream past it is refused (REFUSED_STREAM), and a client that
 *    keeps opening refused streams loses its session (Node's maxSessionRejectedStreams);
 *  - request headers up to 1 MiB (MaxHeaderBytes): HTTP/1.1 answers 431 beyond, HTTP/2 resets
 *    the stream (ENHANCE_YOUR_CALM); HTTP/2 frames from clients up to 256 KiB (MaxReadFrameSize);
 *  - 32 s to send a request head (ReadHeaderTimeout) and to finish the TLS handshake (Go bounds
 *    the handshake by it); a connection that has sent no complete request head by then is closed;
 *  - 90 s idle (IdleTimeout): an HTTP/1.1 keep-alive connection between requests, and an HTTP/2
 *    session without an open stream, are closed (the session with GOAWAY);
 *  - HTTP/2 receive windows (MaxUploadBufferPerStream, MaxUploadBufferPerConnection): 256 KiB per
 *    stream, and that times the stream limit per connection, so that a client multiplexing
 *    many writes on one connection (client-go) never waits for a WINDOW_UPDATE mid-burst, as it
 *    did with nghttp2's 64 KiB connection window.
 * Node's own guards stay on: invalid frames (1000 per session) and nghttp2's rapid-reset limit.
 *
 * The timeouts are not flags (kube-apiserver has none for them); tests shorten them through
 * StartOptions.listener.
 *
 * listenerOptions and applyListenerLimits configure node:http2's server (--http2-server=node);
 * the server's own HTTP/2 side (lib/http2, the default) takes the same limits through
 * own-listener.ts sessionOptions, its own HTTP/1.1 side (lib/http1) the limits themselves, and
 * node:http's HTTP/1.1 server the options of http.createServer.
 */
import type http2 from 'node:http2';
import { boundWaitingResponses } from './node-h2-output-budget';
import type { Socket } from 'node:net';
import type { ServerConfig } from '../config';
import { answerAndClose, CLOSING_ANSWERS, type ClosingStatus } from '../http/closing';
import type { ListenerLimits } from '../http/limits';


export const DEFAULT_MAX_STREAMS_PER_CONNECTION = 1000;
export const MAX_READ_FRAME_SIZE = 256 * 1024;
/** kube-apiserver's resourceBody99Percentile: its frame size and per-stream upload buffer. */
export const STREAM_WINDOW = 256 * 1024;
const MAX_WINDOW = 2 ** 31 - 1;

export function listenerLimits(config: Pick<ServerConfig, 'http2MaxStreamsPerConnection'>, overrides: Partial<ListenerLimits> = {}): ListenerLimits {
  return {
    maxStreamsPerConnection: config.http2MaxStreamsPerConnection || DEFAULT_MAX_STREAMS_PER_CONNECTION,
    maxHeaderBytes: 1 << 20,
    headersTimeoutMs: 32_000,
    idleTimeoutMs: 90_000,
    maxQueuedBytes: 32 << 20,
    ...overrides,
  };
}

/** Options for http2.createSecureServer (spread next to the TLS options). */
export function listenerOptions(l: ListenerLimits): http2.SecureServerOptions {
  return {
    // Frames up to 256 KiB from clients (kube's MaxReadFrameSize): a 1 MiB header block fits in
    // the 8 CONTINUATION frames nghttp2 accepts after a HEADERS frame (16 KiB frames: ~144 KiB).
    settings: {
      maxConcurrentStreams: l.maxStreamsPerConnection, maxHeaderListSize: l.maxHeaderBytes, maxFrameSize: MAX_READ_FRAME_SIZE,
      initialWindowSize: STREAM_WINDOW,
    },
    // Node's defaults, stated: a session is destroyed after this many refused streams / bad frames.
    maxSessionRejectedStreams: 100,
    // node:http2 refuses new streams (ENHANCE_YOUR_CALM) past 10 MB of session memory by default,
    // which a client reading 40 MiB of lists at full speed reaches; the waiting responses are
    // bounded by maxQueuedBytes instead (node-h2-output-budget.ts), this only past four times that.
    maxSessionMemory: Math.ceil((4 * l.maxQueuedBytes) / 2 ** 20),
    maxSessionInvalidFrames: 1000,
    handshakeTimeout: l.headersTimeoutMs,
  };
}

/** Our HTTP/2 receive window for a whole connection: the stream window times the stream limit. */
export function connectionWindow(l: ListenerLimits): number {
  return Math.min(MAX_WINDOW, STREAM_WINDOW * l.maxStreamsPerConnection);
}

/** node:http's HTTP/1.1 settings for these limits (options of http.createServer, or properties of a server). */
export function http1Settings(l: ListenerLimits) {
  return {
    maxHeaderSize: l.maxHeaderBytes,
    headersTimeout: l.headersTimeoutMs,
    // Node's whole-request limit (300 s by default) must not be below the head's.
    requestTimeout: Math.max(300_000, l.headersTimeoutMs),
    keepAliveTimeout: l.idleTimeoutMs,
    // Node checks heads in progress on this interval (30 s by default: a 32 s limit would act at ~60 s).
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(l.headersTimeoutMs / 4))),
  };
}

/** Call before listen(): Node reads the HTTP/1.1 connection-check interval when listening starts. */
export function applyListenerLimits(server: http2.Http2SecureServer, l: ListenerLimits): void {
  // node:http2's HTTP/1.1 fallback reads these from the server instance, not from its options.
  Object.assign(server, http1Settings(l));
  closeSilentConnections(server, l);
  answerClientErrors(server);
  boundWaitingResponses(server, l.maxQueuedBytes);

  // HTTP/2: a session without an open stream for idleTimeoutMs gets GOAWAY (Go's IdleTimeout).
  server.on('session', (session: http2.ServerHttp2Session) => {
    session.setLocalWindowSize(connectionWindow(l));
    let open = 0;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => { timer = setTimeout(() => { if (!session.closed && !session.destroyed) session.close(); }, l.idleTimeoutMs).unref(); };
    arm();
    // One listener per session, not a closure per stream (a stream closes once).
    const onStreamClose = () => { if (--open === 0 && !session.closed) arm(); };
    session.on('stream', (stream: http2.ServerHttp2Stream) => {
      if (open++ === 0 && timer) clearTimeout(timer);
      stream.on('close', onStreamClose);
    });
    session.once('close', () => { if (timer) clearTimeout(timer); });
  });
}

/**
 * Node's HTTP/1.1 head timeout starts with the first byte of a request: a connection that sends
 * nothing at all is closed here, as Go's ReadHeaderTimeout closes it. `server` emits
 * 'secureConnection' and 'request' (either HTTP/2 server side).
 */
export function closeSilentConnections(server: import('node:tls').Server, l: ListenerLimits): void {
  const firstRequest = new WeakMap<Socket, NodeJS.Timeout>();
  server.on('secureConnection', (sock: import('node:tls').TLSSocket) => {
    if (sock.alpnProtocol === 'h2') return;
    const timer = setTimeout(() => { if (!sock.destroyed) sock.destroy(); }, l.headersTimeoutMs).unref();
    firstRequest.set(sock, timer);
    sock.once('close', () => clearTimeout(timer));
  });
  server.on('request', (req: { httpVersionMajor: number; socket: unknown }) => {
    if (req.httpVersionMajor !== 1) return;
    const sock = req.socket as Socket;
    const timer = firstRequest.get(sock);
    if (timer) {
      clearTimeout(timer);
      firstRequest.delete(sock);
    }
  });
}


/** node:http's parse errors, by code, and the status each is answered with; anything else is 400. */
const CLIENT_ERROR_STATUS: Readonly<Record<string, ClosingStatus>> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/**
 * HTTP/1.1 requests node:http cannot parse (headers over the limit, malformed heads, a head not
 * complete in time) get the status Node would send: 431, 400, 408. Node then destroys the socket
 * at once, and the bytes the client is still sending (the rest of a 2 MiB head) arrive at a
 * closed socket, whose kernel answers them with a reset that usually overtakes the status line:
 * a client sending 2 MiB of headers saw ECONNRESET 86-90 times in 100. Here the answer is
 * followed by an orderly close, and what the client still sends is read and dropped for a moment
 * before the socket goes, as Go's server does.
 * `server` emits node:http's 'clientError' (an http.Server, or node:http2's server with allowHTTP1).
 */
export function answerClientErrors(server: import('node:events').EventEmitter): void {
  const answered = new WeakSet<object>();
  server.on('clientError', (err: NodeJS.ErrnoException, socket: import('node:stream').Duplex) => {
    // The parser reports every later chunk as an error again: one answer per connection.
    if (answered.has(socket)) return;
    answered.add(socket);
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    answerAndClose(socket, CLOSING_ANSWERS[CLIENT_ERROR_STATUS[err.code ?? ''] ?? 400]);
  });
}
