/**
 * GET `/openapi/v2`, `/openapi/v3`, `/openapi/v3/api/<version>` and
 * `/openapi/v3/apis/<group>/<version>`, with kube-openapi's caching rules:
 * - every answer carries the document hash as a quoted ETag and honours If-None-Match (304);
 * - a group/version document asked with its current `?hash=` is immutable (`Cache-Control:
 *   public, immutable`, Expires a year ahead); a stale hash is redirected (301) to the current URL.
 * Documents are JSON, and `/openapi/v2` also gnostic's protobuf (kube-openapi's handler): asked as
 * `application/com.github.proto-openapi.spec.v2@v1.0+protobuf` (what kubectl sends, which
 * kube-openapi calls deprecated) or `...spec.v2.v1.0+protobuf`, answered with the latter as
 * Content-Type. The first Accept range (by q, then specificity, then order) that either form
 * matches chooses it, JSON first for wildcards; none: 406. Each form has its own ETag, the
 * SHA-512 of its bytes (kube-openapi gives the protobuf form the JSON form's ETag). Either form
 * is gzipped for a client whose Accept-Encoding takes gzip (kube-openapi wraps its v2 handler in
 * GzipHandler: `Vary: Accept-Encoding`, the same ETag, a 304 not compressed); the v3 documents
 * are not (kube-openapi's handler3 has no gzip). The JSON form is built in slices of the event
 * loop (./documents.ts), the protobuf form encoded off it (./v2-forms.ts), gzip made on libuv's
 * thread pool.
 * Group/versions of extension API servers (a RemoteOpenApiSource) are listed in the v3 index with
 * their servers' URLs, and a request for one of their documents is forwarded to its server with
 * the caller's identity and answered as the server answers it (kube-aggregator's OpenAPI v3
 * proxy), or, for a server without v3, answered here from its converted v2 document as this
 * server's own; their v2 documents are merged into this server's.
 */
import { sendWithEtag } from '../etag-response';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { errors } from '../../meta/api-errors';
import { Naming } from '../../naming';
import { ResourceDef } from '../../scheme/types';
import { parseAccept } from '../negotiation';
import { versionInfo } from '../version';
import { logger } from '../../logger';
import { OpenApiDocuments, ServedDocument } from './documents';
import type { RemoteOpenApiSource } from './remote';
import { V2Forms } from './v2-forms';

const JSON_TYPE = 'application/json';
/** The protobuf form of `/openapi/v2`: the media type answered, and the subtypes accepted. */
export const V2_PROTOBUF_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const V2_SUBTYPES: readonly { subtype: string; protobuf: boolean }[] = [
  { subtype: 'json', protobuf: false },
  { subtype: 'com.github.proto-openapi.spec.v2@v1.0+protobuf', protobuf: true },
  { subtype: 'com.github.proto-openapi.spec.v2.v1.0+protobuf', protobuf: true },
];
const YEAR_MS = 365 * 24 * 3600 * 1000;

export interface OpenApiOptions {
  /** Everything served, read on every request so that newly registered kinds show up at once. */
  resources: () => readonly ResourceDef[];
  naming: Naming;
  /** Tells the built-in defs from custom resources' (default: all built-in); see documents.ts. */
  isBuiltin?: (def: ResourceDef) => boolean;
  /** The documents of extension API servers (the aggregation layer); absent: none. */
  remote?: RemoteOpenApiSource;
  /** `info.version`: the gitVersion of the release served (absent: this build's). */
  gitVersion?: string;
  /** The protobuf and gzip forms of `/openapi/v2`, told of changes by the caller (absent: made here, encoded on request). */
  v2Forms?: V2Forms;
}

function requireJson(ctx: Context): void {
  const ok = parseAccept(ctx.get('Accept')).some((r) => r.type === '*' || (r.type === 'application' && (r.subtype === '*' || r.subtype === 'json')));
  if (!ok) throw errors.notAcceptable([JSON_TYPE]);
}

function send(ctx: Context, doc: ServedDocument, contentType = JSON_TYPE): void {
  ctx.set('Vary', 'Accept');
  sendWithEtag(ctx, `"${doc.hash}"`, contentType, doc.body);
}

