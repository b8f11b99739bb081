/**
 * Plain (non-upgrade) requests to a backend, streamed:
 *  - the proxies (pods/proxy, nodes/proxy, services/proxy), as httputil.ReverseProxy with
 *    apimachinery's proxy transport: the client's method, body and headers (less hop-by-hop ones
 *    and the client's credentials) go on, X-Forwarded-For is appended; the answer's status,
 *    headers (less hop-by-hop and CORS ones; a same-host Location rewritten under the proxy path,
 *    so the backend's address does not leak) and body come back as they arrive;
 *  - pods/log, as LocationStreamer: a GET of the kubelet's /containerLogs, its body copied as it
 *    arrives (`follow` streams for as long as the kubelet writes) as text/plain; a kubelet's
 *    non-2xx answer becomes NewGenericServerResponse's Status.
 * A backend that cannot be reached answers 500 with Go's error text, as kube-apiserver does.
 */
import http from 'node:http';
import https from 'node:https';
import type { Context } from 'koa';
import type { KubeletClient } from './client';
import type { Backend } from './locations';
import { dialErrorText, genericServerResponse, plainError } from './errors';
import { hostPort, tlsFor } from './dial';

/** Headers that belong to one connection (RFC 9110 7.6.1; Go's hopHeaders). */
export const HOP_BY_HOP = ['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'];
const CORS = ['access-control-allow-credentials', 'access-control-allow-headers', 'access-control-allow-methods', 'access-control-allow-origin'];
/** A kubelet's error body read into the Status: at most this much (LocationStreamer's maxReadLength). */
const MAX_ERROR_BODY = 50_000;

type Headers = Record<string, string | string[] | undefined>;

/** The client's headers less the credentials kube-apiserver consumed (and, unless upgrading, hop-by-hop ones). */
export function forwardedHeaders(ctx: Context, upgrade: boolean): Headers {
  const src = ctx.req.headers as Headers;
  const out: Headers = {};
  const connectionListed = new Set<string>();
  if (!upgrade) {
    const c = src.connection;
    for (const v of Array.isArray(c) ? c : c ? [c] : []) for (const t of v.split(',')) connectionListed.add(t.trim().toLowerCase());
  }
  for (const [k, v] of Object.entries(src)) {
    if (v === undefined || k.startsWith(':') || k === 'host' || k === 'authorization' || k.startsWith('impersonate-')) continue;
    if (!upgrade && (HOP_BY_HOP.includes(k) || connectionListed.has(k))) continue;
    if (k === 'x-forwarded-for') continue;
    out[k] = v;
  }
  const peer = ctx.req.socket?.remoteAddress;
  const prior = src['x-forwarded-for'];
  const priorText = Array.isArray(prior) ? prior.join(', ') : prior;
  if (peer) out['x-forwarded-for'] = priorText ? `${priorText}, ${peer}` : peer;
  else if (priorText) out['x-forwarded-for'] = priorText;
  return out;
}

function request(b: Backend, client: KubeletClient, method: string, path: string, headers: Headers): http.ClientRequest {
  const common = { host: b.host, port: b.port, method, path, headers: { ...headers, host: hostPort(b) }, agent: false as const };
  return b.scheme === 'https' ? https.request({ ...common, ...tlsFor(b, client) }) : http.request(common);
}

/** Copies `from` into the response with backpressure; ends it with `from`; a client gone aborts `from`. */
export function copyBody(ctx: Context, from: http.IncomingMessage, upstream: http.ClientRequest): void {
  const res = ctx.res;
  from.on('data', (chunk: Buffer) => { if (!res.write(chunk)) from.pause(); });
  res.on('drain', () => from.resume());
  from.on('end', () => res.end());
  from.on('error', () => res.destroy());
  res.on('close', () => { if (!from.complete) upstream.destroy(); });
}

/** Sends the request; resolves with the answer once its head is in (rejects with Go's dial error text). */
function send(req: http.ClientRequest, b: Backend, client: KubeletClient, connectTimeoutMs: number): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('i/o timeout'), { code: 'ETIMEDOUT' })), connectTimeoutMs);
    req.on('socket', (s) => s.once(b.scheme === 'https' ? 'secureConnect' : 'connect', () => clearTimeout(timer)));
    req.once('response', (r) => { clearTimeout(timer); resolve(r); });
    req.once('error', (err: NodeJS.ErrnoException) => { clearTimeout(timer); reject(new Error(dialErrorText(err, b.host, b.port))); });
    void client;
  });
}

