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
 * SHA-512 of its bytes (kube-openapi gives the protobuf form the JSON form's ETag).
 * Group/versions of extension API servers (a RemoteOpenApiSource) are listed in the v3 index with
 * their servers' URLs and their documents answered as the servers answer them (kube-aggregator's
 * OpenAPI v3 proxy); their v2 documents are merged into this server's.
 */
import { sendWithEtag } from '../etag-response';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { errors } from '../../meta/api-errors';
import { Naming } from '../../naming';
import { ResourceDef } from '../../scheme/types';
import { parseAccept } from '../negotiation';
import { versionInfo } from '../version';
import { OpenApiDocuments, ServedDocument } from './documents';
import type { RemoteOpenApiSource } from './remote';

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
}

function requireJson(ctx: Context): void {
  const ok = parseAccept(ctx.get('Accept')).some((r) => r.type === '*' || (r.type === 'application' && (r.subtype === '*' || r.subtype === 'json')));
  if (!ok) throw errors.notAcceptable([JSON_TYPE]);
}

function send(ctx: Context, doc: ServedDocument, contentType = JSON_TYPE): void {
  ctx.set('Vary', 'Accept');
  sendWithEtag(ctx, `"${doc.hash}"`, contentType, doc.body);
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

  router.get('/openapi/v2', (ctx) => {
    if (wantsV2Protobuf(ctx)) send(ctx, docs.v2Protobuf(), V2_PROTOBUF_TYPE);
    else send(ctx, docs.v2());
  });
  router.get('/openapi/v3', (ctx) => {
    requireJson(ctx);
    send(ctx, docs.index());
  });
  router.get('/openapi/v3/api/:version', (ctx) => sendGroupVersion(ctx, docs, `api/${ctx.params.version}`));
  router.get('/openapi/v3/apis/:group/:version', (ctx) => sendGroupVersion(ctx, docs, `apis/${ctx.params.group}/${ctx.params.version}`, opts.remote));
}
