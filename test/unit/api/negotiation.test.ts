import { expect } from 'chai';
import {
  decodeBody, encodeBody, negotiateResponse, parseAccept, registerProtobufSerializer, registeredProtobufSerializer,
  Negotiated, ProtobufSerializer, ResponseTarget,
} from '../../../lib/api/negotiation';
import { ApiError } from '../../../lib/meta/api-errors';

/** What kubectl get sends (CLIENTS.md). */
const KUBECTL_GET = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const JSON_ONLY: Negotiated = { format: 'json', mediaType: 'application/json', encoding: 'json' };

function refusal(accept: string | undefined, target?: ResponseTarget): ApiError {
  try {
    negotiateResponse(accept, target);
  } catch (e) {
    expect(e).to.be.instanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error(`negotiateResponse(${JSON.stringify(accept)}) did not throw`);
}

describe('negotiation', () => {
  // These cases are without protobuf unless they register one; a server started earlier in this
  // process may have registered the real serializer, which is put back afterwards.
  let registered: ProtobufSerializer | undefined;
  before(() => { registered = registeredProtobufSerializer(); registerProtobufSerializer(undefined); });
  after(() => registerProtobufSerializer(registered));

  describe('parseAccept', () => {
    it('orders by q, then concrete types before wildcards, then header order; drops q=0', () => {
      const ranges = parseAccept('*/*;q=0.8, application/yaml;q=0.8, text/plain;q=0, application/*, application/json;as=Table;g=meta.k8s.io;v=v1');
      expect(ranges.map((r) => `${r.type}/${r.subtype}${r.params.as ? `;as=${r.params.as}` : ''};q=${r.q}`)).to.deep.equal([
        'application/json;as=Table;q=1', 'application/*;q=1', 'application/yaml;q=0.8', '*/*;q=0.8',
      ]);
    });

    it('reads an absent or blank header as */*', () => {
      expect(parseAccept(undefined)).to.deep.equal([{ type: '*', subtype: '*', params: {}, q: 1 }]);
      expect(parseAccept('  ')).to.deep.equal([{ type: '*', subtype: '*', params: {}, q: 1 }]);
    });
  });

  describe('negotiateResponse: plain representations', () => {
    const rows: Array<[string | undefined, Partial<Negotiated>]> = [
      [undefined, JSON_ONLY],
      ['', JSON_ONLY],
      ['application/json', JSON_ONLY],
      ['application/json; charset=utf-8', JSON_ONLY],
      ['application/yaml', { format: 'yaml', mediaType: 'application/yaml', encoding: 'yaml' }],
      ['*/*', JSON_ONLY],
      ['application/*', JSON_ONLY],
      ['text/html, */*;q=0.1', JSON_ONLY],
      ['application/json;q=0.5, application/yaml;q=0.9', { format: 'yaml' }],
      ['application/yaml;q=0, application/json', JSON_ONLY],
      // goautoneg: at equal q a concrete type comes before a wildcard.
      ['*/*, application/yaml', { format: 'yaml' }],
      // Protobuf is not offered until a serializer is registered: kubectl falls back to JSON.
      ['application/vnd.kubernetes.protobuf, application/json', JSON_ONLY],
      ['application/vnd.kubernetes.protobuf;q=1, */*;q=0.5', JSON_ONLY],
      ['application/json;pretty=1', { format: 'json', pretty: true }],
    ];
    for (const [accept, want] of rows) {
      it(`${JSON.stringify(accept)} -> ${want.format}`, () => {
        expect(negotiateResponse(accept)).to.include(want);
      });
    }
  });

  describe('negotiateResponse: Table and PartialObjectMetadata', () => {
    it("kubectl get's Accept is a meta.k8s.io/v1 Table in JSON", () => {
      expect(negotiateResponse(KUBECTL_GET, 'list')).to.deep.equal({
        format: 'table', mediaType: 'application/json', encoding: 'json', as: 'Table', group: 'meta.k8s.io', version: 'v1',
      });
    });

    for (const group of ['meta.k8s.io', 'meta.orch.io']) {
      for (const version of ['v1', 'v1beta1']) {
        it(`as=Table;g=${group};v=${version} echoes that group and version`, () => {
          expect(negotiateResponse(`application/json;as=Table;g=${group};v=${version}`, 'object'))
            .to.include({ format: 'table', as: 'Table', group, version, encoding: 'json' });
        });
      }
    }

    it('a Table can be YAML', () => {
      expect(negotiateResponse('application/yaml;as=Table;v=v1;g=meta.orch.io')).to.include({ format: 'table', encoding: 'yaml', mediaType: 'application/yaml' });
    });

    it('*/* and application/* with as=Table are JSON Tables', () => {
      expect(negotiateResponse('*/*;as=Table;g=meta.k8s.io;v=v1')).to.include({ format: 'table', encoding: 'json' });
      expect(negotiateResponse('application/*;as=Table;g=meta.k8s.io;v=v1')).to.include({ format: 'table', encoding: 'json' });
    });

    it('falls back past Table entries it cannot produce, in order', () => {
      for (const bad of [
        'application/json;as=Table',
        'application/json;as=Table;g=meta.k8s.io;v=v2',
        'application/json;as=Table;g=example.com;v=v1',
        'application/json;as=Widget;g=meta.k8s.io;v=v1',
        'application/json;g=meta.k8s.io;v=v1',
        'application/json;as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2',
      ]) {
        expect(negotiateResponse(`${bad},application/yaml`), bad).to.include({ format: 'yaml' });
        expect(refusal(bad).code, bad).to.equal(406);
      }
    });

    it('q-values order Table against plain JSON', () => {
      expect(negotiateResponse('application/json;q=0.9,application/json;as=Table;g=meta.k8s.io;v=v1')).to.include({ format: 'table' });
      expect(negotiateResponse('application/json;as=Table;g=meta.k8s.io;v=v1;q=0.5,application/json')).to.include({ format: 'json' });
    });

    it('PartialObjectMetadata and PartialObjectMetadataList, both groups and versions', () => {
      expect(negotiateResponse('application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1', 'object'))
        .to.include({ format: 'partial', as: 'PartialObjectMetadata', group: 'meta.k8s.io', version: 'v1' });
      expect(negotiateResponse('application/json;as=PartialObjectMetadataList;g=meta.orch.io;v=v1beta1', 'list'))
        .to.include({ format: 'partial', as: 'PartialObjectMetadataList', group: 'meta.orch.io', version: 'v1beta1' });
    });

    it('a watch asked for PartialObjectMetadataList streams the objects themselves, as Kubernetes does', () => {
      expect(negotiateResponse('application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1', 'watch')).to.deep.equal(JSON_ONLY);
      expect(negotiateResponse('application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1', 'watch')).to.include({ format: 'partial' });
      expect(negotiateResponse(KUBECTL_GET, 'watch')).to.include({ format: 'table', encoding: 'json' });
    });

    it('a Status never takes a Table: the entry is skipped', () => {
      expect(negotiateResponse(KUBECTL_GET, 'status')).to.deep.equal(JSON_ONLY);
      expect(negotiateResponse('application/yaml;as=Table;g=meta.k8s.io;v=v1,application/yaml', 'status')).to.include({ format: 'yaml' });
      expect(refusal('application/json;as=Table;g=meta.k8s.io;v=v1', 'status').code).to.equal(406);
    });
  });

  describe('negotiateResponse: watch streams', () => {
    it('YAML has no watch framing: skipped for JSON, alone 406 naming the streaming types', () => {
      expect(negotiateResponse('application/yaml, application/json', 'watch')).to.deep.equal(JSON_ONLY);
      expect(negotiateResponse('*/*', 'watch')).to.deep.equal(JSON_ONLY);
      expect(refusal('application/yaml', 'watch').message).to.equal('only the following media types are accepted: application/json');
    });

    it('stream=watch needs a streaming serializer', () => {
      expect(negotiateResponse('application/json;stream=watch', 'watch')).to.deep.equal(JSON_ONLY);
      expect(negotiateResponse('application/yaml;stream=watch,application/json', 'object')).to.deep.equal(JSON_ONLY);
    });
  });

  describe('406 NotAcceptable', () => {
    it('names the media types the server produces', () => {
      for (const accept of ['application/xml', 'text/plain, image/*', 'application/vnd.kubernetes.protobuf', 'application/json;q=0']) {
        const err = refusal(accept);
        expect(err.code).to.equal(406);
        expect(err.reason).to.equal('NotAcceptable');
        expect(err.message).to.equal('only the following media types are accepted: application/json, application/yaml');
      }
    });
  });

  describe('with a registered protobuf serializer', () => {
    const pb = 'application/vnd.kubernetes.protobuf';
    before(() => registerProtobufSerializer({
      mediaTypes: [pb],
      encode: (obj) => Buffer.from(`pb:${JSON.stringify(obj)}`),
      encodeWatchEvent: (ev) => Buffer.from(`pbw:${ev.type}`),
    }));
    after(() => registerProtobufSerializer(undefined));

    it('answers protobuf first when asked first, PartialObjectMetadata too, but never a Table', () => {
      expect(negotiateResponse(`${pb}, application/json`)).to.deep.equal({ format: 'protobuf', mediaType: pb, encoding: 'protobuf' });
      expect(negotiateResponse(`${pb};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json`, 'list')).to.include({ format: 'partial', encoding: 'protobuf' });
      expect(negotiateResponse(`${pb};as=Table;g=meta.k8s.io;v=v1,application/json`)).to.deep.equal(JSON_ONLY);
      expect(negotiateResponse(pb, 'watch')).to.include({ encoding: 'protobuf' });
      expect(encodeBody({ a: 1 }, { encoding: 'protobuf', mediaType: pb }, false).toString()).to.equal('pb:{"a":1}');
      expect(refusal('application/xml').message).to.equal(`only the following media types are accepted: application/json, application/yaml, ${pb}`);
    });
  });

  describe('encodeBody', () => {
    it('JSON is one line unless pretty; YAML is YAML', () => {
      expect(encodeBody({ a: { b: 1 } }, { encoding: 'json', mediaType: 'application/json' }, false)).to.equal('{"a":{"b":1}}\n');
      expect(encodeBody({ a: { b: 1 } }, { encoding: 'json', mediaType: 'application/json' }, true)).to.equal('{\n  "a": {\n    "b": 1\n  }\n}\n');
      expect(encodeBody({ a: { b: 1 } }, { encoding: 'yaml', mediaType: 'application/yaml' }, false)).to.equal('a:\n  b: 1\n');
    });
  });

  describe('decodeBody (Content-Type)', () => {
    it('decodes JSON and YAML objects', () => {
      expect(decodeBody(Buffer.from('{"kind":"ConfigMap"}'), 'application/json')).to.deep.equal({ kind: 'ConfigMap' });
      expect(decodeBody(Buffer.from('kind: ConfigMap\ndata:\n  a: "1"\n'), 'application/yaml')).to.deep.equal({ kind: 'ConfigMap', data: { a: '1' } });
    });

    it('an unknown Content-Type is 415 naming the accepted types and the header', () => {
      let err: ApiError | undefined;
      try { decodeBody(Buffer.from('x'), 'text/plain'); } catch (e) { err = e as ApiError; }
      expect(err).to.be.instanceOf(ApiError);
      expect(err!.code).to.equal(415);
      expect(err!.reason).to.equal('UnsupportedMediaType');
      expect(err!.message).to.equal('the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
      expect(err!.details?.causes).to.deep.equal([{ reason: 'UnexpectedHeader', message: 'unsupported media type "text/plain"', field: 'Content-Type' }]);
    });

    it('a malformed body is 400 naming the format', () => {
      expect(() => decodeBody(Buffer.from('{'), 'application/json')).to.throw(ApiError, /could not be decoded as JSON/);
      // No part of the body is quoted back (it may hold a token).
      let message = '';
      try { decodeBody(Buffer.from('s3cr3t-token-value'), 'application/json'); } catch (err) { message = (err as Error).message; }
      expect(message).to.match(/could not be decoded as JSON: Unexpected token/);
      expect(message).to.not.include('s3cr3t');
      // Nor from the middle of a long body, which V8 quotes as ..."excerpt"...
      try { decodeBody(Buffer.from(`{"padding":"${'x'.repeat(40)}","token":s3cr3t-token-value-in-the-middle-of-a-long-body}`), 'application/json'); } catch (err) { message = (err as Error).message; }
      expect(message).to.match(/could not be decoded as JSON: Unexpected token/);
      expect(message).to.not.include('s3cr3t').and.to.not.include('padding');
      expect(() => decodeBody(Buffer.from('a: [unclosed'), 'application/yaml')).to.throw(ApiError, /could not be decoded as YAML/);
      expect(() => decodeBody(Buffer.from('a: 1\n---\nb: 2\n'), 'application/yaml')).to.throw(ApiError, /exactly one YAML document/);
    });
  });
});
