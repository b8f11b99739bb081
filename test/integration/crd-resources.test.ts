/**
 * Custom resources through HTTPS against the real server and etcd (issue 18, points 2, 3, 6, 8),
 * part one: schema validation (422 with Kubernetes' paths and words), pruning and
 * fieldValidation, defaults on create and on read, int-or-string, nullable and embedded
 * resources, every patch type (JSON, merge, strategic refused with 415, server-side apply merging
 * list-map items of two managers and a conflict), dry run, managedFields, finalizers, `/status`
 * and `/scale`. Reads, versions and scope are in crd-resources-reads.test.ts.
 */
import { expect } from 'chai';
import { Etcd3 } from 'etcd3';
import { TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { warningTexts } from '../helpers/warning-headers';
import { cronTabSchema } from '../helpers/crd-fixtures';
import { CRDS, causes, crdHttp, ct } from '../helpers/crd-http';

type Obj = Record<string, any>;
const NS = 'crd-res';
const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

describe('custom resources over HTTPS: validation, pruning, defaults and writes', function () {
  this.timeout(60_000);
  let t: TestServer;
  let etcd: Etcd3;
  const { install, base, patch, created } = crdHttp(() => t, NS);

  before(async () => {
    t = await startTestServer();
    etcd = new Etcd3({ hosts: t.etcdEndpoint });
    expect((await t.post('/api/v1/namespaces', { metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => {
    etcd?.close();
    await t?.stop();
  });

  describe('validation, pruning and defaults', () => {
    const G = 'valid.example.com';
    before(() => install(G));

    it('answers 422 Invalid with the field paths and messages kubectl prints, and stores nothing', async () => {
      const max = await t.post(base(G), ct(G, 'bad', { replicas: 20 }));
      expect(max.status, max.text).to.equal(422);
      expect(max.body).to.include({ kind: 'Status', reason: 'Invalid', code: 422 });
      expect(max.body.message).to.equal('CronTab.valid.example.com "bad" is invalid: spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10');
      expect(max.body.details).to.include({ name: 'bad', group: G, kind: 'CronTab' });
      expect(causes(max)).to.deep.equal(['spec.replicas|FieldValueInvalid|Invalid value: 20: spec.replicas in body should be less than or equal to 10']);

      const type = await t.post(base(G), ct(G, 'bad', { replicas: 'three' }));
      expect(type.status, type.text).to.equal(422);
      expect(causes(type)).to.deep.equal(['spec.replicas|FieldValueTypeInvalid|Invalid value: "string": spec.replicas in body must be of type integer: "string"']);

      const several = await t.post(base(G), ct(G, 'bad', { color: 'pink', cronSpec: 'never' }));
      expect(several.status, several.text).to.equal(422);
      expect(causes(several)).to.have.members([
        'spec.color|FieldValueNotSupported|Unsupported value: "pink": supported values: "red", "green", "blue"',
        `spec.cronSpec|FieldValueInvalid|Invalid value: "never": spec.cronSpec in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'`,
      ]);
      expect(several.body.message).to.match(/^CronTab\.valid\.example\.com "bad" is invalid: \[spec\./);
      expect((await t.get(`${base(G)}/bad`)).status).to.equal(404);

      // An update is validated the same way and leaves the stored object as it was.
      const ok = await created(base(G), ct(G, 'upd', { replicas: 2 }));
      const put = await t.put(`${base(G)}/upd`, { ...ok, spec: { replicas: 11 } });
      expect(put.status, put.text).to.equal(422);
      expect((await t.get(`${base(G)}/upd`)).body.spec.replicas).to.equal(2);
    });

    it('prunes unknown fields: Warn (default) warns, Strict refuses, Ignore is silent', async () => {
      const withFoo = (name: string) => ({ ...ct(G, name, { image: 'x', foo: 1 }), junk: true });
      const warn = await t.post(base(G), withFoo('warn'));
      expect(warn.status, warn.text).to.equal(201);
      expect(warningTexts(warn.headers)).to.have.members(['unknown field "junk"', 'unknown field "spec.foo"']);
      const stored = (await t.get(`${base(G)}/warn`)).body;
      expect(stored.spec).to.deep.equal({ image: 'x', color: 'red' });
      expect(stored).to.not.have.property('junk');

      const strict = await t.post(`${base(G)}?fieldValidation=Strict`, withFoo('strict'));
      expect(strict.status, strict.text).to.equal(400);
      expect(strict.body.reason).to.equal('BadRequest');
      expect(strict.body.message).to.match(/^CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: /);
      expect(strict.body.message).to.include('unknown field "spec.foo"').and.include('unknown field "junk"');
      expect((await t.get(`${base(G)}/strict`)).status).to.equal(404);

      const ignore = await t.post(`${base(G)}?fieldValidation=Ignore`, withFoo('ignore'));
      expect(ignore.status, ignore.text).to.equal(201);
      expect(ignore.headers.warning).to.equal(undefined);

      const strictPatch = await patch(`${base(G)}/warn?fieldValidation=Strict`, MERGE, { spec: { bar: 2, image: 'y' } });
      expect(strictPatch.status, strictPatch.text).to.equal(400);
      expect(strictPatch.body.message).to.equal('strict decoding error: unknown field "spec.bar"');
      expect((await t.get(`${base(G)}/warn`)).body.spec.image).to.equal('x');
      const warnPatch = await patch(`${base(G)}/warn`, MERGE, { spec: { bar: 2, image: 'y' } });
      expect(warnPatch.status, warnPatch.text).to.equal(200);
      expect(warningTexts(warnPatch.headers)).to.deep.equal(['unknown field "spec.bar"']);
      expect(warnPatch.body.spec).to.deep.equal({ image: 'y', color: 'red' });
    });

    it('applies defaults on create, and on read of objects stored before the default was added', async () => {
      const c = await created(base(G), ct(G, 'dflt', { image: 'x' }));
      expect(c.spec.color).to.equal('red');
      // A null for a defaulted, non-nullable field is defaulted too.
      expect((await created(base(G), ct(G, 'dflt-null', { color: null }))).spec.color).to.equal('red');

      const crd = (await t.get(`${CRDS}/crontabs.${G}`)).body;
      const schema = cronTabSchema() as Obj;
      schema.properties.spec.properties.paused.default = true;
      crd.spec.versions[0].schema.openAPIV3Schema = schema;
      const upd = await t.put(`${CRDS}/crontabs.${G}`, crd);
      expect(upd.status, upd.text).to.equal(200);
      await eventually(async () => (await t.get(`${base(G)}/dflt`)).body.spec.paused === true, 5000, 20);
      expect((await t.get(base(G))).body.items.find((i: Obj) => i.metadata.name === 'dflt').spec.paused).to.equal(true);
      // Read-time defaulting does not write: etcd still holds the object as stored.
      const raw = JSON.parse((await etcd.get(`/registry/${G}/crontabs/${NS}/dflt`).string()) as string);
      expect(raw.spec).to.not.have.property('paused');
    });

    it('keeps unknown fields under x-kubernetes-preserve-unknown-fields; int-or-string; nullable; embedded resources', async () => {
      const g = 'shapes.example.com';
      const schema = cronTabSchema() as Obj;
      Object.assign(schema.properties.spec.properties, {
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        port: { 'x-kubernetes-int-or-string': true },
        note: { type: 'string', nullable: true },
        strict: { type: 'string' },
        template: {
          type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true,
        },
      });
      await install(g, { schema });
      const tmpl = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inner', bogus: 1 }, data: { a: 'b' } };
      const res = await t.post(base(g), ct(g, 'shapes', { extra: { any: { deep: [1] } }, port: '50%', note: null, template: tmpl }));
      expect(res.status, res.text).to.equal(201);
      expect(warningTexts(res.headers)).to.deep.equal(['unknown field "spec.template.metadata.bogus"']);
      expect(res.body.spec).to.deep.include({ extra: { any: { deep: [1] } }, port: '50%', note: null });
      expect(res.body.spec.template).to.deep.equal({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inner' }, data: { a: 'b' } });
      expect((await created(base(g), ct(g, 'port-int', { port: 8080 }))).spec.port).to.equal(8080);

      const badPort = await t.post(base(g), ct(g, 'bad-port', { port: true }));
      expect(badPort.status, badPort.text).to.equal(422);
      expect(badPort.body.details.causes.map((c: Obj) => c.field)).to.include('spec.port');
      // A null where the schema is not nullable (and has no default) is dropped, as Kubernetes does.
      const notNullable = await created(base(g), ct(g, 'null-dropped', { strict: null, image: 'x' }));
      expect(notNullable.spec).to.deep.equal({ image: 'x', color: 'red' });
      const wrongType = await t.post(base(g), ct(g, 'bad-type', { strict: 5 }));
      expect(wrongType.status, wrongType.text).to.equal(422);
      expect(causes(wrongType)).to.deep.equal(['spec.strict|FieldValueTypeInvalid|Invalid value: "integer": spec.strict in body must be of type string: "integer"']);
      const noKind = await t.post(base(g), ct(g, 'bad-embedded', { template: { apiVersion: 'v1', metadata: { name: 'x' } } }));
      expect(noKind.status, noKind.text).to.equal(422);
      expect(causes(noKind)).to.deep.equal(['spec.template.kind|FieldValueRequired|Required value']);
    });
  });

  describe('writes', () => {
    const G = 'writes.example.com';
    before(() => install(G, { status: true, scale: true }));

    it('JSON patch and merge patch; strategic merge patch is 415 with Kubernetes\' message', async () => {
      await created(base(G), ct(G, 'p', { image: 'a', replicas: 1 }));
      const jp = await patch(`${base(G)}/p`, JSON_PATCH, [{ op: 'replace', path: '/spec/image', value: 'b' }, { op: 'add', path: '/spec/paused', value: true }]);
      expect(jp.status, jp.text).to.equal(200);
      expect(jp.body.spec).to.deep.include({ image: 'b', paused: true });
      const mp = await patch(`${base(G)}/p`, MERGE, { spec: { paused: null, replicas: 3 } });
      expect(mp.status, mp.text).to.equal(200);
      expect(mp.body.spec).to.deep.equal({ image: 'b', replicas: 3, color: 'red' });
      const invalid = await patch(`${base(G)}/p`, MERGE, { spec: { replicas: 0 } });
      expect(invalid.status, invalid.text).to.equal(422);
      const smp = await patch(`${base(G)}/p`, STRATEGIC, { spec: { image: 'c' } });
      expect(smp.status, smp.text).to.equal(415);
      expect(smp.body).to.include({ kind: 'Status', reason: 'UnsupportedMediaType', code: 415 });
      expect(smp.body.message).to.equal('the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
      expect((await t.get(`${base(G)}/p`)).body.spec.image).to.equal('b');
    });

    it('server-side apply merges two managers\' list-map items by key, conflicts 409 on a scalar; managedFields are kept', async () => {
      const apply = (manager: string, spec: Obj, extra = '') =>
        patch(`${base(G)}/ssa?fieldManager=${manager}${extra}`, APPLY, JSON.stringify(ct(G, 'ssa', spec)));
      const a = await apply('alice', { image: 'a', ports: [{ name: 'http', port: 80 }] });
      expect(a.status, a.text).to.equal(201);
      const b = await apply('bob', { ports: [{ name: 'https', port: 443 }] });
      expect(b.status, b.text).to.equal(200);
      expect(b.body.spec.ports).to.deep.equal([{ name: 'http', port: 80 }, { name: 'https', port: 443 }]);
      const managers = b.body.metadata.managedFields.map((m: Obj) => `${m.manager}/${m.operation}/${m.apiVersion}/${m.fieldsType}`);
      expect(managers).to.have.members([`alice/Apply/${G}/v1/FieldsV1`, `bob/Apply/${G}/v1/FieldsV1`]);
      const bobFields = b.body.metadata.managedFields.find((m: Obj) => m.manager === 'bob').fieldsV1;
      expect(bobFields['f:spec']['f:ports']).to.have.property('k:{"name":"https"}');

      const conflict = await apply('bob', { image: 'b' });
      expect(conflict.status, conflict.text).to.equal(409);
      expect(conflict.body).to.include({ kind: 'Status', reason: 'Conflict', code: 409 });
      expect(conflict.body.message).to.equal('Apply failed with 1 conflict: conflict with "alice": .spec.image');
      const forced = await apply('bob', { image: 'b', ports: [{ name: 'https', port: 443 }] }, '&force=true');
      expect(forced.status, forced.text).to.equal(200);
      expect(forced.body.spec.image).to.equal('b');
      // Alice dropping her item removes it; Bob's stays.
      const dropped = await apply('alice', {});
      expect(dropped.body.spec.ports).to.deep.equal([{ name: 'https', port: 443 }]);

      // A create records an Update entry for its manager.
      const plain = await created(`${base(G)}?fieldManager=carol`, ct(G, 'mf', { image: 'x' }));
      expect(plain.metadata.managedFields.map((m: Obj) => `${m.manager}/${m.operation}`)).to.deep.equal(['carol/Update']);
      // generateName works (the name is set on the object the strategy decoded).
      const generated = await created(base(G), { ...ct(G, '', { image: 'x' }), metadata: { generateName: 'gen-' } });
      expect(generated.metadata.name).to.match(/^gen-[a-z0-9]{5}$/);
      expect(generated.metadata.managedFields).to.have.length(1);
    });

    it('server-side apply of a configuration that does not fit the schema is 400 BadRequest and stores nothing', async () => {
      const url = (name: string) => `${base(G)}/${name}?fieldManager=fz`;
      const wrong = (name: string, top: string) => `apiVersion: ${G}/v1\nkind: CronTab\nmetadata: {name: ${name}}\n${top}:\n  - x\n`;
      // A missing object: nothing is created.
      const absent = await patch(url('unfit'), APPLY, wrong('unfit', 'spec'));
      expect(absent.status, absent.text).to.equal(400);
      expect(absent.body).to.include({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
      expect(absent.body.message).to.equal(`failed to create typed patch object (/unfit; ${G}/v1, Kind=CronTab): .spec: expected map, got list`);
      expect((await t.get(`${base(G)}/unfit`)).status).to.equal(404);
      // An existing object: unchanged, whether the wrong field is spec or the status the main resource ignores.
      const live = await created(base(G), ct(G, 'fit', { image: 'x' }));
      for (const top of ['spec', 'status']) {
        const res = await patch(url('fit'), APPLY, wrong('fit', top));
        expect(res.status, res.text).to.equal(400);
        expect(res.body.message).to.match(new RegExp(`\\.${top}: expected map, got list$`));
      }
      const after = (await t.get(`${base(G)}/fit`)).body;
      expect(after.metadata.resourceVersion).to.equal(live.metadata.resourceVersion);
    });

    it('dry run writes nothing', async () => {
      const dry = await t.post(`${base(G)}?dryRun=All`, ct(G, 'dry', { image: 'x' }));
      expect(dry.status, dry.text).to.equal(201);
      expect(dry.body.spec.color).to.equal('red');
      expect((await t.get(`${base(G)}/dry`)).status).to.equal(404);
      const real = await created(base(G), ct(G, 'dry', { image: 'x' }));
      expect((await t.put(`${base(G)}/dry?dryRun=All`, { ...real, spec: { image: 'y' } })).status).to.equal(200);
      expect((await patch(`${base(G)}/dry?dryRun=All`, MERGE, { spec: { image: 'z' } })).body.spec.image).to.equal('z');
      expect((await t.del(`${base(G)}/dry?dryRun=All`)).status).to.equal(200);
      const after = (await t.get(`${base(G)}/dry`)).body;
      expect(after.spec.image).to.equal('x');
      expect(after.metadata.resourceVersion).to.equal(real.metadata.resourceVersion);
    });

    it('finalizers hold deletion until removed', async () => {
      await created(base(G), ct(G, 'fin', { image: 'x' }, { metadata: { finalizers: ['example.com/hold'] } }));
      const del = await t.del(`${base(G)}/fin`);
      expect(del.status, del.text).to.equal(200);
      expect(del.body.metadata.deletionTimestamp).to.be.a('string');
      const held = await t.get(`${base(G)}/fin`);
      expect(held.status).to.equal(200);
      expect(held.body.metadata.finalizers).to.deep.equal(['example.com/hold']);
      const release = await patch(`${base(G)}/fin`, MERGE, { metadata: { finalizers: null } });
      expect(release.status, release.text).to.equal(200);
      expect((await t.get(`${base(G)}/fin`)).status).to.equal(404);
    });

    it('/status: spec ignored there, status ignored on the main resource, generation bumped on spec changes only', async () => {
      const c = await created(base(G), ct(G, 'st', { image: 'x', replicas: 1 }, { status: { replicas: 9 } }));
      expect(c).to.not.have.property('status');
      expect(c.metadata.generation).to.equal(1);
      const st = await t.put(`${base(G)}/st/status`, { ...c, spec: { image: 'changed' }, status: { replicas: 1, labelSelector: 'app=st' } });
      expect(st.status, st.text).to.equal(200);
      expect(st.body.spec.image).to.equal('x');
      expect(st.body.status).to.deep.equal({ replicas: 1, labelSelector: 'app=st' });
      expect(st.body.metadata.generation).to.equal(1);
      const badStatus = await patch(`${base(G)}/st/status`, MERGE, { status: { replicas: 'many' } });
      expect(badStatus.status, badStatus.text).to.equal(422);
      // As Kubernetes: the status schema validates `status` on its own (so the message names
      // `replicas`), and the scale subresource's status replicas path is read as an int64.
      expect(causes(badStatus)).to.deep.equal([
        'status.replicas|FieldValueTypeInvalid|Invalid value: "string": replicas in body must be of type integer: "string"',
        '.status.replicas|FieldValueInvalid|Invalid value: 0: .status.replicas accessor error: many is of the type string, expected int64',
      ]);

      const main = await t.put(`${base(G)}/st`, { ...st.body, metadata: { ...st.body.metadata, labels: { a: 'b' } }, status: { replicas: 7 } });
      expect(main.status, main.text).to.equal(200);
      expect(main.body.status.replicas).to.equal(1);
      expect(main.body.metadata.generation).to.equal(1);
      const spec = await patch(`${base(G)}/st`, MERGE, { spec: { image: 'y' } });
      expect(spec.body.metadata.generation).to.equal(2);
      expect((await t.get(`${base(G)}/st/status`)).body.spec.image).to.equal('y');
    });

    it('/scale: get, put and patch an autoscaling/v1 Scale', async () => {
      const c = await created(base(G), ct(G, 'sc', { image: 'x', replicas: 2 }));
      await t.put(`${base(G)}/sc/status`, { ...c, status: { replicas: 2, labelSelector: 'app=sc' } });
      const got = await t.get(`${base(G)}/sc/scale`);
      expect(got.status, got.text).to.equal(200);
      expect(got.body).to.deep.include({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 2 }, status: { replicas: 2, selector: 'app=sc' } });
      expect(got.body.metadata).to.include({ name: 'sc', namespace: NS, uid: c.metadata.uid });
      const put = await t.put(`${base(G)}/sc/scale`, { ...got.body, spec: { replicas: 5 } });
      expect(put.status, put.text).to.equal(200);
      expect(put.body.spec.replicas).to.equal(5);
      expect((await t.get(`${base(G)}/sc`)).body.spec.replicas).to.equal(5);
      const mp = await patch(`${base(G)}/sc/scale`, MERGE, { spec: { replicas: 3 } });
      expect(mp.status, mp.text).to.equal(200);
      expect(mp.body).to.deep.include({ kind: 'Scale', spec: { replicas: 3 } });
      // Beyond the custom resource's own schema: 422 on the custom resource's field.
      const tooMany = await patch(`${base(G)}/sc/scale`, MERGE, { spec: { replicas: 50 } });
      expect(tooMany.status, tooMany.text).to.equal(422);
      expect(tooMany.body.message).to.include('spec.replicas in body should be less than or equal to 10');
      expect((await t.get(`${base(G)}/sc`)).body.spec.replicas).to.equal(3);
      expect((await t.get(`${base(G)}/missing/scale`)).status).to.equal(404);
    });
  });
});
