/**
 * --goaway-chance (kube-apiserver's WithProbabilisticGoaway): each HTTP/2 request, with this
 * probability, ends its connection gracefully. The response says "Connection: close", which
 * the server's own HTTP/2 side (http2/server-session.ts) turns into GOAWAY (NO_ERROR) once the response
 * head is out; on node:http2 the session is closed the same way. Streams in flight, watches
 * included, finish on the old connection; the client opens a new one for its next requests,
 * which a load balancer in front of several servers may send elsewhere. HTTP/1.1 is left alone
 * (its clients open connections per request or pool them).
 */
import type { Context, Next } from 'koa';
import type { Http2ServerRequest } from 'node:http2';

export function probabilisticGoaway(chance: number, random: () => number = Math.random) {
  return function goaway(ctx: Context, next: Next): Promise<void> {
    if (ctx.req.httpVersionMajor === 2 && random() < chance) {
      const session = (ctx.req as unknown as Http2ServerRequest).stream?.session;
      // node:http2 drops connection-specific response headers: its session is closed directly.
      if (session) session.close();
      else ctx.res.setHeader('Connection', 'close');
    }
    return next();
  };
}
