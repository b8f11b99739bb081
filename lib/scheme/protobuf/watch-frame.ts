/**
 * Protobuf watch streams: each frame is a 4-byte big-endian length and a meta.v1.WatchEvent
 * (type = 1, object = 2: a RawExtension whose raw = 1 is the object with the k8s\0 envelope).
 * The event itself has no prefix or envelope, as Kubernetes' raw stream serializer writes it.
 */
import { Reader, Writer } from 'protobufjs';
import { ApiObject } from '../types';
import { decodeProtobuf, encodeProtobuf } from './envelope';

/** One length-prefixed frame for a watch event of `obj`. */
export function encodeWatchFrame(eventType: string, obj: ApiObject): Buffer {
  const event = Writer.create()
    .uint32(10).string(eventType)
    .uint32(18).fork().uint32(10).bytes(encodeProtobuf(obj)).ldelim()
    .finish();
  const frame = Buffer.alloc(4 + event.length);
  frame.writeUInt32BE(event.length, 0);
  frame.set(event, 4);
  return frame;
}

/** The event in one frame body (without the length): its type and object. */
export function decodeWatchEvent(body: Uint8Array): { type: string; object: ApiObject } {
  const r = Reader.create(body);
  let type = '';
  let raw: Uint8Array = new Uint8Array(0);
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag === 10) type = r.string();
    else if (tag === 18) {
      const end = r.uint32() + r.pos;
      while (r.pos < end) {
        const t = r.uint32();
        if (t === 10) raw = r.bytes();
        else r.skipType(t & 7);
      }
    } else r.skipType(tag & 7);
  }
  return { type, object: decodeProtobuf(raw) };
}

/**
 * Splits a protobuf watch stream into event bodies; `rest` is an incomplete last frame to
 * prepend to the next chunk.
 */
export function splitWatchFrames(stream: Buffer): { frames: Buffer[]; rest: Buffer } {
  const frames: Buffer[] = [];
  let pos = 0;
  while (stream.length - pos >= 4) {
    const len = stream.readUInt32BE(pos);
    if (stream.length - pos - 4 < len) break;
    frames.push(stream.subarray(pos + 4, pos + 4 + len));
    pos += 4 + len;
  }
  return { frames, rest: stream.subarray(pos) };
}
