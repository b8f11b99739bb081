/**
 * Representations of reads over HTTPS against a real etcd: server-side Tables (kubectl's Accept,
 * v1 and v1beta1, meta.k8s.io and meta.orch.io, includeObject), PartialObjectMetadata(List),
 * Table and metadata-only watch streams, YAML in and out, errors as Status, pretty.
 */
import { expect } from 'chai';
import YAML from 'yaml';
import { startTestServer, TestServer, HttpResponse, WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';
import { adminTarget, openWatch, WatchClient } from '../helpers/watch-client';

const NS = 'tables';
const KUBECTL_TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const AGE = /^\d+s$/;
/** The 406 message: JSON, YAML, then the protobuf types once the protobuf serializer is registered. */
const NOT_ACCEPTABLE = /^only the following media types are accepted: application\/json, application\/yaml(, application\/vnd\.[a-z]+\.protobuf)*$/;
const cmPath = (name = '') => `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ''}`;
const secretPath = (name = '') => `/api/v1/namespaces/${NS}/secrets${name ? `/${name}` : ''}`;
const b64 = (s: string) => Buffer.from(s).toString('base64');

const asTable = (g = 'meta.k8s.io', v = 'v1') => ({ accept: `application/json;as=Table;v=${v};g=${g}` });
const asPartial = (kind: string, g = 'meta.k8s.io', v = 'v1') => ({ accept: `application/json;as=${kind};g=${g};v=${v}` });

function expectStatus(res: HttpResponse, code: number, reason: string): void {
  expect(res.status, res.text).to.equal(code);
  expect(res.body).to.include({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
}

describe('Table, PartialObjectMetadata and content negotiation', () => {
  let t: TestServer;
  const watches: WatchClient[] = [];
  before(async () => {
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS]);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    for (const body of [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'alpha', labels: { app: 'alpha' } }, data: { a: '1', b: '2' }, binaryData: { c: b64('3') } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'beta' } },
    ]) expect((await t.post(cmPath(), body)).status).to.equal(201);
    for (const body of [
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'opaque' }, data: { user: b64('u'), pass: b64('p') } },
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tls' }, type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c'), 'tls.key': b64('k'), 'ca.crt': b64('a') } },
    ]) expect((await t.post(secretPath(), body)).status).to.equal(201);
  });
  afterEach(() => { watches.splice(0).forEach((w) => w.close()); });
  after(async () => { await t?.stop(); });

  describe('Table for lists and single objects', () => {
    it("ConfigMaps with kubectl's Accept: a meta.k8s.io/v1 Table with Name, Data, Age", async () => {
      const res = await t.get(cmPath(), { headers: { accept: KUBECTL_TABLE } });
      expect(res.status, res.text).to.equal(200);
      expect(String(res.headers['content-type'])).to.match(/^application\/json/);
      expect(res.body).to.include({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
      expect(res.body.metadata.resourceVersion).to.match(/^\d+$/);
      expect(res.body.columnDefinitions.map((c: any) => ({ ...c, description: typeof c.description }))).to.deep.equal([
        { name: 'Name', type: 'string', format: 'name', description: 'string', priority: 0 },
        { name: 'Data', type: 'string', format: '', description: 'string', priority: 0 },
        { name: 'Age', type: 'string', format: '', description: 'string', priority: 0 },
      ]);
      expect(res.body.rows).to.have.length(2);
      const [alpha, beta] = res.body.rows;
      expect(alpha.cells.slice(0, 2)).to.deep.equal(['alpha', 3]);
      expect(alpha.cells[2]).to.match(AGE);
      expect(beta.cells.slice(0, 2)).to.deep.equal(['beta', 0]);
      // Rows carry PartialObjectMetadata (the default includeObject=Metadata): what --show-labels reads.
      expect(alpha.object).to.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
      expect(alpha.object.metadata).to.include({ name: 'alpha', namespace: NS });
      expect(alpha.object.metadata.labels).to.deep.equal({ app: 'alpha' });
      expect(alpha.object).to.not.have.property('data');
    });

    it("one ConfigMap: one row and the object's resourceVersion", async () => {
      const plain = await t.get(cmPath('alpha'));
      const res = await t.get(cmPath('alpha'), { headers: { accept: KUBECTL_TABLE } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.kind).to.equal('Table');
      expect(res.body.metadata).to.deep.equal({ resourceVersion: plain.body.metadata.resourceVersion });
      expect(res.body.rows).to.have.length(1);
      expect(res.body.rows[0].cells.slice(0, 2)).to.deep.equal(['alpha', 3]);
      expect(res.body.rows[0].object.metadata.uid).to.equal(plain.body.metadata.uid);
    });

    it('Secrets: Name, Type, Data, Age', async () => {
      const res = await t.get(secretPath(), { headers: { accept: KUBECTL_TABLE } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.columnDefinitions.map((c: any) => c.name)).to.deep.equal(['Name', 'Type', 'Data', 'Age']);
      expect(res.body.rows.map((r: any) => r.cells.slice(0, 3))).to.deep.equal([['opaque', 'Opaque', 2], ['tls', 'kubernetes.io/tls', 3]]);
      const one = await t.get(secretPath('tls'), { headers: asTable() });
      expect(one.body.rows[0].cells.slice(0, 3)).to.deep.equal(['tls', 'kubernetes.io/tls', 3]);
    });

    it('Namespaces: Name, Status, Age', async () => {
      const res = await t.get('/api/v1/namespaces', { headers: { accept: KUBECTL_TABLE } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.columnDefinitions.map((c: any) => c.name)).to.deep.equal(['Name', 'Status', 'Age']);
      const row = res.body.rows.find((r: any) => r.cells[0] === NS);
      expect(row.cells[1]).to.equal('Active');
      expect(row.object.metadata).to.not.have.property('namespace');
      const one = await t.get(`/api/v1/namespaces/${NS}`, { headers: asTable('meta.orch.io') });
      expect(one.body.apiVersion).to.equal('meta.orch.io/v1');
      expect(one.body.rows[0].cells.slice(0, 2)).to.deep.equal([NS, 'Active']);
    });

    it('echoes the group and version asked for: meta.k8s.io and meta.orch.io, v1 and v1beta1', async () => {
      for (const g of ['meta.k8s.io', 'meta.orch.io']) {
        for (const v of ['v1', 'v1beta1']) {
          const res = await t.get(cmPath(), { headers: asTable(g, v) });
          expect(res.status, res.text).to.equal(200);
          expect(res.body.apiVersion).to.equal(`${g}/${v}`);
          expect(res.body.rows[0].object.apiVersion).to.equal(`${g}/${v}`);
        }
      }
    });

    it('copies continue and remainingItemCount from a chunked list; all chunks share its resourceVersion', async () => {
      const first = await t.get(`${cmPath()}?limit=1`, { headers: { accept: KUBECTL_TABLE } });
      expect(first.body.rows.map((r: any) => r.cells[0])).to.deep.equal(['alpha']);
      expect(first.body.metadata.continue).to.be.a('string').and.not.equal('');
      expect(first.body.metadata.remainingItemCount).to.equal(1);
      const second = await t.get(`${cmPath()}?limit=1&continue=${encodeURIComponent(first.body.metadata.continue)}`, { headers: { accept: KUBECTL_TABLE } });
      expect(second.body.rows.map((r: any) => r.cells[0])).to.deep.equal(['beta']);
      expect(second.body.metadata).to.not.have.property('continue');
      expect(second.body.metadata.resourceVersion).to.equal(first.body.metadata.resourceVersion);
    });

    it('includeObject=None leaves object null, Object carries the whole object, anything else is 400', async () => {
      const none = await t.get(`${cmPath()}?includeObject=None`, { headers: asTable() });
      expect(none.body.rows.map((r: any) => r.object)).to.deep.equal([null, null]);
      const metadata = await t.get(`${cmPath()}?includeObject=Metadata`, { headers: asTable() });
      expect(metadata.body.rows[0].object.kind).to.equal('PartialObjectMetadata');
      const whole = await t.get(`${cmPath('alpha')}?includeObject=Object`, { headers: asTable() });
      expect(whole.body.rows[0].object).to.include({ kind: 'ConfigMap', apiVersion: 'v1' });
      expect(whole.body.rows[0].object.data).to.deep.equal({ a: '1', b: '2' });
      const bad = await t.get(`${cmPath()}?includeObject=Everything`, { headers: asTable() });
      expectStatus(bad, 400, 'BadRequest');
      expect(bad.body.message).to.equal('Unable to convert to Table as requested: includeObject: Unsupported value: "Everything": supported values: "Metadata", "None", "Object"');
    });

    it('a YAML Table for application/yaml;as=Table', async () => {
      const res = await t.get(cmPath(), { headers: { accept: 'application/yaml;as=Table;g=meta.k8s.io;v=v1' } });
      expect(res.status, res.text).to.equal(200);
      expect(String(res.headers['content-type'])).to.match(/^application\/yaml/);
      const table = YAML.parse(res.text);
      expect(table).to.include({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
      expect(table.rows.map((r: any) => r.cells[0])).to.deep.equal(['alpha', 'beta']);
    });

    it('falls back to the next Accept entry past a Table it cannot produce', async () => {
      const res = await t.get(cmPath(), { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v2,application/json' } });
      expect(res.status).to.equal(200);
      expect(res.body.kind).to.equal('ConfigMapList');
    });
  });

  describe('PartialObjectMetadata', () => {
    it('as=PartialObjectMetadataList: every item\'s metadata and the list metadata', async () => {
      const res = await t.get(`${cmPath()}?limit=1`, { headers: asPartial('PartialObjectMetadataList') });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1' });
      expect(res.body.metadata.resourceVersion).to.match(/^\d+$/);
      expect(res.body.metadata.continue).to.be.a('string').and.not.equal('');
      expect(res.body.items).to.have.length(1);
      expect(res.body.items[0]).to.have.all.keys('kind', 'apiVersion', 'metadata');
      expect(res.body.items[0]).to.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
      expect(res.body.items[0].metadata).to.include({ name: 'alpha', namespace: NS });
    });

    it('as=PartialObjectMetadata for one object, in the group and version asked', async () => {
      const res = await t.get(cmPath('alpha'), { headers: asPartial('PartialObjectMetadata', 'meta.orch.io', 'v1beta1') });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.have.all.keys('kind', 'apiVersion', 'metadata');
      expect(res.body).to.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.orch.io/v1beta1' });
      expect(res.body.metadata.labels).to.deep.equal({ app: 'alpha' });
    });

    it("a list asked as PartialObjectMetadata, or one object as a list, is 406 with Kubernetes' message", async () => {
      const list = await t.get(cmPath(), { headers: asPartial('PartialObjectMetadata') });
      expectStatus(list, 406, 'NotAcceptable');
      expect(list.body.message).to.equal('you requested PartialObjectMetadata, but the requested object is a list (ConfigMapList)');
      const one = await t.get(cmPath('alpha'), { headers: asPartial('PartialObjectMetadataList') });
      expectStatus(one, 406, 'NotAcceptable');
      expect(one.body.message).to.equal('you requested PartialObjectMetadataList, but the requested object is not a list (ConfigMap)');
    });
  });

  describe('watch', () => {
    const watchPath = (query: string) => `${cmPath()}?watch=true&${query}`;

    it('a Table watch: one-row Tables, column definitions in the first only', async () => {
      const list = await t.get(cmPath());
      const w = openWatch(adminTarget(t.server), watchPath(`resourceVersion=${list.body.metadata.resourceVersion}`), { accept: KUBECTL_TABLE });
      watches.push(w);
      await w.response();
      expect(w.statusCode).to.equal(200);
      expect(String(w.headers['content-type'])).to.match(/^application\/json/);
      expect((await t.post(cmPath(), { metadata: { name: 'gamma', labels: { app: 'gamma' } }, data: { k: 'v' } })).status).to.equal(201);
      expect((await t.put(cmPath('gamma'), { metadata: { name: 'gamma' }, data: { k: 'v', l: 'w' } })).status).to.equal(200);
      expect((await t.del(cmPath('gamma'))).status).to.equal(200);
      const events = [await w.next(), await w.next(), await w.next()];
      expect(events.map((e) => e.type)).to.deep.equal(['ADDED', 'MODIFIED', 'DELETED']);
      for (const e of events) {
        expect(e.object).to.include({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
        expect(e.object.rows).to.have.length(1);
        expect(e.object.rows[0].object).to.include({ kind: 'PartialObjectMetadata' });
        expect(e.object.metadata.resourceVersion).to.equal(e.object.rows[0].object.metadata.resourceVersion);
      }
      expect(events[0].object.columnDefinitions.map((c: any) => c.name)).to.deep.equal(['Name', 'Data', 'Age']);
      expect(events[1].object.columnDefinitions).to.equal(null);
      expect(events[2].object.columnDefinitions).to.equal(null);
      expect(events.map((e) => e.object.rows[0].cells.slice(0, 2))).to.deep.equal([['gamma', 1], ['gamma', 2], ['gamma', 2]]);
      expect(w.junk).to.deep.equal([]);
    });

    it('a Table watch from the current state: synthetic ADDED Tables, headers once; includeObject applies', async () => {
      const w = openWatch(adminTarget(t.server), watchPath('includeObject=None'), { accept: KUBECTL_TABLE });
      watches.push(w);
      const events = [await w.next(), await w.next()];
      expect(events.map((e) => [e.type, e.object.rows[0].cells[0], e.object.rows[0].object])).to.deep.equal([['ADDED', 'alpha', null], ['ADDED', 'beta', null]]);
      expect(events[0].object.columnDefinitions).to.have.length(3);
      expect(events[1].object.columnDefinitions).to.equal(null);
    });

    it('a PartialObjectMetadata watch streams metadata only', async () => {
      const w = openWatch(adminTarget(t.server), watchPath(''), asPartial('PartialObjectMetadata', 'meta.orch.io'));
      watches.push(w);
      const first = await w.next();
      expect(first.type).to.equal('ADDED');
      expect(first.object).to.have.all.keys('kind', 'apiVersion', 'metadata');
      expect(first.object).to.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.orch.io/v1' });
      expect(first.object.metadata.name).to.equal('alpha');
    });

    it('a bad includeObject is 400 and a YAML-only Accept 406, before the stream starts', async () => {
      const bad = openWatch(adminTarget(t.server), watchPath('includeObject=Rows'), { accept: KUBECTL_TABLE });
      watches.push(bad);
      await bad.waitEnded();
      expect(bad.statusCode).to.equal(400);
      expect(bad.errorBody).to.include({ kind: 'Status', reason: 'BadRequest' });
      const yaml = openWatch(adminTarget(t.server), watchPath(''), { accept: 'application/yaml' });
      watches.push(yaml);
      await yaml.waitEnded();
      expect(yaml.statusCode).to.equal(406);
      const status = YAML.parse(yaml.errorBody);
      expect(status).to.include({ kind: 'Status', reason: 'NotAcceptable' });
      // The types that can stream a watch: no YAML.
      expect(status.message).to.match(/^only the following media types are accepted: application\/json(, application\/vnd\.[a-z]+\.protobuf)*$/);
    });
  });

  describe('negotiation errors and writes', () => {
    it('406 names the accepted media types', async () => {
      for (const accept of ['application/xml', 'application/json;as=Table', 'application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1']) {
        const res = await t.get(cmPath(), { headers: { accept } });
        expectStatus(res, 406, 'NotAcceptable');
        expect(res.body.message).to.match(NOT_ACCEPTABLE);
      }
    });

    it('errors stay Status: JSON for a Table Accept, YAML when YAML is acceptable', async () => {
      const json = await t.get(cmPath('missing'), { headers: { accept: KUBECTL_TABLE } });
      expectStatus(json, 404, 'NotFound');
      const yaml = await t.get(cmPath('missing'), { headers: { accept: 'application/yaml;as=Table;g=meta.k8s.io;v=v1,application/yaml' } });
      expect(yaml.status).to.equal(404);
      expect(YAML.parse(yaml.text)).to.include({ kind: 'Status', reason: 'NotFound' });
    });

    it('writes answer the object itself, whatever representation was asked for', async () => {
      const res = await t.post(cmPath(), { metadata: { name: 'written' } }, { headers: { accept: KUBECTL_TABLE } });
      expect(res.status, res.text).to.equal(201);
      expect(res.body).to.include({ kind: 'ConfigMap', apiVersion: 'v1' });
      const del = await t.del(cmPath('written'), undefined, { headers: { accept: KUBECTL_TABLE } });
      expect(del.status).to.equal(200);
      expect(del.body).to.include({ kind: 'Status', status: 'Success' });
    });
  });

  describe('YAML in and out', () => {
    it('a YAML body answered in YAML', async () => {
      const res = await t.request('POST', cmPath(), {
        raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n',
        headers: { 'content-type': 'application/yaml', accept: 'application/yaml' },
      });
      expect(res.status, res.text).to.equal(201);
      expect(String(res.headers['content-type'])).to.match(/^application\/yaml/);
      expect(YAML.parse(res.text)).to.deep.include({ kind: 'ConfigMap', data: { k: 'v' } });
    });

    it('a malformed YAML body is a 400 Status, in YAML when asked', async () => {
      const res = await t.request('POST', cmPath(), {
        raw: 'metadata: {name: [unclosed\n', headers: { 'content-type': 'application/yaml', accept: 'application/yaml' },
      });
      expect(res.status).to.equal(400);
      const status = YAML.parse(res.text);
      expect(status).to.include({ kind: 'Status', reason: 'BadRequest', code: 400 });
      expect(status.message).to.match(/could not be decoded as YAML/);
    });

    it('an unknown Content-Type is 415 naming the accepted types (a YAML Status when asked)', async () => {
      const res = await t.request('POST', cmPath(), { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/yaml' } });
      expect(res.status).to.equal(415);
      const status = YAML.parse(res.text);
      expect(status).to.include({ kind: 'Status', reason: 'UnsupportedMediaType' });
      expect(status.message).to.match(/^the body of the request was in an unknown format - accepted media types include: application\/json, application\/yaml(, application\/vnd\.[a-z]+\.protobuf)*$/);
    });
  });

  describe('pretty', () => {
    const indented = (res: HttpResponse) => /^\{\n {2}"/.test(res.text);

    it('pretty=true|1 indents, pretty=false|0 and no pretty do not; Tables too', async () => {
      for (const q of ['pretty=true', 'pretty=1', 'pretty=True']) expect(indented(await t.get(`${cmPath('alpha')}?${q}`)), q).to.equal(true);
      for (const q of ['pretty=false', 'pretty=0', '']) expect(indented(await t.get(`${cmPath('alpha')}?${q}`)), q).to.equal(false);
      expect(indented(await t.get(`${cmPath()}?pretty=true`, { headers: { accept: KUBECTL_TABLE } }))).to.equal(true);
    });

    it('pretty=1 on the Accept entry, or a curl User-Agent, indents as Kubernetes does', async () => {
      expect(indented(await t.get(cmPath('alpha'), { headers: { accept: 'application/json;pretty=1' } }))).to.equal(true);
      expect(indented(await t.get(cmPath('alpha'), { headers: { 'user-agent': 'curl/8.5.0' } }))).to.equal(true);
      expect(indented(await t.get(`${cmPath('alpha')}?pretty=false`, { headers: { 'user-agent': 'curl/8.5.0' } }))).to.equal(false);
    });
  });
});
