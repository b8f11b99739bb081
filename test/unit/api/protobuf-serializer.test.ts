/**
 * Protobuf at the HTTP edge: the registered serializer in negotiateResponse (offered only for
 * kinds that have protobuf, so `protobuf, json` falls back to JSON for the others and protobuf
 * alone is 406), and protobuf request bodies (decodeRequestBody).
 */
import { expect } from 'chai';
import { ApiError } from '../../../lib/meta/api-errors';
import { negotiateResponse, registerProtobufSerializer, registeredProtobufSerializer } from '../../../lib/api/negotiation';
import { protobufSerializer } from '../../../lib/api/protobuf-serializer';
import { decodeRequestBody } from '../../../lib/api/protobuf-body';
import { decodeProtobuf, decodeWatchEvent, encodeProtobuf, splitWatchFrames } from '../../../lib/scheme/protobuf';

const PB = 'application/vnd.kubernetes.protobuf';
const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const WIDGET = { apiVersion: 'example.com/v1', kind: 'Widget' };

function thrown(fn: () => unknown): ApiError {
  try { fn(); } catch (e) { return e as ApiError; }
  throw new Error('expected an error');
}

describe('protobuf serializer (lib/api/protobuf-serializer)', () => {
  let before: ReturnType<typeof registeredProtobufSerializer>;
  beforeEach(() => { before = registeredProtobufSerializer(); registerProtobufSerializer(protobufSerializer); });
  afterEach(() => registerProtobufSerializer(before));

  it('is chosen for a kind with protobuf, in either spelling', () => {
    expect(negotiateResponse(`${PB}, application/json`, 'object', CONFIG_MAP)).to.include({ encoding: 'protobuf', mediaType: PB });
    expect(negotiateResponse('application/vnd.orch.protobuf', 'list', CONFIG_MAP)).to.include({ encoding: 'protobuf', mediaType: 'application/vnd.orch.protobuf' });
    expect(negotiateResponse(`${PB}, application/json`, 'watch', CONFIG_MAP)).to.include({ encoding: 'protobuf' });
  });

  it('falls back to JSON for a kind without protobuf, and is 406 when protobuf was the only choice', () => {
    expect(negotiateResponse(`${PB}, application/json`, 'object', WIDGET)).to.include({ encoding: 'json' });
    const err = thrown(() => negotiateResponse(PB, 'object', WIDGET));
    expect(err.code).to.equal(406);
    expect(err.message).to.equal('only the following media types are accepted: application/json, application/yaml');
  });

  it('encodes objects and watch events in the envelope, and refuses a kind without protobuf with 406', () => {
    const cm = { ...CONFIG_MAP, metadata: { name: 'x' }, data: { a: 'b' } };
    expect(decodeProtobuf(protobufSerializer.encode(cm, PB))).to.deep.equal(cm);
    const { frames } = splitWatchFrames(protobufSerializer.encodeWatchEvent({ type: 'ADDED', object: cm }, PB));
    expect(decodeWatchEvent(frames[0])).to.deep.equal({ type: 'ADDED', object: cm });
    expect(thrown(() => protobufSerializer.encode({ ...WIDGET, metadata: { name: 'w' } }, PB)).code).to.equal(406);
  });
});

describe('decodeRequestBody (lib/api/protobuf-body)', () => {
  const body = encodeProtobuf({ ...CONFIG_MAP, metadata: { name: 'x' } });

  it('decodes protobuf bodies in either spelling and JSON as before', () => {
    expect(decodeRequestBody(body, PB, CONFIG_MAP)).to.deep.equal({ ...CONFIG_MAP, metadata: { name: 'x' } });
    expect(decodeRequestBody(body, 'application/vnd.orch.protobuf')).to.deep.equal({ ...CONFIG_MAP, metadata: { name: 'x' } });
    expect(decodeRequestBody(Buffer.from('{"a":1}'), 'application/json')).to.deep.equal({ a: 1 });
  });

  it('a bad prefix is 400; protobuf for a kind without it is 415', () => {
    expect(thrown(() => decodeRequestBody(Buffer.from('{"a":1}'), PB, CONFIG_MAP)).code).to.equal(400);
    const err = thrown(() => decodeRequestBody(body, PB, WIDGET));
    expect(err.code).to.equal(415);
  });

  it('an unknown Content-Type is 415 naming the protobuf types too', () => {
    const err = thrown(() => decodeRequestBody(Buffer.from('x'), 'text/plain'));
    expect(err.code).to.equal(415);
    expect(err.message).to.match(/application\/json, application\/yaml, application\/vnd\.orch\.protobuf, application\/vnd\.kubernetes\.protobuf$/);
  });
});
