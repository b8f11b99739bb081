/**
 * The limits both HTTP server sides (lib/http1, lib/http2; and node's, configured in
 * lib/server/listener-options.ts) hold a connection to, with kube-apiserver's values as defaults
 * (lib/server/listener-options.ts listenerLimits).
 */
export interface ListenerLimits {
  /** HTTP/2 streams open at once per connection. */
  maxStreamsPerConnection: number;
  /** Bytes of request headers (HTTP/1.1 head; HTTP/2 header list). */
  maxHeaderBytes: number;
  /** A request head (and the TLS handshake) must be complete within this. */
  headersTimeoutMs: number;
  /** An idle keep-alive connection or stream-less HTTP/2 session is closed after this. */
  idleTimeoutMs: number;
  /**
   * HTTP/2 response bytes a connection may have waiting for its client's flow-control windows (or
   * socket); past it the waiting responses but the largest are reset. Bounds what a client that
   * asks without reading can make the server hold (kube-apiserver holds them in blocked handlers).
   */
  maxQueuedBytes: number;
}
