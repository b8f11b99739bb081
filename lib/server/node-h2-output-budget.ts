/**
 * node:http2's side (--http2-server=node) of the per-connection budget of response bytes waiting
 * for a client (ListenerLimits.maxQueuedBytes; the own side keeps it in h2/session.ts shed()):
 * node:http2 holds a response the client's flow-control window does not take in the stream's
 * write buffer, without limit. Each session's streams are looked at when a request arrives and
 * every CHECK_MS while it has open streams; past the budget, every waiting response but the
 * largest is reset (ENHANCE_YOUR_CALM) until half the budget is left, and that is logged once.
 */
import http2 from 'node:http2';
import { logger } from './logger';

const CHECK_MS = 250;

export function boundWaitingResponses(server: http2.Http2SecureServer, maxQueuedBytes: number): void {
  server.on('session', (session: http2.ServerHttp2Session) => {
    const open = new Set<http2.ServerHttp2Stream>();
    let timer: NodeJS.Timeout | undefined;
    let warned = false;
    const check = () => {
      let waiting = 0;
      for (const s of open) waiting += s.writableLength;
      if (waiting <= maxQueuedBytes) return;
      const bySize = [...open].filter((s) => s.writableLength > 0).sort((a, b) => b.writableLength - a.writableLength);
      let shed = 0;
      let bytes = 0;
      for (const s of bySize.slice(1)) {
        if (waiting <= maxQueuedBytes / 2) break;
        waiting -= s.writableLength;
        bytes += s.writableLength;
        shed++;
        s.close(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
      }
      if (shed && !warned) {
        warned = true;
        const sock = session.socket;
        logger.warn(`HTTP/2 client ${sock?.remoteAddress}:${sock?.remotePort} reads its responses slower than it asks for them: `
          + `${shed} responses (${bytes} bytes) waiting for its flow-control windows were reset (ENHANCE_YOUR_CALM), over the ${maxQueuedBytes} bytes a connection may have waiting`);
      }
    };
    session.on('stream', (stream: http2.ServerHttp2Stream) => {
      open.add(stream);
      timer ??= setInterval(check, CHECK_MS).unref();
      stream.once('close', () => {
        open.delete(stream);
        if (open.size === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      });
      check();
    });
    session.once('close', () => { if (timer) clearInterval(timer); });
  });
}
