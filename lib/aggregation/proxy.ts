/**
 * The aggregation proxy, as kube-aggregator 1.32's proxyHandler in front of apimachinery's
 * UpgradeAwareHandler: a request under `/apis/<group>/<version>` whose APIService names a Service
 * is sent to that Service's server, after authentication and authorization here; a local or
 * unknown group-version passes on to this server's own handlers.
 *  - not Available: 503 `service unavailable` (Go's http.Error: text/plain, nosniff); a caBundle
 *    no transport can be built from: 500 with client-go's text; the Service not resolvable: 503
 *    `service unavailable`; the backend not reachable (dial, TLS, no answer head): 503 with the
 *    error's text, as the aggregator's responder writes it;
 *  - the request goes on with its method, path, query (re-encoded as Go's url.Values does: keys
 *    sorted), body (streamed) and headers, less hop-by-hop ones, the caller's Authorization and
 *    Impersonate-* headers and any X-Remote-User/-Uid/-Group/-Extra-* sent; the user this server
 *    authenticated (or impersonated) is told in X-Remote-User, X-Remote-Group (one per group),
 *    X-Remote-Uid (only with the RemoteRequestHeaderUID gate, off by default) and X-Remote-Extra-<key> (the key %-escaped as client-go's headerKeyEscape), with Audit-Id and
 *    X-Forwarded-For, over TLS verified with the caBundle and presenting the front-proxy client
 *    certificate (backend.ts), over HTTP/2 when the backend takes `h2` by ALPN, else HTTP/1.1
 *    (backend-pool.ts; upgrades always HTTP/1.1, as kube-aggregator forces). Discovery of the group-version is bounded to 5 s, as
 *    NewRequestForProxy bounds it;
 *  - the answer is streamed back (status, headers less hop-by-hop ones, body with backpressure),
 *    so a watch streams its events; the client going away aborts the backend request (over
 *    HTTP/2, RST_STREAM CANCEL);
 *    --aggregator-reject-forwarding-redirect (default true) turns a 3xx with a Location into
 *    502 `the backend attempted to redirect this request, which is not permitted`;
 *  - an upgrade (exec-style SPDY or WebSocket, over HTTP/1.1) is written to a fresh TLS
 *    connection and, once the backend answers 101, bytes are piped both ways (lib/kubelet's
 *    tunnel helpers); a refusal (>= 400) is relayed as the backend wrote it; anything else is
 *    503 `invalid upgrade response: status code N`.
 * Watches are long-running (lib/server/long-running.ts) and so are not cut by --request-timeout;
 * other requests keep it, and the backend request is abandoned when it answers 504 first. Each error answered here is counted as kube-aggregator records it
 * (apiserver_request_terminations_total, component "aggregator").
 * The same forwarder answers `/openapi/v3/apis/<group>/<version>` of a remote APIService
 * (./remote-openapi.ts), as kube-aggregator's OpenAPI v3 proxy hands that request to the
 * APIService's proxyHandler.
 */
import type { Context, Next } from 'koa';
import type http from 'node:http';
import type { RequestInfo } from '../api/request-info';
import type { RequestDeadline } from '../api/request-deadline';
import type { UserInfo } from '../meta/user';
import { FeatureGates } from '../scheme/feature-gates';
import { asksUpgrade, upgradeOffered } from '../http/upgrade';
import { forwardedHeaders, HOP_BY_HOP } from '../kubelet/forward';
import { upgradeThrough } from '../kubelet/tunnel';
import { connectWithin } from '../kubelet/dial';
import type { Duplex } from 'node:stream';
import { type ApiService, isAvailable, isLocal } from './api-service';
import { BackendError, type ResolvedBackend } from './backend';
import type { AbortRequest, BackendAnswer } from './backend-exchange';
import type { AggregationContext } from './context';
import { ProxyMetrics } from './proxy-metrics';

type Headers = Record<string, string | string[] | undefined>;

