/**
 * The load generator's HTTP/2 client: requests multiplexed on a few TLS sessions, as client-go
 * sends them (one connection per server). Same request() contract as ApiClient.
 */
import http2 from 'node:http2';
import { ApiResponse, ServerConnection } from './api-client';

const STREAM_WINDOW = 4 << 20;
const CONNECTION_WINDOW = 1 << 30;

export class Http2ApiClient {
  private readonly sessions: http2.ClientHttp2Session[] = [];
  private next = 0;

  /**
   * @param sessionCount TLS connections; requests go to them in turn.
   * @param auth how to authenticate: the connection's client certificate (default), or a bearer
   *   token sent with every request and no certificate.
   */
  constructor(readonly conn: ServerConnection, sessionCount = 1, private readonly auth: { bearerToken?: string } = {}) {
    const identity = auth.bearerToken === undefined ? { cert: conn.cert, key: conn.key } : {};
    for (let i = 0; i < sessionCount; i++) {
      // Flow-control windows as client-go's transport sets them (4 MiB per stream, 1 GiB per
      // connection); Node's defaults (64 KiB each) would stall a burst of answers mid-way.
      const s = http2.connect(conn.url, { ca: conn.ca, ...identity, settings: { initialWindowSize: STREAM_WINDOW } });
      s.on('connect', () => s.setLocalWindowSize(CONNECTION_WINDOW));
      // Errors surface on the requests; an unhandled session 'error' would crash the run.
      s.on('error', () => undefined);
      this.sessions.push(s);
    }
  }

  /** Sends one request (a body as JSON); resolves once the whole body has arrived, whatever the status. */
  request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<ApiResponse> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: http2.OutgoingHttpHeaders = { ':method': method, ':path': path, accept: 'application/json' };
    if (this.auth.bearerToken !== undefined) headers.authorization = `Bearer ${this.auth.bearerToken}`;
    if (payload) headers['content-type'] = contentType;
    const session = this.sessions[this.next++ % this.sessions.length];
    return new Promise((resolve, reject) => {
      // Node ends GET and DELETE streams at the headers unless told otherwise; a DELETE may carry DeleteOptions.
      const req = session.request(headers, { endStream: !payload });
      let status = 0;
      const chunks: Buffer[] = [];
      req.on('response', (h) => { status = Number(h[':status']); });
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => { const b = Buffer.concat(chunks); resolve({ status, body: b, bodyLength: b.length }); });
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    for (const s of this.sessions) s.destroy();
  }
}
