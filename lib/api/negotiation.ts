/**
 * Content negotiation: which representation a response takes (from Accept) and how a request
 * body is decoded (from Content-Type). Formats not produced here yet are refused with 406/415.
 */
import type { Context } from 'koa';
import YAML from 'yaml';
import { errors } from '../meta/api-errors';

export interface MediaRange {
  type: string;
  subtype: string;
  params: Record<string, string>;
  q: number;
}

/** Parses an Accept header into media ranges, highest q first (stable for equal q). */
export function parseAccept(header: string | undefined): MediaRange[] {
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
  return ranges.map((r, i) => ({ r, i })).sort((a, b) => b.r.q - a.r.q || a.i - b.i).map((x) => x.r);
}

export type ResponseFormat = 'json' | 'yaml';

export interface Negotiated {
  format: ResponseFormat;
  mediaType: string;
}

const OFFERED: Negotiated[] = [
  { format: 'json', mediaType: 'application/json' },
  { format: 'yaml', mediaType: 'application/yaml' },
];

/**
 * The first Accept entry we can produce. Entries asking for another shape (`as=Table`,
 * `as=PartialObjectMetadata`) or protobuf are skipped, so a fallback later in the list wins.
 */
export function negotiateResponse(accept: string | undefined): Negotiated {
  for (const r of parseAccept(accept)) {
    if (r.params.as) continue;
    if (r.type === '*' && r.subtype === '*') return OFFERED[0];
    if (r.type === 'application' && r.subtype === '*') return OFFERED[0];
    const found = OFFERED.find((o) => o.mediaType === `${r.type}/${r.subtype}`);
    if (found) return found;
  }
  throw errors.notAcceptable(OFFERED.map((o) => o.mediaType));
}

/** Kubernetes' cap on request bodies. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export async function readRawBody(ctx: Context, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) throw errors.tooLarge(`Request entity too large: limit is ${limit}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw errors.tooLarge(`Request entity too large: limit is ${limit}`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
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
  try {
    if (contentType === 'application/yaml') {
      const docs = YAML.parseAllDocuments(text);
      if (docs.length !== 1) throw new Error('expected exactly one YAML document');
      if (docs[0].errors.length) throw docs[0].errors[0];
      return docs[0].toJS({ maxAliasCount: 100 });
    }
    return JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw errors.badRequest(`the request body could not be decoded as ${contentType === 'application/yaml' ? 'YAML' : 'JSON'}: ${why}`);
  }
}

/** Encodes a response body in the negotiated format; `pretty` indents JSON. */
export function encodeBody(obj: unknown, format: ResponseFormat, pretty: boolean): string {
  if (format === 'yaml') return YAML.stringify(obj);
  return `${pretty ? JSON.stringify(obj, null, 2) : JSON.stringify(obj)}\n`;
}