/** NewRequestForProxy's bound on a discovery request (`/apis/<group>/<version>`). */
const DISCOVERY_TIMEOUT_MS = 5_000;
/** Dialling and the TLS handshake of an upgrade (Go's dialer and handshake defaults). */
const UPGRADE_DIAL_TIMEOUT_MS = 30_000;
/** The backend's answer head to an upgrade. */
const UPGRADE_HEAD_TIMEOUT_MS = 30_000;
export const REDIRECT_REFUSED = 'the backend attempted to redirect this request, which is not permitted';

/** Sends one request to an APIService's backend and its answer back (kube-aggregator's proxyHandler.ServeHTTP). */
export type ApiServiceForwarder = (ctx: Context, svc: ApiService) => Promise<void>;

/** The proxyHandler of every remote APIService: the request as the caller sent it, with the caller's identity. */
export function apiServiceForwarder(agg: AggregationContext): ApiServiceForwarder {
  const rejectRedirects = agg.config.aggregatorRejectForwardingRedirect !== false;
  const sendUid = remoteUidEnabled(agg);
  const metrics = new ProxyMetrics(agg.metrics);
  return (ctx, svc) => proxy(agg, metrics, ctx, svc, rejectRedirects, sendUid);
}

/** What an extension server serves under `/apis/<group>/<version>` is forwarded; the rest passes on. */
export function aggregationProxy(agg: AggregationContext, forward: ApiServiceForwarder): (ctx: Context, next: Next) => Promise<void> {
  return (ctx: Context, next: Next): Promise<void> => {
    const svc = remoteApiService(agg, ctx.path);
    if (!svc) return next();
    return forward(ctx, svc);
  };
}

/** The RemoteRequestHeaderUID gate (alpha, off in 1.32): X-Remote-Uid is sent only with it. */
function remoteUidEnabled(agg: AggregationContext): boolean {
  try {
    return new FeatureGates(agg.config.featureGates ?? {}).enabled('RemoteRequestHeaderUID');
  } catch {
    return false;
  }
}

/** The APIService naming a service for the group-version of `/apis/<group>/<version>[/...]`. */
function remoteApiService(agg: AggregationContext, path: string): ApiService | undefined {
  if (!path.startsWith('/apis/')) return undefined;
  const g = path.indexOf('/', 6);
  if (g <= 6) return undefined;
  let v = path.indexOf('/', g + 1);
  if (v < 0) v = path.length;
  if (v === g + 1) return undefined;
  const svc = agg.cache.forGroupVersion(path.slice(6, g), path.slice(g + 1, v));
  return svc && !isLocal(svc) ? svc : undefined;
}

