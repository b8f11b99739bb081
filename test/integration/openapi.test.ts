/**
 * The OpenAPI documents as clients fetch them: the v3 index, each group/version document by its
 * hashed URL with kube-openapi's caching headers, and the v2 document; and that what they
 * promise (patch content types, fieldValidation) is what the server does.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { crdHttp } from '../helpers/crd-http';
import { protocDecodeOpenApiV2 } from '../helpers/protoc';
import { decodeOpenApiV2Protobuf } from '../../lib/api/openapi/v2-protobuf';

/** What kubectl (client-go) sends for `/openapi/v2`: protobuf only. */
const KUBECTL_V2_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const HASH = /^[0-9A-F]{128}$/;
/** The Content-Type of the protobuf form (kube-openapi's). */
const V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

describe('OpenAPI endpoints', () => {
  let t: TestServer;
  before(async () => { t = await startTestServer(); });
  after(async () => { await t?.stop(); });

  const sha512 = (text: string | Buffer) => createHash('sha512').update(text).digest('hex').toUpperCase();

  async function coreDocumentUrl(): Promise<string> {
    const index = await t.get('/openapi/v3');
    return index.body.paths['api/v1'].serverRelativeURL;
  }

  describe('GET /openapi/v3', () => {
    it('lists a hashed URL for every group/version discovery serves', async () => {
      const res = await t.get('/openapi/v3');
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('application/json');
      expect(res.headers.etag).to.equal(`"${sha512(res.text)}"`);
      const groups = (await t.get('/apis')).body.groups as { versions: { groupVersion: string }[] }[];
      const expected = ['api/v1', ...groups.flatMap((g) => g.versions.map((v) => `apis/${v.groupVersion}`))];
      expect(Object.keys(res.body.paths)).to.have.members(expected);
      for (const [key, entry] of Object.entries(res.body.paths as Record<string, { serverRelativeURL: string }>)) {
        const [p, query] = entry.serverRelativeURL.split('?hash=');
        expect(p).to.equal(`/openapi/v3/${key}`);
        expect(query).to.match(HASH);
      }
    });

    it('answers 304 to If-None-Match with its ETag', async () => {
      const first = await t.get('/openapi/v3');
      const again = await t.get('/openapi/v3', { headers: { 'if-none-match': first.headers.etag as string } });
      expect(again.status).to.equal(304);
      expect(again.text).to.equal('');
    });

    it('is refused to system:anonymous', async () => {
      expect((await t.get('/openapi/v3', { identity: null })).status).to.equal(403);
    });
  });

  describe('GET /openapi/v3/<group-version>', () => {
    it('serves the document whose SHA-512 is the hash in its URL, immutable and with that ETag', async () => {
      const url = await coreDocumentUrl();
      const res = await t.get(url);
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('application/json');
      const hash = url.split('?hash=')[1];
      expect(sha512(res.text)).to.equal(hash);
      expect(res.headers.etag).to.equal(`"${hash}"`);
      expect(res.headers['cache-control']).to.equal('public, immutable');
      expect(Date.parse(res.headers.expires as string) - Date.now()).to.be.greaterThan(300 * 24 * 3600 * 1000);
      expect(res.headers.vary).to.equal('Accept');
      expect(res.body.openapi).to.equal('3.0.0');
      expect(res.body.components.schemas['io.k8s.api.core.v1.ConfigMap']['x-kubernetes-group-version-kind'])
        .to.deep.equal([{ group: '', kind: 'ConfigMap', version: 'v1' }]);
    });

    it('without a hash is not marked immutable', async () => {
      const res = await t.get('/openapi/v3/api/v1');
      expect(res.status).to.equal(200);
      expect(res.headers['cache-control']).to.equal(undefined);
      expect(res.headers.etag).to.equal(`"${(await coreDocumentUrl()).split('?hash=')[1]}"`);
    });

    it('redirects a stale hash to the current URL (301)', async () => {
      const res = await t.get('/openapi/v3/api/v1?hash=0123');
      expect(res.status).to.equal(301);
      expect(res.headers.location).to.equal(await coreDocumentUrl());
    });

    it('answers 304 to If-None-Match with its ETag', async () => {
      const url = await coreDocumentUrl();
      const res = await t.get(url, { headers: { 'if-none-match': `"${url.split('?hash=')[1]}"` } });
      expect(res.status).to.equal(304);
    });

    it('is 404 for a group/version that is not served and 406 for an Accept without JSON', async () => {
      expect((await t.get('/openapi/v3/apis/nope.example.com/v1')).status).to.equal(404);
      expect((await t.get('/openapi/v3/api/v2')).status).to.equal(404);
      expect((await t.get('/openapi/v3/api/v1', { headers: { accept: 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf' } })).status).to.equal(406);
    });

    it('names as the PATCH content types exactly those the server accepts for the kind', async () => {
      const doc = (await t.get(await coreDocumentUrl())).body;
      const listed = Object.keys(doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch.requestBody.content);
      await t.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'openapi-patch' }, data: { a: '1' } });
      const bodies: Record<string, string> = {
        'application/json-patch+json': JSON.stringify([{ op: 'replace', path: '/data/a', value: '2' }]),
        'application/merge-patch+json': JSON.stringify({ data: { a: '3' } }),
        'application/strategic-merge-patch+json': JSON.stringify({ data: { a: '4' } }),
        'application/apply-patch+yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: openapi-patch\ndata:\n  a: "5"\n',
      };
      expect(listed).to.have.members(Object.keys(bodies));
      for (const type of listed) {
        const force = type === 'application/apply-patch+yaml' ? '&force=true' : '';
        const res = await t.request('PATCH', `/api/v1/namespaces/default/configmaps/openapi-patch?fieldManager=test${force}`, {
          raw: bodies[type], headers: { 'content-type': type },
        });
        expect(res.status, `${type}: ${res.text}`).to.equal(200);
      }
      const unlisted = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/openapi-patch', { raw: '{}', headers: { 'content-type': 'application/x-unlisted+json' } });
      expect(unlisted.status).to.equal(415);
    });

    it('documents fieldValidation, and the server rejects unknown fields when it is Strict', async () => {
      const doc = (await t.get(await coreDocumentUrl())).body;
      const post = doc.paths['/api/v1/namespaces/{namespace}/configmaps'].post;
      expect(post.parameters.map((p: { name: string }) => p.name)).to.include('fieldValidation');
      const res = await t.post('/api/v1/namespaces/default/configmaps?fieldValidation=Strict',
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'openapi-strict' }, dta: { a: '1' } });
      expect(res.status).to.equal(400);
      expect(res.body.message).to.include('strict decoding error: unknown field "dta"');
    });
  });

  describe('GET /openapi/v2', () => {
    it('serves Swagger 2.0 JSON with an ETag', async () => {
      const res = await t.get('/openapi/v2');
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('application/json');
      expect(res.headers.etag).to.equal(`"${sha512(res.text)}"`);
      expect(res.body.swagger).to.equal('2.0');
      expect(res.body.definitions['io.k8s.api.core.v1.Secret']['x-kubernetes-group-version-kind'])
        .to.deep.equal([{ group: '', kind: 'Secret', version: 'v1' }]);
      expect(res.body.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch.consumes)
        .to.include('application/strategic-merge-patch+json');
    });

    it('answers kubectl\'s protobuf request with gnostic\'s openapi.v2.Document, which protoc decodes, with every path and definition', async () => {
      const json = await t.get('/openapi/v2');
      const res = await t.get('/openapi/v2', { headers: { accept: KUBECTL_V2_ACCEPT } });
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal(V2_PROTOBUF);
      expect(res.headers.vary).to.equal('Accept-Encoding, Accept');
      expect(res.headers.etag).to.equal(`"${sha512(res.raw!)}"`);
      expect(res.headers.etag).to.not.equal(json.headers.etag);
      const text = protocDecodeOpenApiV2(res.raw!);
      expect(text).to.match(/^swagger: "2.0"$/m);
      const doc = decodeOpenApiV2Protobuf(res.raw!) as Json;
      expect(doc.paths.path.map((p: Json) => p.name)).to.deep.equal(Object.keys(json.body.paths));
      expect(doc.definitions.additional_properties.map((d: Json) => d.name)).to.deep.equal(Object.keys(json.body.definitions));
      const secret = doc.definitions.additional_properties.find((d: Json) => d.name === 'io.k8s.api.core.v1.Secret').value;
      expect(secret.vendor_extension.find((e: Json) => e.name === 'x-kubernetes-group-version-kind').value).to.deep.equal({ yaml: '- group: ""\n  kind: Secret\n  version: v1\n' });
      // The newer spelling (kube-openapi's) is served the same bytes.
      const newer = await t.get('/openapi/v2', { headers: { accept: V2_PROTOBUF } });
      expect(newer.status).to.equal(200);
      expect(newer.raw!.equals(res.raw!)).to.equal(true);
    });

    it('answers 304 to If-None-Match with the protobuf form\'s ETag', async () => {
      const first = await t.get('/openapi/v2', { headers: { accept: KUBECTL_V2_ACCEPT } });
      const again = await t.get('/openapi/v2', { headers: { accept: KUBECTL_V2_ACCEPT, 'if-none-match': first.headers.etag as string } });
      expect(again.status).to.equal(304);
      expect(again.text).to.equal('');
    });

    it('negotiates as kube-openapi: the first acceptable range wins, wildcards give JSON, neither form is 406', async () => {
      const mixed = await t.get('/openapi/v2', { headers: { accept: `${KUBECTL_V2_ACCEPT}, application/json` } });
      expect(mixed.headers['content-type']).to.equal(V2_PROTOBUF);
      const jsonFirst = await t.get('/openapi/v2', { headers: { accept: `application/json, ${KUBECTL_V2_ACCEPT}` } });
      expect(jsonFirst.headers['content-type']).to.equal('application/json');
      const preferred = await t.get('/openapi/v2', { headers: { accept: `application/json;q=0.5, ${KUBECTL_V2_ACCEPT}` } });
      expect(preferred.headers['content-type']).to.equal(V2_PROTOBUF);
      expect((await t.get('/openapi/v2', { headers: { accept: '*/*' } })).headers['content-type']).to.equal('application/json');
      expect((await t.get('/openapi/v2', { headers: { accept: 'application/yaml' } })).status).to.equal(406);
      expect((await t.get('/openapi/v2', { headers: { accept: 'application/vnd.kubernetes.protobuf' } })).status).to.equal(406);
    });

    it('changes (ETag and content) when a CRD is added, and carries the custom resource\'s definition', async () => {
      const before = await t.get('/openapi/v2', { headers: { accept: KUBECTL_V2_ACCEPT } });
      await crdHttp(() => t, 'default').install('pb.example.com');
      const after = await t.get('/openapi/v2', { headers: { accept: KUBECTL_V2_ACCEPT } });
      expect(after.headers.etag).to.not.equal(before.headers.etag);
      expect(after.headers.etag).to.equal(`"${sha512(after.raw!)}"`);
      expect((await t.get('/openapi/v2', { headers: { accept: KUBECTL_V2_ACCEPT, 'if-none-match': before.headers.etag as string } })).status).to.equal(200);
      const doc = decodeOpenApiV2Protobuf(after.raw!) as Json;
      const def = doc.definitions.additional_properties.find((d: Json) => d.name === 'com.example.pb.v1.CronTab');
      expect(def, 'the CronTab definition').to.exist;
      expect(def.value.vendor_extension.find((e: Json) => e.name === 'x-kubernetes-group-version-kind').value).to.deep.equal({ yaml: '- group: pb.example.com\n  kind: CronTab\n  version: v1\n' });
      expect(doc.paths.path.map((p: Json) => p.name)).to.include('/apis/pb.example.com/v1/namespaces/{namespace}/crontabs');
      expect(protocDecodeOpenApiV2(after.raw!)).to.include('name: "com.example.pb.v1.CronTab"');
    });

    it('is gzipped, JSON and protobuf alike, for a client that accepts gzip, with the ETag of the plain bytes; a 304 is not', async () => {
      for (const accept of ['application/json', KUBECTL_V2_ACCEPT]) {
        const plain = await t.get('/openapi/v2', { headers: { accept } });
        expect(plain.headers['content-encoding'], accept).to.equal(undefined);
        const zipped = await t.get('/openapi/v2', { headers: { accept, 'accept-encoding': 'gzip, deflate, br' } });
        expect(zipped.status, accept).to.equal(200);
        expect(zipped.headers['content-encoding'], accept).to.equal('gzip');
        expect(zipped.headers.vary).to.equal('Accept-Encoding, Accept');
        expect(zipped.headers.etag).to.equal(plain.headers.etag);
        expect(Number(zipped.headers['content-length'])).to.equal(zipped.raw!.length).and.below(plain.raw!.length / 4);
        expect(gunzipSync(zipped.raw!).equals(plain.raw!), accept).to.equal(true);
        const refused = await t.get('/openapi/v2', { headers: { accept, 'accept-encoding': 'gzip;q=0, identity' } });
        expect(refused.headers['content-encoding'], 'gzip;q=0').to.equal(undefined);
        const fresh = await t.get('/openapi/v2', { headers: { accept, 'accept-encoding': 'gzip', 'if-none-match': plain.headers.etag as string } });
        expect(fresh.status).to.equal(304);
        expect(fresh.headers['content-encoding']).to.equal(undefined);
      }
      // kube-openapi's v3 handler has no gzip.
      const v3 = await t.get(await coreDocumentUrl(), { headers: { 'accept-encoding': 'gzip' } });
      expect(v3.headers['content-encoding']).to.equal(undefined);
    });

    it('once asked for, the protobuf form is encoded again after a change before any request asks, off the event loop', async () => {
      const forms = t.server.openApiV2;
      await t.get('/openapi/v2', { headers: { accept: KUBECTL_V2_ACCEPT } });
      await forms.settled();
      const before = { ...forms.encodes };
      await crdHttp(() => t, 'default').install('ahead.example.com');
      // The change alone starts an encode (in a worker thread), no request needed.
      await eventually(async () => forms.encodes.background > before.background);
      await forms.settled();
      const after = { ...forms.encodes };
      const res = await t.get('/openapi/v2', { headers: { accept: KUBECTL_V2_ACCEPT } });
      expect(res.status).to.equal(200);
      expect(forms.encodes.onRequest, 'the request found the form ready').to.equal(after.onRequest);
      expect(forms.encodes.onRequest).to.equal(before.onRequest);
      const doc = decodeOpenApiV2Protobuf(res.raw!) as Json;
      expect(doc.paths.path.map((p: Json) => p.name)).to.include('/apis/ahead.example.com/v1/namespaces/{namespace}/crontabs');
      expect(res.headers.etag).to.equal(`"${sha512(res.raw!)}"`);
    });
  });
});
