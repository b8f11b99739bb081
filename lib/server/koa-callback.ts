/**
 * The Koa application's request callback, written here instead of Koa's app.callback().
 *
 * Why: Koa's own callback hooks every response with on-finished (ee-first listeners on the
 * response and its socket, a closure per request) only to report errors of a response stream
 * that already ended; in a profile of creates at c=64 that was ~3% of the server's CPU and ~2 KB
 * of garbage per request. Every error of this server is turned into a Status inside the chain
 * (handler-chain.ts, errorsAndLog), the bodies it writes are Buffers, strings or JSON values, and
 * a streamed body (a watch, a long list) is written by its handler with ctx.respond = false.
 *
 * What the response step does is what Koa's does for those bodies: nothing when the handler
 * wrote the response itself (respond = false) or it can no longer be written; no body for
 * 204/205/304 and HEAD; a body-less status answers its reason phrase as text (HTTP/2: the code)
 * unless the body was set to null; a Buffer or string as it is; a stream piped; anything else as
 * JSON with its length. Middleware composition and the error path are Koa's own (app.compose,
 * ctx.onerror, the app's 'error' event).
 */
import Koa from 'koa';
import type { Context } from 'koa';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { Stream } from 'node:stream';

const EMPTY_BODY_STATUSES = new Set([204, 205, 304]);

type Request = IncomingMessage | Http2ServerRequest;
type Response = ServerResponse | Http2ServerResponse;

export function koaCallback(app: Koa): (req: Request, res: Response) => void {
  const composed = (app as Koa & { compose: (mw: Koa.Middleware[]) => (ctx: Context) => Promise<void> }).compose(app.middleware);
  if (!app.listenerCount('error')) app.on('error', app.onerror);
  return (req, res) => {
    const ctx = app.createContext(req as IncomingMessage, res as ServerResponse);
    res.statusCode = 404;
    composed(ctx).then(() => respond(ctx), (err) => ctx.onerror(err)).catch((err) => ctx.onerror(err));
  };
}

/** Writes what the middleware left in ctx (see the module comment). */
export function respond(ctx: Context): void {
  if (ctx.respond === false) return;
  const res = ctx.res;
  if (!ctx.writable) {
    res.end();
    return;
  }
  const code = ctx.status;
  if (EMPTY_BODY_STATUSES.has(code)) {
    ctx.body = null;
    res.end();
    return;
  }
  let body: unknown = ctx.body;
  if (ctx.method === 'HEAD') {
    if (!res.headersSent && !ctx.response.get('Content-Length') && Number.isInteger(ctx.response.length)) ctx.length = ctx.response.length;
    res.end();
    return;
  }
  if (body === null || body === undefined) {
    if ((ctx.response as { _explicitNullBody?: boolean })._explicitNullBody) {
      ctx.response.remove('Content-Type');
      ctx.response.remove('Transfer-Encoding');
      ctx.length = 0;
      res.end();
      return;
    }
    const text = ctx.req.httpVersionMajor >= 2 ? String(code) : ctx.message || String(code);
    if (!res.headersSent) {
      ctx.type = 'text';
      ctx.length = Buffer.byteLength(text);
    }
    res.end(text);
    return;
  }
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    res.end(body);
    return;
  }
  if (body instanceof Stream) {
    Stream.pipeline(body as unknown as NodeJS.ReadableStream, res as NodeJS.WritableStream, (err) => {
      if (err && ctx.app.listenerCount('error')) ctx.onerror(err);
    });
    return;
  }
  body = JSON.stringify(body);
  if (!res.headersSent) ctx.length = Buffer.byteLength(body as string);
  res.end(body as string);
}
