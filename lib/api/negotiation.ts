/**
 * Content negotiation: which representation a response takes (from Accept) and how a request
 * body is decoded (from Content-Type). Formats not produced here are refused with 406/415.
 */
import type { Context } from 'koa';
import type { RequestDeadline } from './request-deadline';
import { yaml } from '../lazy-packages';
import { errors, isApiError } from '../meta/api-errors';
import { depthMessage, jsonDepthExceeds, MAX_JSON_DEPTH, MAX_YAML_DEPTH, parseYamlDocuments, valueDepthExceeds } from './decode-limits';
import { metaGroups } from '../naming';

export interface MediaRange {
  type: string;
  subtype: string;
  params: Record<string, string>;
  q: number;
}

/**
 * Parses an Accept header into media ranges: highest q first, then (as Kubernetes' goautoneg)
 * concrete types before wildcards, otherwise in header order. q=0 entries are dropped.
 */
export function parseAccept(header: string | undefined): readonly MediaRange[] {
  const key = header ?? '';
  let parsed = acceptMemo.get(key);
  if (!parsed) {
    // Clients send a handful of distinct headers: remembered, in a bounded table.
    if (acceptMemo.size >= ACCEPT_MEMO_SIZE) acceptMemo.clear();
    acceptMemo.set(key, (parsed = Object.freeze(parseAcceptUncached(header))));
  }
  return parsed;
}

const ACCEPT_MEMO_SIZE = 256;
const acceptMemo = new Map<string, readonly MediaRange[]>();

function parseAcceptUncached(header: string | undefined): MediaRange[] {
  if (!header || !header.trim()) return [{ type: '*', subtype: '*', params: {}, q: 1 }];
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [mt, ...paramParts] = part.trim().split(';');
    const [type, subtype] = mt.trim().toLowerCase().split('/');
    if (!type || !subtype) continue;
    const params: Record<string, string> = {};
    let q = 1;
    for (const p of paramParts) {
      const [k, v = ''] = p.split('=').map((s) => s.trim());
      if (k === 'q') q = Number(v);
      else if (k) params[k.toLowerCase()] = v.replace(/^"|"$/g, '');
    }
    if (!(q > 0)) continue;
    ranges.push({ type, subtype, params, q });
  }
  const wild = (r: MediaRange) => (r.type === '*' ? 2 : 0) + (r.subtype === '*' ? 1 : 0);
  return ranges.map((r, i) => ({ r, i })).sort((a, b) => b.r.q - a.r.q || wild(a.r) - wild(b.r) || a.i - b.i).map((x) => x.r);
}

/** How a body is serialized. */
export type Encoding = 'json' | 'yaml' | 'protobuf';

/** The representation: the object itself (in its encoding), or a Table / PartialObjectMetadata(List) of it. */
export type ResponseFormat = Encoding | 'table' | 'partial';

/** What is being answered: a GET of one object, a list, a watch stream, or an error's Status. */
export type ResponseTarget = 'object' | 'list' | 'watch' | 'status';

export type TransformKind = 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

export interface Negotiated {
  format: ResponseFormat;
  /** The serializer's media type and the response Content-Type (`application/json` for a JSON Table too). */
  mediaType: string;
  encoding: Encoding;
  /** For table and partial: the kind asked for and its meta group and version (echoed in apiVersion). */
  as?: TransformKind;
  group?: string;
  version?: string;
  /** `pretty=1` on the chosen Accept entry. */
  pretty?: boolean;
}

/**
 * The protobuf serializer, registered by the protobuf codec. Until one is registered protobuf is
 * not offered, so clients listing JSON after it (kubectl) fall back to JSON.
 */
export interface ProtobufSerializer {
  /** The protobuf media types it answers (e.g. application/vnd.kubernetes.protobuf). */
  mediaTypes: string[];
  /** An object, list, Status or PartialObjectMetadata(List) as `k8s\0` + Unknown. */
  encode(obj: unknown, mediaType: string): Buffer;
  /** One watch event as a length-prefixed frame of a `;stream=watch` body. */
  encodeWatchEvent(event: { type: string; object: unknown }, mediaType: string): Buffer;
  /** Whether objects of a kind have a protobuf form (custom resources do not); absent: every kind. */
  supports?(apiVersion: string, kind: string): boolean;
}

/** The kind a response carries, for a serializer that covers only some kinds (protobuf). */
export interface ResponseKind { apiVersion?: unknown; kind?: unknown }

let protobufSerializer: ProtobufSerializer | undefined;

