/**
 * node:http2's side (--http2-server=node) of the per-connection budget of response bytes waiting
 * for a client (ListenerLimits.maxQueuedBytes; the own side keeps it in h2/response-sender.ts):
 * node:http2 holds a response the client's flow-control window does not take in the stream's
 * write buffer, without limit. node:http2 does not tell which streams a window holds back, only
 * the connection's window, so every CHECK_MS a session with open streams is looked at: when none
 * of its waiting responses went down for STUCK_LOOKS looks in a row (or the connection's window
 * stayed spent) and more than the budget waits, every waiting response but the largest is reset
 * (ENHANCE_YOUR_CALM) until half the budget is left, and that is logged once. A client that
 * reads, however slowly and whatever the server's load, loses nothing here; one that trickles
 * is held by node's session memory (maxSessionMemory, four times the budget).
 */
import http2 from 'node:http2';
import { logger } from '../logger';

const CHECK_MS = 100;
/** Looks in a row without any waiting response going down before the session counts as not reading (half a second: a client starved of CPU for a moment still reads). */
const STUCK_LOOKS = 5;

export function boundWaitingResponses(server: http2.Http2SecureServer, maxQueuedBytes: number): void {
  server.on('session', (session: http2.ServerHttp2Session) => {
    /** Open streams, and their waiting bytes at the last look. */
    const open = new Map<http2.ServerHttp2Stream, number>();
    let timer: NodeJS.Timeout | undefined;
    let stuck = 0;
    let warned = false;
    const check = () => {
      let waiting = 0;
      let moved = false;
      for (const [s, before] of open) {
        const now = s.writableLength;
        if (now < before) moved = true;
        waiting += now;
        open.set(s, now);
      }
      const windowSpent = (session.state.remoteWindowSize ?? 1) <= 0;
      stuck = waiting > 0 && (!moved || windowSpent) ? stuck + 1 : 0;
      if (waiting <= maxQueuedBytes || stuck < STUCK_LOOKS) return;
      const bySize = [...open.keys()].filter((s) => s.writableLength > 0).sort((a, b) => b.writableLength - a.writableLength);
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