async function proxy(agg: AggregationContext, metrics: ProxyMetrics, ctx: Context, svc: ApiService, rejectRedirects: boolean, sendUid: boolean): Promise<void> {
  const fail = (message: string, code: number) => {
    metrics.terminated(ctx, code);
    plainTextError(ctx, message, code);
  };
  if (!isAvailable(svc)) return fail('service unavailable', 503);
  const transportError = agg.transport.transportError(svc);
  if (transportError) return fail(transportError, 500);
  const user = ctx.state.user as UserInfo | undefined;
  if (!user) return fail('missing user', 500);
  const path = `${ctx.path}${goQuery(ctx.querystring)}`;
  const upgrade = asksUpgrade(ctx.req.headers as Headers) && upgradeOffered(ctx.req);
  const headers = backendHeaders(ctx, user, upgrade, sendUid);
  const unresolved = (err: unknown) => {
    agg.log.warn('aggregation proxy: cannot resolve the service of an APIService', {
      apiService: svc.metadata?.name, service: `${svc.spec.service?.namespace}/${svc.spec.service?.name}`, error: (err as Error).message,
    });
    fail('service unavailable', 503);
  };
  if (upgrade) return tunnel(agg, ctx, svc, path, headers, unresolved);

  const info = ctx.state.requestInfo as RequestInfo | undefined;
  const discovery = info !== undefined && !info.isResourceRequest && ctx.path.replace(/^\/+|\/+$/g, '').split('/').length === 3;
  let abort: AbortRequest | undefined;
  let answered = false;
  const onClientGone = () => { if (!answered) abort?.(); };
  ctx.res.once('close', onClientGone);
  // --request-timeout answered (504) before the backend did: its request is abandoned.
  const stopWatchingDeadline = (ctx.state.deadline as RequestDeadline | undefined)?.onExpire(() => { if (!answered) abort?.(); });
  let answer: BackendAnswer;
  try {
    ({ answer } = await agg.transport.request(svc, {
      method: ctx.method, path, headers, body: hasBody(ctx.req) ? ctx.req : undefined,
      ...(discovery ? { timeoutMs: DISCOVERY_TIMEOUT_MS, timeoutText: 'context deadline exceeded' } : {}),
    }, (a) => { abort = a; }));
  } catch (err) {
    ctx.res.off('close', onClientGone);
    stopWatchingDeadline?.();
    if (clientGone(ctx)) return;
    if (err instanceof BackendError && err.reason !== 'Unreachable') return unresolved(err);
    // The responder's Error: 503 with the transport's text (not counted as a termination).
    return plainTextError(ctx, (err as Error).message, 503);
  }
  answered = true;
  ctx.res.off('close', onClientGone);
  stopWatchingDeadline?.();
  if (clientGone(ctx)) {
    answer.destroy();
    return;
  }
  const code = answer.statusCode;
  if (rejectRedirects && code >= 300 && code <= 399 && answer.headers.location) {
    answer.destroy();
    return plainTextError(ctx, REDIRECT_REFUSED, 502, false);
  }
  // The answer is the backend's: Koa writes nothing (a 404 included), and the request's log line
  // and metrics carry the backend's status. Nothing may touch the response's headers after
  // writeHead: a header set then (as Koa's body setter sets Content-Length) would replace the
  // backend's on a protocol side that sends the head with the first body bytes.
  ctx.status = code;
  ctx.respond = false;
  ctx.res.writeHead(code, answerHeaders(answer.headers));
  // A streamed answer (a watch) shows its head at once; one of known length goes out with its body.
  if (answer.headers['content-length'] === undefined) ctx.res.flushHeaders();
  answer.pipe(ctx.res);
}

/**
 * The caller's request has a body to send on: a Content-Length over 0, a chunked HTTP/1.1 body,
 * or an HTTP/2 request without a length (its body, if any, is streamed). An HTTP/1.1 request
 * with neither header has none (RFC 9112 6.3), and goes out without one, as Go's ReverseProxy
 * sends a request whose ContentLength is 0.
 */
function hasBody(req: http.IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return req.headers['transfer-encoding'] !== undefined || req.httpVersionMajor >= 2;
}

/** The request's socket is gone, or the request timeout has answered. */
function clientGone(ctx: Context): boolean {
  return ctx.state.timedOut === true || ctx.res.writableEnded || ctx.res.destroyed || ctx.res.headersSent;
}

/**
 * Go's http.Error: the text and a newline as text/plain, with nosniff. The redirect refusal is
 * the replaced response ReverseProxy writes: its body without the newline, its type sniffed.
 */
function plainTextError(ctx: Context, message: string, code: number, newline = true): void {
  if (clientGone(ctx)) return;
  ctx.status = code;
  ctx.body = newline ? `${message}\n` : message;
  ctx.type = 'text/plain; charset=utf-8';
  if (newline) ctx.set('X-Content-Type-Options', 'nosniff');
}

/**
 * What the backend is sent: the client's headers less hop-by-hop ones (unless upgrading) and
 * credentials, the identity in the X-Remote-* headers, and the Audit-Id.
 */
function backendHeaders(ctx: Context, user: UserInfo, upgrade: boolean, sendUid: boolean): Headers {
  const h = forwardedHeaders(ctx, upgrade);
  for (const k of Object.keys(h)) {
    if (k === 'x-remote-user' || k === 'x-remote-uid' || k === 'x-remote-group' || k.startsWith('x-remote-extra-')) delete h[k];
  }
  h['x-remote-user'] = wire(user.name);
  if (sendUid && user.uid) h['x-remote-uid'] = wire(user.uid);
  if (user.groups.length) h['x-remote-group'] = user.groups.map(wire);
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    if (values?.length) h[`x-remote-extra-${headerKeyEscape(key)}`] = values.map(wire);
  }
  const auditId = (ctx.state as { auditID?: string }).auditID;
  if (auditId) h['audit-id'] = auditId;
  return h;
}

