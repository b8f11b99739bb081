/**
 * The hand-written protobuf encoding of the lean etcd watch (lib/storage/etcd3/watch-stream.ts),
 * checked against protobufjs reading etcd's own .proto files (as shipped with the etcd3 package),
 * and the cutting of a gRPC body into messages however DATA frames split or pack them.
 */
import { expect } from 'chai';
import { BIG, b, base64, decodeWith, encodeWith } from '../../helpers/etcd-proto';
import { decodeWatchResponse, encodeWatchCreateRequest } from '../../../lib/storage/etcd3/watch-stream';
import { GrpcMessageCutter } from '../../../lib/storage/etcd3/grpc-message-cutter';

/** A gRPC message: the 5-byte prefix, then `msg`. */
const framed = (msg: Buffer) => {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(msg.length, 1);
  return Buffer.concat([prefix, msg]);
};

/** Runs `chunks` through one cutter, returning every message it gives. */
function cut(chunks: Buffer[]): Buffer[] {
  const cutter = new GrpcMessageCutter();
  const all: Buffer[] = [];
  const out: Buffer[] = [];
  for (const c of chunks) {
    cutter.push(c, out);
    all.push(...out);
    out.length = 0;
  }
  return all;
}

describe('etcd watch wire format', () => {
  it('WatchRequest{create_request}: every field the watch sends, int64s past 2^32', () => {
    const msg = decodeWith('etcdserverpb.WatchRequest', encodeWatchCreateRequest({
      key: b('/registry/pods/'), rangeEnd: b('/registry/pods0'), startRevision: BIG, progressNotify: true, prevKv: true,
    }));
    expect(msg).to.deep.equal({
      createRequest: { key: base64('/registry/pods/'), rangeEnd: base64('/registry/pods0'), startRevision: BIG, progressNotify: true, prevKv: true },
      requestUnion: 'createRequest',
    });
    // The oneof member is written even when the create request is all defaults.
    expect(decodeWith('etcdserverpb.WatchRequest', encodeWatchCreateRequest({ key: Buffer.alloc(0) })))
      .to.deep.equal({ createRequest: {}, requestUnion: 'createRequest' });
    expect(decodeWith('etcdserverpb.WatchRequest', encodeWatchCreateRequest({ key: b('k'), startRevision: 1 })))
      .to.deep.equal({ createRequest: { key: base64('k'), startRevision: 1 }, requestUnion: 'createRequest' });
  });

  it('WatchResponse: events with kv and prev_kv, revisions as plain numbers, unknown fields skipped', () => {
    const res = decodeWatchResponse(encodeWith('etcdserverpb.WatchResponse', {
      header: { clusterId: '18446744073709551615', memberId: 2, revision: BIG + 2, raftTerm: 4 },
      watchId: 7,
      events: [
        { type: 0, kv: { key: base64('/k1'), createRevision: BIG, modRevision: BIG, version: 1, value: base64('v1'), lease: 99 } },
        { type: 0, kv: { key: base64('/k1'), createRevision: BIG, modRevision: BIG + 1, version: 2, value: base64('v2') },
          prevKv: { key: base64('/k1'), createRevision: BIG, modRevision: BIG, version: 1, value: base64('v1') } },
        { type: 1, kv: { key: base64('/k1'), modRevision: BIG + 2 },
          prevKv: { key: base64('/k1'), createRevision: BIG, modRevision: BIG + 1, version: 2, value: base64('v2') } },
      ],
    }));
    expect(res).to.include({ watchId: 7, created: false, canceled: false, compactRevision: 0, cancelReason: '', fragment: false });
    expect(res.header).to.deep.equal({ revision: BIG + 2, raftTerm: 4 });
    const view = res.events.map((e) => ({
      type: e.type,
      kv: { ...e.kv, key: e.kv.key.toString(), value: e.kv.value.toString() },
      prev: e.prevKv && { ...e.prevKv, key: e.prevKv.key.toString(), value: e.prevKv.value.toString() },
    }));
    expect(view).to.deep.equal([
      { type: 0, kv: { key: '/k1', value: 'v1', createRevision: BIG, modRevision: BIG, version: 1 }, prev: undefined },
      { type: 0, kv: { key: '/k1', value: 'v2', createRevision: BIG, modRevision: BIG + 1, version: 2 },
        prev: { key: '/k1', value: 'v1', createRevision: BIG, modRevision: BIG, version: 1 } },
      { type: 1, kv: { key: '/k1', value: '', createRevision: 0, modRevision: BIG + 2, version: 0 },
        prev: { key: '/k1', value: 'v2', createRevision: BIG, modRevision: BIG + 1, version: 2 } },
    ]);
  });

  it('WatchResponse: created, canceled with a reason, compact_revision, fragment, and watch_id -1', () => {
    expect(decodeWatchResponse(encodeWith('etcdserverpb.WatchResponse', { header: { revision: 9 }, watchId: 0, created: true })))
      .to.deep.equal({ header: { revision: 9 }, watchId: 0, created: true, canceled: false, compactRevision: 0, cancelReason: '', fragment: false, events: [] });
    expect(decodeWatchResponse(encodeWith('etcdserverpb.WatchResponse', {
      header: { revision: 9 }, watchId: -1, created: true, canceled: true, cancelReason: 'etcdserver: permission denied ✓',
    }))).to.include({ watchId: -1, created: true, canceled: true, cancelReason: 'etcdserver: permission denied ✓' });
    expect(decodeWatchResponse(encodeWith('etcdserverpb.WatchResponse', { watchId: 3, canceled: true, compactRevision: BIG, fragment: true })))
      .to.include({ watchId: 3, canceled: true, compactRevision: BIG, fragment: true });
    expect(decodeWatchResponse(Buffer.alloc(0)).header).to.deep.equal({ revision: 0 });
  });

  it('malformed responses throw instead of decoding garbage', () => {
    const good = encodeWith('etcdserverpb.WatchResponse', { header: { revision: 5 }, events: [{ type: 1, kv: { key: base64('/k'), value: base64('value') } }] });
    // Protobuf has no overall length: a cut between fields (after the 4-byte header) is a valid message.
    for (let cut = 1; cut < good.length; cut++) {
      if (cut === 4) continue;
      expect(() => decodeWatchResponse(good.subarray(0, cut)), `cut at ${cut}`).to.throw();
    }
  });

  describe('cutting the body into messages', () => {
    const messages = [0, 1, 4, 5, 300, 70_000].map((n, i) => Buffer.alloc(n, i + 1));
    const body = Buffer.concat(messages.map(framed));

    it('several messages in one chunk, and each split at every position', () => {
      expect(cut([body])).to.deep.equal(messages);
      for (let at = 0; at <= body.length; at += at < 400 ? 1 : 997) {
        expect(cut([body.subarray(0, at), body.subarray(at)]), `split at ${at}`).to.deep.equal(messages);
      }
    });

    it('one byte at a time, and in DATA-frame-sized pieces', () => {
      expect(cut([...body.subarray(0, 400)].map((x) => Buffer.from([x])))).to.deep.equal(cut([body.subarray(0, 400)]));
      const pieces: Buffer[] = [];
      for (let at = 0; at < body.length; at += 16_384) pieces.push(body.subarray(at, at + 16_384));
      expect(cut(pieces)).to.deep.equal(messages);
    });

    it('a 1 MiB message behind a small one, and the prefix split across three chunks', () => {
      const big = Buffer.alloc(1024 * 1024, 7);
      const stream = Buffer.concat([framed(b('a')), framed(big), framed(b('z'))]);
      // 6 = first message; 6..11 = the big one's prefix, cut after 1 and 3 of its bytes.
      expect(cut([stream.subarray(0, 7), stream.subarray(7, 9), stream.subarray(9, 100), stream.subarray(100)])).to.deep.equal([b('a'), big, b('z')]);
    });

    it('messages are copies, not views of the chunk (which may be a whole socket read)', () => {
      // As node:http2's chunks: a view of a larger ArrayBuffer of its own.
      const read = Buffer.allocUnsafeSlow(30).fill(0);
      framed(b('hello')).copy(read, 10);
      const chunk = read.subarray(10, 20);
      const [msg] = cut([chunk]);
      expect(msg.toString()).to.equal('hello');
      expect(msg.buffer).to.not.equal(chunk.buffer);
      chunk.fill(0);
      expect(msg.toString()).to.equal('hello');
    });

    it('each message owns an ArrayBuffer of its size, never a slice of the shared pool (a cached event would pin 8 KiB)', () => {
      // Small messages: whole in one chunk, and completed across chunks (the concatenating path).
      const stream = Buffer.concat([framed(b('lease renewal')), framed(Buffer.alloc(900, 1)), framed(Buffer.alloc(3000, 2))]);
      // Whole; and the second message completed by a chunk that also carries the third.
      for (const chunks of [[stream], [stream.subarray(0, 3), stream.subarray(3, 700), stream.subarray(700)]]) {
        const msgs = cut(chunks);
        expect(msgs.map((m) => m.length)).to.deep.equal([13, 900, 3000]);
        for (const m of msgs) {
          expect(m.buffer.byteLength, `a message of ${m.length} bytes`).to.equal(m.length);
        }
      }
    });

    it('a compressed message throws', () => {
      const c = framed(b('x'));
      c[0] = 1;
      expect(() => cut([c])).to.throw(/compressed/);
    });
  });
});