/** Offers protobuf responses through `serializer` (undefined withdraws them). */
export function registerProtobufSerializer(serializer: ProtobufSerializer | undefined): void {
  protobufSerializer = serializer;
}

export function registeredProtobufSerializer(): ProtobufSerializer | undefined {
  return protobufSerializer;
}

interface Offer { encoding: Encoding; mediaType: string; type: string; subtype: string; streams: boolean }

function offer(encoding: Encoding, mediaType: string, streams: boolean): Offer {
  const [type, subtype] = mediaType.split('/');
  return { encoding, mediaType, type, subtype, streams };
}

/**
 * The serializers in Kubernetes' order: JSON first (what `*\/*` gets), YAML (no watch framing),
 * protobuf (unless `kind` is one it does not cover, e.g. a custom resource).
 */
function offers(kind?: ResponseKind): readonly Offer[] {
  const pb = protobufSerializer;
  const withProtobuf = !!pb && (!kind || !pb.supports || pb.supports(String(kind.apiVersion ?? ''), String(kind.kind ?? '')));
  if (!offersFor || offersFor.serializer !== pb) offersFor = { serializer: pb, lists: new Map() };
  const memo = offersFor;
  let out = memo.lists.get(withProtobuf);
  if (!out) {
    const list = [offer('json', 'application/json', true), offer('yaml', 'application/yaml', false)];
    if (withProtobuf && pb) for (const mt of pb.mediaTypes) list.push(offer('protobuf', mt, true));
    memo.lists.set(withProtobuf, (out = list));
  }
  return out;
}

/** The two offer lists (with and without protobuf) for the registered serializer. */
let offersFor: { serializer: ProtobufSerializer | undefined; lists: Map<boolean, readonly Offer[]> } | undefined;

const TRANSFORM_KINDS: TransformKind[] = ['Table', 'PartialObjectMetadata', 'PartialObjectMetadataList'];
const META_VERSIONS = ['v1', 'v1beta1'];

/**
 * Whether `o` can answer the Accept entry `r` for `target`, and how (Kubernetes'
 * acceptMediaTypeOptions and AllowsMediaTypeTransform): `as`/`g`/`v` must name Table or
 * PartialObjectMetadata[List] of meta.k8s.io or meta.orch.io v1/v1beta1; Table only as JSON or
 * YAML; no transform for a Status; `stream=watch` needs a streaming serializer.
 */
function acceptEntry(r: MediaRange, o: Offer, target: ResponseTarget): Negotiated | undefined {
  const { as, g, v, stream, pretty } = r.params;
  if (stream && (stream !== 'watch' || !o.streams)) return undefined;
  const base: Negotiated = { format: o.encoding, mediaType: o.mediaType, encoding: o.encoding };
  if (pretty === '1') base.pretty = true;
  if (as === undefined && g === undefined && v === undefined) return base;
  if (target === 'status') return undefined;
  if (!(TRANSFORM_KINDS as string[]).includes(as) || !metaGroups.includes(g) || !META_VERSIONS.includes(v)) return undefined;
  if (as === 'Table' && o.encoding === 'protobuf') return undefined;
  // Kubernetes cannot turn a watch event into a list: it logs that and sends the object as is.
  if (target === 'watch' && as === 'PartialObjectMetadataList') return base;
  return { ...base, format: as === 'Table' ? 'table' : 'partial', as: as as TransformKind, group: g, version: v };
}

/**
 * The representation of a response from the Accept header: entries in parseAccept's order,
 * each tried against the serializers; the first that fits wins, so a later entry is the
 * fallback for one we cannot produce (Table first, then JSON). A missing header is JSON.
 * Throws NotAcceptable (406) naming the media types we produce when nothing fits.
 * `list` vs `object` is checked when transforming (a list asked as PartialObjectMetadata is 406).
 * `kind`: the kind answered; protobuf is offered only for kinds its serializer covers.
 */
export function negotiateResponse(accept: string | undefined, target: ResponseTarget = 'object', kind?: ResponseKind): Negotiated {
  const available = offers(kind);
  let askedNonStreaming = false;
  for (const r of parseAccept(accept)) {
    for (const o of available) {
      const matches = (r.type === o.type && (r.subtype === o.subtype || r.subtype === '*')) || (r.type === '*' && r.subtype === '*');
      if (!matches) continue;
      // YAML has no watch framing: a watch skips it (Kubernetes would answer 406 right there).
      if (target === 'watch' && !o.streams) {
        askedNonStreaming ||= acceptEntry(r, o, 'list') !== undefined;
        continue;
      }
      const n = acceptEntry(r, o, target);
      if (n) return n;
    }
  }
  // A watch that asked only for YAML is told the streaming types, as Kubernetes' stream negotiation does.
  const named = askedNonStreaming ? available.filter((o) => o.streams) : available;
  throw errors.notAcceptable(named.map((o) => o.mediaType));
}