/** NYTimes/gziphandler 1.1.1's DefaultMinSize: a smaller body goes out plain. */
const GZIP_MIN_BYTES = 1400;

/** NYTimes/gziphandler's acceptsGzip: Accept-Encoding lists `gzip` with a q-value above 0. */
function acceptsGzip(header: string): boolean {
  return header.split(',').some((coding) => {
    const [name, ...params] = coding.split(';').map((p) => p.trim());
    if (name.toLowerCase() !== 'gzip') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** `/openapi/v2` in one form: its ETag, 304 when fresh, gzipped when the client takes gzip. */
async function sendV2(ctx: Context, forms: V2Forms, doc: ServedDocument, contentType: string): Promise<void> {
  ctx.vary('Accept-Encoding');
  ctx.vary('Accept');
  ctx.set('ETag', `"${doc.hash}"`);
  ctx.set('Content-Type', contentType);
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  if (doc.body.length >= GZIP_MIN_BYTES && acceptsGzip(ctx.get('Accept-Encoding'))) {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = await forms.gzip(doc);
  } else {
    ctx.body = doc.body;
  }
}

/** Whether `/openapi/v2` is asked as protobuf (kube-openapi's negotiation); throws 406 when neither form fits. */
function wantsV2Protobuf(ctx: Context): boolean {
  for (const r of parseAccept(ctx.get('Accept'))) {
    if (r.type !== '*' && r.type !== 'application') continue;
    const match = V2_SUBTYPES.find((s) => r.subtype === '*' || r.subtype === s.subtype);
    if (match) return match.protobuf;
  }
  throw errors.notAcceptable([JSON_TYPE, V2_PROTOBUF_TYPE]);
}

async function sendGroupVersion(ctx: Context, docs: OpenApiDocuments, key: string, remote?: RemoteOpenApiSource): Promise<void> {
  let doc = docs.groupVersion(key);
  if (!doc && remote) {
    doc = remote.v3Converted(key);
    if (!doc) {
      if (await remote.proxyV3Document(key, ctx)) return;
      throw errors.notFoundPath();
    }
  }
  if (!doc) throw errors.notFoundPath();
  requireJson(ctx);
  const hash = typeof ctx.query.hash === 'string' ? ctx.query.hash : '';
  if (hash && hash !== doc.hash) {
    ctx.redirect(`/openapi/v3/${key}?hash=${doc.hash}`);
    ctx.status = 301;
    return;
  }
  if (hash) {
    ctx.set('Cache-Control', 'public, immutable');
    ctx.set('Expires', new Date(Date.now() + YEAR_MS).toUTCString());
  }
  send(ctx, doc);
}

/** Registers the OpenAPI routes. Unknown group/versions are 404; an Accept without JSON is 406. */
export function installOpenApi(router: Router, opts: OpenApiOptions): void {
  const info = {
    title: opts.naming.flavor === 'kubernetes' ? 'Kubernetes' : 'Orch',
    version: opts.gitVersion ?? versionInfo().gitVersion,
  };
  const docs = new OpenApiDocuments(opts.resources, opts.naming, info, opts.isBuiltin, opts.remote);

  const forms = opts.v2Forms ?? new V2Forms();
  forms.serve(() => docs.v2());

  router.get('/openapi/v2', async (ctx) => {
    if (!wantsV2Protobuf(ctx)) return sendV2(ctx, forms, await docs.v2(), JSON_TYPE);
    let doc: ServedDocument;
    try {
      doc = await forms.protobuf();
    } catch (err) {
      // kube-openapi's handler when the protobuf form cannot be made: 503, nothing else.
      logger.error('OpenAPI v2: the protobuf form could not be encoded', { err: (err as Error).message });
      ctx.status = 503;
      return undefined;
    }
    return sendV2(ctx, forms, doc, V2_PROTOBUF_TYPE);
  });
  router.get('/openapi/v3', (ctx) => {
    requireJson(ctx);
    send(ctx, docs.index());
  });
  router.get('/openapi/v3/api/:version', (ctx) => sendGroupVersion(ctx, docs, `api/${ctx.params.version}`));
  router.get('/openapi/v3/apis/:group/:version', (ctx) => sendGroupVersion(ctx, docs, `apis/${ctx.params.group}/${ctx.params.version}`, opts.remote));
}
