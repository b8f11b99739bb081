/**
 * The protobuf envelope of the spec: the prefix k8s\0, then runtime.Unknown with the typeMeta
 * and, in `raw`, the kind's own message. Bodies, responses, watch-event objects and stored
 * values all take this form.
 */
import { Reader } from 'protobufjs';
import { ApiObject } from '../types';
import { errors } from '../../meta/api-errors';
import { protobufMediaTypes } from '../../naming';
import { decodeMessage, encodeMessage } from './message-codec';
import { kindMessageType } from './kinds';

/** The 4-byte prefix 0x6b 0x38 0x73 0x00 ("k8s\0"). */
export const PROTOBUF_PREFIX = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

const UNKNOWN = 'k8s.io.apimachinery.pkg.runtime.Unknown';

/** Whether `bytes` start with the protobuf prefix. */
export function hasProtobufPrefix(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x6b && bytes[1] === 0x38 && bytes[2] === 0x73 && bytes[3] === 0;
}

/**
 * `obj` in the envelope: its typeMeta from apiVersion and kind, `raw` its kind's message.
 * Throws (a plain Error: a server fault) when the kind has no protobuf or a field has a value
 * of the wrong type.
 */
export function encodeProtobuf(obj: ApiObject): Buffer {
  const type = kindMessageType(obj.apiVersion, obj.kind);
  if (!type) throw new Error(`the kind ${obj.kind} of ${obj.apiVersion} has no protobuf serialization`);
  const raw = encodeMessage(type, obj);
  const unknown = encodeMessage(UNKNOWN, {
    typeMeta: { apiVersion: obj.apiVersion, kind: obj.kind },
    raw,
    contentEncoding: '',
    contentType: '',
  });
  return Buffer.concat([PROTOBUF_PREFIX, unknown]);
}

interface Envelope { apiVersion: string; kind: string; raw: Uint8Array; contentEncoding: string; contentType: string }

/** Reads runtime.Unknown without copying `raw` (stored values are read on every list). */
function readEnvelope(bytes: Uint8Array): Envelope {
  const r = Reader.create(bytes);
  r.pos = PROTOBUF_PREFIX.length;
  const env: Envelope = { apiVersion: '', kind: '', raw: new Uint8Array(0), contentEncoding: '', contentType: '' };
  const string = (tag: number) => {
    if ((tag & 7) !== 2) throw new Error(`invalid wire type ${tag & 7} in the Unknown envelope`);
    return r.string();
  };
  while (r.pos < r.len) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1: {
        if ((tag & 7) !== 2) throw new Error('invalid wire type for Unknown.typeMeta');
        const end = r.uint32() + r.pos;
        while (r.pos < end) {
          const t = r.uint32();
          if (t >>> 3 === 1) env.apiVersion = string(t);
          else if (t >>> 3 === 2) env.kind = string(t);
          else r.skipType(t & 7);
        }
        if (r.pos !== end) throw new RangeError('Unknown.typeMeta runs past its length');
        break;
      }
      case 2:
        if ((tag & 7) !== 2) throw new Error('invalid wire type for Unknown.raw');
        env.raw = r.bytes();
        break;
      case 3: env.contentEncoding = string(tag); break;
      case 4: env.contentType = string(tag); break;
      default: r.skipType(tag & 7);
    }
  }
  if (r.pos !== r.len) throw new RangeError('the Unknown envelope runs past the end of the body');
  return env;
}

/**
 * The object in an enveloped protobuf body, as JSON with apiVersion and kind first. A missing
 * or different prefix, an undecodable body, an encoding or content type other than plain
 * protobuf, or a kind without protobuf is a BadRequest.
 */
export function decodeProtobuf(buf: Uint8Array): ApiObject {
  if (!hasProtobufPrefix(buf)) {
    throw errors.badRequest('the protobuf body does not start with the expected prefix 0x6b 0x38 0x73 0x00 ("k8s\\0")');
  }
  let env: Envelope;
  try {
    env = readEnvelope(buf);
  } catch (err) {
    throw errors.badRequest(`the protobuf body could not be decoded: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (env.contentEncoding) throw errors.badRequest(`the protobuf body has an unsupported content encoding ${JSON.stringify(env.contentEncoding)}`);
  if (env.contentType && !protobufMediaTypes.includes(env.contentType.split(';')[0].trim().toLowerCase())) {
    throw errors.badRequest(`the protobuf body holds an unsupported content type ${JSON.stringify(env.contentType)}`);
  }
  const type = kindMessageType(env.apiVersion, env.kind);
  if (!type) throw errors.badRequest(`no protobuf serialization for kind ${JSON.stringify(env.kind)} in version ${JSON.stringify(env.apiVersion)}`);
  let fields: unknown;
  try {
    fields = decodeMessage(type, env.raw);
  } catch (err) {
    throw errors.badRequest(`the protobuf body could not be decoded as ${env.kind}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { apiVersion: env.apiVersion, kind: env.kind, ...(fields as Record<string, unknown>) };
}