/** pods/log through the kubelet (kube's LocationStreamer). */
export async function streamLog(ctx: Context, b: Backend, client: KubeletClient, path: string, podName: string): Promise<void> {
  const url = `${b.scheme}://${hostPort(b)}${path}`;
  const req = request(b, client, 'GET', path, {});
  req.end();
  let answer: http.IncomingMessage;
  try {
    answer = await send(req, b, client, client.timeoutMs);
  } catch (err) {
    throw plainError(`Get ${JSON.stringify(url)}: ${(err as Error).message}`);
  }
  const code = answer.statusCode ?? 500;
  if (code < 200 || code > 206) {
    const body = await readBounded(answer, MAX_ERROR_BODY);
    throw genericServerResponse(code, 'pods/log', podName, body);
  }
  ctx.status = 200;
  ctx.respond = false;
  ctx.res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' });
  ctx.res.flushHeaders();
  copyBody(ctx, answer, req);
}

function readBounded(from: http.IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    from.on('data', (c: Buffer) => {
      if (size < max) chunks.push(c.subarray(0, max - size));
      size += c.length;
      if (size >= max) { from.destroy(); resolve(Buffer.concat(chunks).toString('utf8')); }
    });
    from.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    from.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/**
 * proxy/transport.go rewriteURL: a Location on the backend's own host (or host-less) with an
 * absolute path is put under the proxy path; another host's, or a relative one, is kept.
 */
export function rewriteLocation(location: string, b: Backend, requestHost: string | undefined, pathPrepend: string): string {
  let u: URL;
  try {
    u = new URL(location, 'http://placeholder.invalid');
  } catch {
    return location;
  }
  const hasHost = /^[a-z][a-z0-9+.-]*:\/\//i.test(location) || location.startsWith('//');
  const host = hasHost ? u.host : '';
  const differentHost = host !== '' && host !== hostPort(b) && host !== requestHost;
  if (differentHost || !u.pathname.startsWith('/') || (!hasHost && !location.startsWith('/'))) return location;
  const rest = `${u.search}${u.hash}`;
  if (u.pathname.startsWith(pathPrepend)) return `${u.pathname}${rest}`;
  const joined = `${pathPrepend.replace(/\/+$/, '')}/${u.pathname.replace(/^\/+/, '')}`;
  return `${joined}${rest}`;
}

/** A proxy request (kube's UpgradeAwareHandler without an upgrade: httputil.ReverseProxy). */
export async function forwardProxy(ctx: Context, b: Backend, client: KubeletClient, path: string, pathPrepend: string): Promise<void> {
  const req = request(b, client, ctx.method, path, forwardedHeaders(ctx, false));
  // The client's body, with backpressure; none for a request without one.
  const body = ctx.req;
  body.on('data', (chunk: Buffer) => { if (!req.write(chunk)) body.pause(); });
  req.on('drain', () => body.resume());
  body.on('end', () => req.end());
  if ((body as { complete?: boolean; readableEnded?: boolean }).readableEnded) req.end();
  let answer: http.IncomingMessage;
  try {
    answer = await send(req, b, client, client.timeoutMs);
  } catch (err) {
    throw plainError((err as Error).message);
  }
  const headers: Record<string, string | string[]> = {};
  const listed = new Set(String(answer.headers.connection ?? '').split(',').map((t) => t.trim().toLowerCase()));
  for (const [k, v] of Object.entries(answer.headers)) {
    if (v === undefined || HOP_BY_HOP.includes(k) || listed.has(k) || CORS.includes(k)) continue;
    headers[k] = k === 'location' && typeof v === 'string' ? rewriteLocation(v, b, ctx.get('host') || undefined, pathPrepend) : v;
  }
  // The log line and the request metrics carry the backend's status.
  ctx.status = answer.statusCode ?? 502;
  ctx.respond = false;
  ctx.res.writeHead(answer.statusCode ?? 502, headers);
  ctx.res.flushHeaders();
  copyBody(ctx, answer, req);
}