/** `<group>/<version>` of a Table or PartialObjectMetadata, as the client asked for it. */
export function metaApiVersion(n: Negotiated): string {
  return `${n.group}/${n.version}`;
}

/** Kubernetes' cap on request bodies. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/**
 * The whole request body, at most `limit` bytes (else 413, answered without reading the rest:
 * what is left is discarded, so the connection stays usable). Read with stream events rather
 * than an async iterator, which costs several microseconds per request more.
 */
export function readRawBody(ctx: Context, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const tooLarge = () => errors.tooLarge(`Request entity too large: limit is ${limit}`);
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) return Promise.reject(tooLarge());
  const req = ctx.req;
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let unsubscribe: (() => void) | undefined;
    const done = () => {
      unsubscribe?.();
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done();
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => { done(); reject(err); };
    // A client gone before the end of its body: nothing to answer, and nothing is written.
    const onClose = () => { done(); reject(Object.assign(new Error('the request was closed before its body ended'), { clientGone: true })); };
    // The request timeout (lib/server/request-timeout.ts) ends a body that trickles in too slowly.
    const deadline = ctx.state.deadline as RequestDeadline | undefined;
    const onExpire = () => { done(); reject(new Error('the request timeout expired while its body was read')); };
    if (deadline?.expired) return onExpire();
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
    unsubscribe = deadline?.onExpire(onExpire);
  });
}

export const DECODABLE = ['application/json', 'application/yaml'];

/** The media type of the body without parameters; an absent Content-Type reads as JSON. */
export function contentTypeOf(ctx: Context): string {
  return (ctx.get('content-type') || 'application/json').split(';')[0].trim().toLowerCase();
}

/** Decodes a JSON or YAML object body; anything else is 415, a malformed one 400. */
export function decodeBody(raw: Buffer, contentType: string, accepted = DECODABLE): unknown {
  if (!accepted.includes(contentType)) throw errors.unsupportedMediaType(contentType, accepted);
  const text = raw.toString('utf8');
  if (!text.trim()) throw errors.badRequest('the request body is empty');
  const yaml = contentType === 'application/yaml';
  // Nesting is bounded before anything recursive sees the body (decode-limits.ts).
  if (!yaml && jsonDepthExceeds(text)) throw errors.badRequest(`the request body could not be decoded as JSON: ${depthMessage(MAX_JSON_DEPTH)}`);
  try {
    if (yaml) {
      const docs = parseYamlDocuments(text);
      if (docs.length !== 1) throw new Error('expected exactly one YAML document');
      if (docs[0].errors.length) throw docs[0].errors[0];
      const value: unknown = docs[0].toJS({ maxAliasCount: 100 });
      // Aliases can nest what the text does not.
      if (valueDepthExceeds(value, MAX_YAML_DEPTH)) throw new Error(depthMessage(MAX_YAML_DEPTH));
      return value;
    }
    return JSON.parse(text);
  } catch (err) {
    if (isApiError(err)) throw err;
    // V8 quotes part of the input in some messages (`Unexpected token 'x', "{"token":"..." is not
    // valid JSON`, or `..."excerpt"...` from the middle of a long one): a body may hold a
    // credential, and no part of it is written back.
    const why = (err instanceof Error ? err.message.split('\n')[0] : String(err)).replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/, ': not valid JSON');
    throw errors.badRequest(`the request body could not be decoded as ${contentType === 'application/yaml' ? 'YAML' : 'JSON'}: ${why}`);
  }
}

/** Encodes a response body in the negotiated encoding; `pretty` indents JSON. */
export function encodeBody(obj: unknown, n: Pick<Negotiated, 'encoding' | 'mediaType'>, pretty: boolean): string | Buffer {
  if (n.encoding === 'protobuf') {
    if (!protobufSerializer) throw new Error('protobuf was negotiated without a registered serializer');
    return protobufSerializer.encode(obj, n.mediaType);
  }
  if (n.encoding === 'yaml') return yaml().stringify(obj);
  return `${pretty ? JSON.stringify(obj, null, 2) : JSON.stringify(obj)}\n`;
}
