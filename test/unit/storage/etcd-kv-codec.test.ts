/**
 * The hand-written protobuf encoding of the lean etcd KV client, checked against protobufjs
 * reading etcd's own .proto files (as shipped with the etcd3 package): every field the client
 * writes or reads, int64s past 2^32, oneof members that are 0, and malformed answers.
 */
import { expect } from 'chai';
import { BIG, b, base64, decodeWith, encodeWith } from '../../helpers/etcd-proto';
import {
  decodeRangeResponse, decodeTxnResponse, decodeCompactionResponse, encodeCompactionRequest, encodeRangeRequest, encodeTxnRequest,
} from '../../../lib/storage/etcd3/kv-codec';

describe('etcd KV client wire format', () => {
  it('RangeRequest: every field, int64s past 2^32', () => {
    const msg = decodeWith('etcdserverpb.RangeRequest', encodeRangeRequest({
      key: b('/registry/a'), rangeEnd: b('/registry0'), limit: 500, revision: BIG,
      serializable: true, keysOnly: true, countOnly: true, minModRevision: BIG + 1,
    }));
    expect(msg).to.deep.equal({
      key: base64('/registry/a'), rangeEnd: base64('/registry0'), limit: 500, revision: BIG,
      serializable: true, keysOnly: true, countOnly: true, minModRevision: BIG + 1,
    });
    expect(decodeWith('etcdserverpb.RangeRequest', encodeRangeRequest({ key: b('k') }))).to.deep.equal({ key: base64('k') });
  });

  it('TxnRequest: compares with their oneof member even when 0, and each kind of operation', () => {
    const msg = decodeWith('etcdserverpb.TxnRequest', encodeTxnRequest({
      compare: [
        { key: b('a'), target: 'Create', result: 'Equal', createRevision: 0 },
        { key: b('b'), target: 'Mod', result: 'Less', modRevision: BIG },
        { key: b('c'), target: 'Version', result: 'NotEqual' },
        { key: b('d'), target: 'Value', result: 'Greater', value: Buffer.alloc(0) },
      ],
      success: [
        { put: { key: b('a'), value: Buffer.alloc(300, 1) } },
        { deleteRange: { key: b('b'), rangeEnd: b('c') } },
      ],
      failure: [{ range: { key: b('a'), revision: 7 } }, { put: { key: b('e'), value: Buffer.alloc(0) } }],
    }));
    expect(msg.compare).to.deep.equal([
      { key: base64('a'), target: 1, createRevision: 0, targetUnion: 'createRevision' },
      { key: base64('b'), target: 2, result: 2, modRevision: BIG, targetUnion: 'modRevision' },
      { key: base64('c'), result: 3, version: 0, targetUnion: 'version' },
      { key: base64('d'), target: 3, result: 1, value: '', targetUnion: 'value' },
    ]);
    expect(msg.success).to.deep.equal([
      { requestPut: { key: base64('a'), value: Buffer.alloc(300, 1).toString('base64') }, request: 'requestPut' },
      { requestDeleteRange: { key: base64('b'), rangeEnd: base64('c') }, request: 'requestDeleteRange' },
    ]);
    expect(msg.failure).to.deep.equal([
      { requestRange: { key: base64('a'), revision: 7 }, request: 'requestRange' },
      { requestPut: { key: base64('e') }, request: 'requestPut' },
    ]);
    expect(decodeWith('etcdserverpb.TxnRequest', encodeTxnRequest({}))).to.deep.equal({});
    expect(() => encodeTxnRequest({ success: [{}] })).to.throw(TypeError);
  });

  it('CompactionRequest', () => {
    expect(decodeWith('etcdserverpb.CompactionRequest', encodeCompactionRequest(BIG, true))).to.deep.equal({ revision: BIG, physical: true });
    expect(decodeWith('etcdserverpb.CompactionRequest', encodeCompactionRequest(12, false))).to.deep.equal({ revision: 12 });
  });

  it('RangeResponse: header revision and raft term, kvs, more and count as plain numbers; unknown fields skipped', () => {
    const kv = { key: base64('/k1'), createRevision: BIG, modRevision: BIG + 1, version: 3, value: base64('v1'), lease: 99 };
    const res = decodeRangeResponse(encodeWith('etcdserverpb.RangeResponse', {
      header: { clusterId: '18446744073709551615', memberId: 2, revision: BIG + 2, raftTerm: 4 },
      kvs: [kv, { key: base64('/k2'), createRevision: 1, modRevision: 1, version: 1 }],
      more: true, count: 70_000,
    }));
    expect(res.header).to.deep.equal({ revision: BIG + 2, raftTerm: 4 });
    expect(res.more).to.equal(true);
    expect(res.count).to.equal(70_000);
    expect(res.kvs.map((k) => ({ ...k, key: k.key.toString(), value: k.value.toString() }))).to.deep.equal([
      { key: '/k1', value: 'v1', createRevision: BIG, modRevision: BIG + 1, version: 3 },
      { key: '/k2', value: '', createRevision: 1, modRevision: 1, version: 1 },
    ]);
    expect(decodeRangeResponse(Buffer.alloc(0))).to.deep.equal({ header: { revision: 0 }, kvs: [], more: false, count: 0 });
  });

  it('TxnResponse: succeeded and the responses of each kind, in order', () => {
    const res = decodeTxnResponse(encodeWith('etcdserverpb.TxnResponse', {
      header: { revision: 10 },
      succeeded: true,
      responses: [
        { responsePut: { header: { revision: 10 }, prevKv: { key: base64('x') } } },
        { responseDeleteRange: { header: { revision: 10 }, deleted: 2 } },
        { responseRange: { header: { revision: 10 }, kvs: [{ key: base64('r'), value: base64('v'), createRevision: 5, modRevision: 6, version: 2 }], count: 1 } },
      ],
    }));
    expect(res.succeeded).to.equal(true);
    expect(res.header.revision).to.equal(10);
    expect(res.responses[0]).to.deep.equal({ responsePut: { header: { revision: 10 } } });
    expect(res.responses[1]).to.deep.equal({ responseDeleteRange: { header: { revision: 10 }, deleted: 2 } });
    const range = res.responses[2].responseRange!;
    expect(range.kvs[0]).to.include({ createRevision: 5, modRevision: 6, version: 2 });
    expect(range.kvs[0].value.toString()).to.equal('v');
    expect(decodeTxnResponse(encodeWith('etcdserverpb.TxnResponse', { header: { revision: 3 } }))).to.deep.equal({ header: { revision: 3 }, succeeded: false, responses: [] });
    expect(decodeCompactionResponse(encodeWith('etcdserverpb.CompactionResponse', { header: { revision: 8 } }))).to.deep.equal({ header: { revision: 8 } });
  });

  it('malformed answers throw instead of decoding garbage', () => {
    const good = encodeWith('etcdserverpb.RangeResponse', { header: { revision: 5 }, kvs: [{ key: base64('/k'), value: base64('value') }] });
    // Protobuf has no overall length: a cut between fields (after the 4-byte header) is a valid message.
    for (let cut = 1; cut < good.length; cut++) {
      if (cut === 4) continue;
      expect(() => decodeRangeResponse(good.subarray(0, cut)), `cut at ${cut}`).to.throw();
    }
    expect(() => decodeRangeResponse(Buffer.from([0x0b]))).to.throw(/wire type/);
  });
});
