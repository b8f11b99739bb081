/**
 * etcd's own .proto files (as shipped with the etcd3 package), read by protobufjs: the reference
 * the hand-written codecs of the lean etcd client are checked against.
 */
import { expect } from 'chai';
import path from 'node:path';
import protobuf from 'protobufjs';

const root = protobuf.loadSync(path.join(require.resolve('etcd3/package.json'), '..', 'proto', 'rpc.proto'));

export const protoType = (name: string) => root.lookupType(name);

/** An int64 past 2^32, to catch 32-bit truncation. */
export const BIG = 2 ** 40 + 5;
export const b = (s: string) => Buffer.from(s);
export const base64 = (s: string) => Buffer.from(s).toString('base64');

/** The message behind the 5-byte gRPC prefix (checked), as protobufjs reads it into a plain object. */
export function decodeWith(name: string, framed: Buffer): Record<string, unknown> {
  expect(framed[0]).to.equal(0);
  expect(framed.readUInt32BE(1)).to.equal(framed.length - 5);
  const t = protoType(name);
  return t.toObject(t.decode(framed.subarray(5)), { longs: Number, bytes: String, oneofs: true, defaults: false });
}

/** `obj` encoded by protobufjs as message `name` (no gRPC prefix). */
export function encodeWith(name: string, obj: Record<string, unknown>): Buffer {
  const t = protoType(name);
  return Buffer.from(t.encode(t.fromObject(obj)).finish());
}
