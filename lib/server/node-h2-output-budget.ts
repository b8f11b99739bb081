/**
 * node:http2's side (--http2-server=node) of the per-connection budget of response bytes waiting
 * for a client (ListenerLimits.maxQueuedBytes; the own side keeps it in h2/response-sender.ts):
 * node:http2 holds a response the client's flow-control window does not take in the stream's
 * write buffer, without limit. node:http2 does not tell which streams its windows hold back, so
 * every CHECK_MS a session with open streams is looked at, and a stream whose waiting bytes did
 * not go down since the last look counts as held back. Past the budget, every held-back response
 * but the largest is reset (ENHANCE_YOUR_CALM) until half the budget is left, and that is logged
 * once; a client reading at full speed loses nothing.
 */
import http2 from 'node:http2';
import { logger } from './logger';

const CHECK_MS = 100;

export function boundWaitingResponses(server: http2.Http2SecureServer, maxQueuedBytes: number): void {
  server.on('session', (session: http2.ServerHttp2Session) => {
    /** Open streams, and their waiting bytes at the last look. */
    const open = new Map<http2.ServerHttp2Stream, number>();
    let timer: NodeJS.Timeout | undefined;
    let warned = false;
    const check = () => {
      const heldBack: http2.ServerHttp2Stream[] = [];
      let heldBytes = 0;
      for (const [s, before] of open) {
        const waiting = s.writableLength;
        if (waiting > 0 && waiting >= before) {
          heldBack.push(s);
          heldBytes += waiting;
        }
        open.set(s, waiting);
      }
      if (heldBytes <= maxQueuedBytes) return;
      heldBack.sort((a, b) => b.writableLength - a.writableLength);
      let shed = 0;
      let bytes = 0;
      for (const s of heldBack.slice(1)) {
        if (heldBytes <= maxQueuedBytes / 2) break;
        heldBytes -= s.writableLength;
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
      open.set(stream, 0);
      timer ??= setInterval(check, CHECK_MS).unref();
      stream.once('close', () => {
        open.delete(stream);
        if (open.size === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      });
    });
    session.once('close', () => { if (timer) clearInterval(timer); });
  });
}