/** A header value's UTF-8 bytes as Node writes a header string (latin1), so that they reach the wire as Go sends them. */
function wire(value: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(value) ? value : Buffer.from(value, 'utf8').toString('latin1');
}

/** RFC 7230 token characters, less `%` (client-go's legalHeaderKeyBytes and shouldEscape). */
const TOKEN = /[!#$&'*+\-.^_`|~0-9A-Za-z]/;

/** client-go's headerKeyEscape: every byte that is not a token character (and `%`) as %XX. */
export function headerKeyEscape(key: string): string {
  let out = '';
  for (const b of Buffer.from(key, 'utf8')) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && TOKEN.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The backend's answer headers less hop-by-hop ones and those its Connection header lists. */
function answerHeaders(src: http.IncomingHttpHeaders): Record<string, string | string[]> {
  const listed = new Set(String(src.connection ?? '').split(',').map((t) => t.trim().toLowerCase()));
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(src)) {
    if (v === undefined || HOP_BY_HOP.includes(k) || listed.has(k)) continue;
    out[k] = v;
  }
  return out;
}

// ---- the query, as Go's url.Values: ParseQuery then Encode ----

/** Go's QueryUnescape of one part as bytes (a latin1 string), or undefined when an escape is malformed. */
function queryUnescape(s: string): string | undefined {
  if (!s.includes('%') && !s.includes('+')) return Buffer.from(s, 'utf8').toString('latin1');
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '+') bytes.push(0x20);
    else if (c === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return undefined;
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('latin1');
}

/** Go's QueryEscape of bytes held as a latin1 string. */
function queryEscape(bytes: string): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes.charCodeAt(i);
    const c = bytes[i];
    if ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || c === '-' || c === '_' || c === '.' || c === '~') out += c;
    else if (c === ' ') out += '+';
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** `?` and the query re-encoded as kube-aggregator sends it (`req.URL.Query().Encode()`), or ''. */
export function goQuery(raw: string): string {
  if (!raw) return '';
  const values = new Map<string, string[]>();
  for (const pair of raw.split('&')) {
    if (!pair || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const k = queryUnescape(eq < 0 ? pair : pair.slice(0, eq));
    const v = queryUnescape(eq < 0 ? '' : pair.slice(eq + 1));
    if (k === undefined || v === undefined) continue;
    const list = values.get(k);
    if (list) list.push(v);
    else values.set(k, [v]);
  }
  if (!values.size) return '';
  const keys = [...values.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `?${keys.flatMap((k) => values.get(k)!.map((v) => `${queryEscape(k)}=${queryEscape(v)}`)).join('&')}`;
}

// ---- upgrades ----

/** UpgradeAwareHandler's tryUpgrade towards the APIService's backend. */
async function tunnel(agg: AggregationContext, ctx: Context, svc: ApiService, path: string, headers: Headers, unresolved: (err: unknown) => void): Promise<void> {
  let backend: ResolvedBackend;
  try {
    backend = await agg.transport.resolve(svc);
  } catch (err) {
    return unresolved(err);
  }
  let conn: Duplex;
  try {
    conn = await connectWithin(backend.host, backend.port, { ...agg.transport.tlsOptions(svc, backend), servername: backend.servername }, UPGRADE_DIAL_TIMEOUT_MS);
  } catch (err) {
    return plainTextError(ctx, (err as Error).message, 503);
  }
  const host = `${backend.host.includes(':') ? `[${backend.host}]` : backend.host}:${backend.port}`;
  try {
    await upgradeThrough(ctx, conn, path, host, headers, UPGRADE_HEAD_TIMEOUT_MS);
  } catch (err) {
    conn.destroy();
    plainTextError(ctx, (err as Error).message, 503);
  }
}
