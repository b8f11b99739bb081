/**
 * Watches over HTTP/2: a few sessions (TLS connections) carry many watch streams, as client-go
 * multiplexes its watches. The stream's lines are handed over raw; parsing is the caller's cost.
 */
import http2 from 'node:http2';
import { performance } from 'node:perf_hooks';
import { ServerConnection } from './api-client';

/** Flow-control windows large enough that a burst of events never waits for a WINDOW_UPDATE. */
const STREAM_WINDOW = 1 << 20;
const SESSION_WINDOW = 64 << 20;

export interface WatchStream {
  /** Resolves with the HTTP status once the response headers arrive; rejects on a stream error. */
  readonly status: Promise<number>;
  /** The server ended the stream (or it failed) before close() was called. */
  readonly endedEarly: boolean;
  close(): void;
}

/**
 * @param onLines called once per received chunk with the complete lines it finished and the
 *   chunk's arrival time (performance.now()).
 */
export type LineHandler = (lines: string[], receivedAt: number) => void;

export class Http2WatchClient {
  private readonly sessions: http2.ClientHttp2Session[] = [];
  private next = 0;

  constructor(conn: ServerConnection, sessionCount: number) {
    for (let i = 0; i < sessionCount; i++) {
      const s = http2.connect(conn.url, {
        ca: conn.ca, cert: conn.cert, key: conn.key,
        settings: { initialWindowSize: STREAM_WINDOW },
        maxSessionMemory: 256,
      });
      s.on('connect', () => s.setLocalWindowSize(SESSION_WINDOW));
      // Errors surface on the streams; an unhandled session 'error' would crash the run.
      s.on('error', () => undefined);
      this.sessions.push(s);
    }
  }

  /** Opens `path` (a watch URL) on the next session, round robin. */
  open(path: string, onLines: LineHandler): WatchStream {
    const session = this.sessions[this.next++ % this.sessions.length];
    const req = session.request({ ':method': 'GET', ':path': path, accept: 'application/json' });
    let closing = false;
    let endedEarly = false;
    let partial = '';
    req.setEncoding('utf8');
    const status = new Promise<number>((resolve, reject) => {
      req.once('response', (headers) => resolve(Number(headers[':status'])));
      req.once('error', reject);
    });
    status.catch(() => undefined);
    req.on('data', (chunk: string) => {
      const receivedAt = performance.now();
      const text = partial + chunk;
      const cut = text.lastIndexOf('\n');
      if (cut < 0) {
        partial = text;
        return;
      }
      partial = text.slice(cut + 1);
      onLines(text.slice(0, cut).split('\n'), receivedAt);
    });
    req.on('error', () => { if (!closing) endedEarly = true; });
    req.on('close', () => { if (!closing) endedEarly = true; });
    return {
      status,
      get endedEarly() { return endedEarly; },
      close() {
        closing = true;
        req.close(http2.constants.NGHTTP2_CANCEL);
      },
    };
  }

  close(): void {
    for (const s of this.sessions) s.destroy();
  }
}
