/**
 * The encodings shared by a watch event's streams (lib/api/shared-events.ts) live as long as the
 * watch cache keeps the event: they must be the encoding, made once, and hold no more memory than
 * their own bytes (a slice of Node's 8 KiB Buffer pool would pin the whole slab).
 */
import { expect } from 'chai';
import { encodedOnce } from '../../../lib/api/shared-events';

describe('shared watch event encodings', () => {
  it('are made once per object and representation, in ArrayBuffers of their own size', () => {
    const object = { kind: 'Lease' };
    let calls = 0;
    const json = encodedOnce(object, 'application/json|MODIFIED', () => { calls++; return '{"type":"MODIFIED"}\n'; });
    expect(json.toString()).to.equal('{"type":"MODIFIED"}\n');
    expect(json.buffer.byteLength).to.equal(json.length);
    expect(encodedOnce(object, 'application/json|MODIFIED', () => { calls++; return 'other'; })).to.equal(json);
    expect(calls).to.equal(1);

    // A Buffer that is a small slice of a larger ArrayBuffer (as Buffer.from puts short ones in the pool) is copied...
    const pooled = Buffer.from([1, 2, 3]);
    const proto = encodedOnce(object, 'application/vnd.kubernetes.protobuf|MODIFIED', () => pooled);
    expect([...proto]).to.deep.equal([1, 2, 3]);
    expect(proto.buffer.byteLength).to.equal(3);
    // ...and one that owns its ArrayBuffer is kept as it is.
    const own = Buffer.allocUnsafeSlow(5).fill(9);
    expect(encodedOnce({}, 'k', () => own)).to.equal(own);
  });
});
