/**
 * A document answered with its ETag, or 304 Not Modified when the client's If-None-Match names
 * it (discovery and OpenAPI documents, which clients cache and revalidate).
 */
import type { Context } from 'koa';

export function sendWithEtag(ctx: Context, etag: string, contentType: string, body: Buffer | string): void {
  ctx.set('ETag', etag);
  ctx.set('Content-Type', contentType);
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = body;
}
