/**
 * Custom resources through HTTPS against the real server and etcd (issue 18, points 2, 3, 6, 8),
 * part two: Tables with printer columns (and the default Name/Age), field selectors from
 * selectableFields on list and watch, label selectors, protobuf refused or fallen back from,
 * deprecated versions' warnings, the repair of incomplete accepted names, cluster scope.
 */
import { expect } from 'chai';
import { TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { adminTarget, openWatch } from '../helpers/watch-client';
import { warningTexts } from '../helpers/warning-headers';
import { CRDS, crdHttp, ct } from '../helpers/crd-http';

type Obj = Record<string, any>;
const NS = 'crd-res';
const MERGE = 'application/merge-patch+json';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

describe('custom resources over HTTPS: reads, versions and scope', function () {
  this.timeout(60_000);
  let t: TestServer;
  const { install, base, patch, created } = crdHttp(() => t, NS);

  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => {
    await t?.stop();
  });

  describe('reads', () => {
    const G = 'reads.example.com';
    const printerColumns = [
      { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', description: 'how many' },
      { name: 'Image', type: 'string', jsonPath: '.spec.image', priority: 1 },
      { name: 'Paused', type: 'boolean', jsonPath: '.spec.paused' },
    ];
    before(async () => {
      await install(G, { printerColumns, selectableFields: ['.spec.color'] });
      await created(base(G), ct(G, 'r1', { cronSpec: '* * * * */5', replicas: 2, image: 'img', paused: true, color: 'blue' }, { metadata: { labels: { tier: 'web' } } }));
      await created(base(G), ct(G, 'r2', { replicas: 1 }, { metadata: { labels: { tier: 'db' } } }));
    });

    it('serves Tables with the printer columns (types, priority, includeObject)', async () => {
      const res = await t.get(base(G), { headers: { accept: TABLE } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
      expect(res.body.columnDefinitions.map((c: Obj) => [c.name, c.type, c.format, c.priority])).to.deep.equal([
        ['Name', 'string', 'name', 0], ['Spec', 'string', '', 0], ['Replicas', 'integer', '', 0], ['Image', 'string', '', 1], ['Paused', 'boolean', '', 0],
      ]);
      expect(res.body.columnDefinitions[2].description).to.equal('how many');
      expect(res.body.columnDefinitions[1].description).to.equal('Custom resource definition column (in JSONPath format): .spec.cronSpec');
      expect(res.body.rows.map((r: Obj) => r.cells)).to.deep.equal([['r1', '* * * * */5', 2, 'img', true], ['r2', null, 1, null, null]]);
      expect(res.body.rows[0].object).to.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
      const full = await t.get(`${base(G)}/r1?includeObject=Object`, { headers: { accept: TABLE } });
      expect(full.body.rows[0].object).to.deep.include({ kind: 'CronTab', spec: { cronSpec: '* * * * */5', replicas: 2, image: 'img', paused: true, color: 'blue' } });
      const none = await t.get(`${base(G)}/r1?includeObject=None`, { headers: { accept: TABLE } });
      expect(none.body.rows[0].object).to.equal(null);
      // kubectl's Accept: Table preferred, then JSON.
      const kubectl = await t.get(base(G), { headers: { accept: `${TABLE},application/json` } });
      expect(kubectl.body.kind).to.equal('Table');
    });

    it('serves Name and Age columns without printer columns', async () => {
      const g = 'plain.example.com';
      await install(g, { scope: 'Cluster' });
      const res = await t.get(`/apis/${g}/v1/crontabs`, { headers: { accept: TABLE } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.columnDefinitions.map((c: Obj) => [c.name, c.type, c.format])).to.deep.equal([['Name', 'string', 'name'], ['Age', 'date', '']]);
    });

    it('filters by selectableFields, metadata.name and metadata.namespace on list and watch; refuses other fields', async () => {
      const names = async (q: string) => {
        const res = await t.get(`${base(G)}?${q}`);
        expect(res.status, res.text).to.equal(200);
        return res.body.items.map((i: Obj) => i.metadata.name);
      };
      expect(await names('fieldSelector=spec.color%3Dblue')).to.deep.equal(['r1']);
      expect(await names('fieldSelector=spec.color%21%3Dblue')).to.deep.equal(['r2']);
      expect(await names('fieldSelector=metadata.name%3Dr2')).to.deep.equal(['r2']);
      expect(await names(`fieldSelector=metadata.namespace%3D${NS}`)).to.deep.equal(['r1', 'r2']);
      expect(await names('labelSelector=tier%3Dweb')).to.deep.equal(['r1']);
      expect(await names('labelSelector=tier%20in%20(web,db),tier!%3Dweb')).to.deep.equal(['r2']);
      const bad = await t.get(`${base(G)}?fieldSelector=spec.image%3Dimg`);
      expect(bad.status, bad.text).to.equal(400);
      expect(bad.body).to.include({ reason: 'BadRequest', message: 'field label not supported: spec.image' });

      const rv = (await t.get(base(G))).body.metadata.resourceVersion;
      const w = openWatch(adminTarget(t.server), `${base(G)}?watch=1&resourceVersion=${rv}&fieldSelector=spec.color%3Dgreen`);
      await patch(`${base(G)}/r1`, MERGE, { metadata: { labels: { touched: 'yes' } } });
      await patch(`${base(G)}/r2`, MERGE, { spec: { color: 'green' } });
      const ev = await w.waitFor((e) => e.type === 'ADDED');
      expect(ev.object.metadata.name).to.equal('r2');
      w.close();
      const badWatch = await t.get(`${base(G)}?watch=1&fieldSelector=spec.image%3Dimg`);
      expect(badWatch.status).to.equal(400);
    });

    it('refuses protobuf bodies (415) and answers JSON when protobuf is only preferred, 406 when it is the only choice', async () => {
      const pb = await t.request('POST', base(G), { raw: Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a]), headers: { 'content-type': 'application/vnd.kubernetes.protobuf' } });
      expect(pb.status, pb.text).to.equal(415);
      expect(pb.body.message).to.equal('the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
      const fallback = await t.get(`${base(G)}/r1`, { headers: { accept: 'application/vnd.kubernetes.protobuf, application/json' } });
      expect(fallback.status).to.equal(200);
      expect(String(fallback.headers['content-type'])).to.match(/^application\/json/);
      expect(fallback.body.kind).to.equal('CronTab');
      const only = await t.get(`${base(G)}/r1`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
      // The Status itself is protobuf (as Kubernetes' CR serializer encodes Status so).
      expect(only.status, only.text).to.equal(406);
      expect(only.headers['content-type']).to.equal('application/vnd.kubernetes.protobuf');
      expect(only.text).to.include('only the following media types are accepted: application/json, application/yaml').and.include('NotAcceptable');
    });
  });

  describe('versions and scope', () => {
    it('warns on a deprecated version: its deprecationWarning, else Kubernetes\' default text', async () => {
      const g = 'old.example.com';
      await install(g, { versions: ['v1', 'v1beta1', 'v1alpha1'], deprecated: { v1beta1: undefined, v1alpha1: 'use v1 now' } });
      const beta = await t.post(base(g, 'v1beta1'), ct(g, 'b', { image: 'x' }, {}, 'v1beta1'));
      expect(beta.status, beta.text).to.equal(201);
      expect(warningTexts(beta.headers)).to.deep.equal([`${g}/v1beta1 CronTab is deprecated; use ${g}/v1 CronTab`]);
      expect(warningTexts((await t.get(`${base(g, 'v1alpha1')}/b`)).headers)).to.deep.equal(['use v1 now']);
      expect((await t.get(`${base(g)}/b`)).headers.warning).to.equal(undefined);
    });

    it('a status written with Established but incomplete acceptedNames is repaired by the naming controller, then served', async () => {
      // Kubernetes logs `has unexpected empty status.acceptedNames.singular` and serves nothing for
      // such a status until its naming controller writes the accepted names again.
      const g = 'repair.example.com';
      const crd = await install(g);
      const name = `crontabs.${g}`;
      const current = (await t.get(`${CRDS}/${name}`)).body;
      const broken = await t.put(`${CRDS}/${name}/status`, { ...current, status: { ...current.status, acceptedNames: { plural: 'crontabs', kind: 'CronTab' } } });
      expect(broken.status, broken.text).to.equal(200);
      const repaired = await eventually(async () => {
        const o = (await t.get(`${CRDS}/${name}`)).body;
        return o.status.acceptedNames.singular === 'crontab' && o;
      }, 5000, 20);
      expect(repaired.status.acceptedNames).to.deep.include({ plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList' });
      expect(repaired.metadata.uid).to.equal(crd.metadata.uid);
      await eventually(async () => (await t.post(base(g), ct(g, 'after-repair', { image: 'x' }))).status === 201, 5000, 20);
    });

    it('serves cluster-scoped CRDs at the cluster path only', async () => {
      const g = 'cluster.example.com';
      await install(g, { scope: 'Cluster' });
      const path = `/apis/${g}/v1/crontabs`;
      const c = await t.post(path, { apiVersion: `${g}/v1`, kind: 'CronTab', metadata: { name: 'c1' }, spec: { replicas: 2 } });
      expect(c.status, c.text).to.equal(201);
      expect(c.body.metadata).to.not.have.property('namespace');
      expect(c.body.spec).to.deep.equal({ replicas: 2, color: 'red' });
      expect((await t.get(`${path}/c1`)).status).to.equal(200);
      expect((await t.get(`/apis/${g}/v1/namespaces/${NS}/crontabs`)).status).to.equal(404);
      expect((await t.get(`${path}?fieldSelector=metadata.name%3Dc1`)).body.items).to.have.length(1);
    });
  });
});
