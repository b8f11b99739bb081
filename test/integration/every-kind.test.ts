/**
 * The checks every served built-in kind must pass, generated from the catalogue
 * (lib/registry/builtin.ts) so that a kind added there is checked without touching this file:
 * CRUD and bad input, watch, server-side apply, a protobuf round trip, Tables, OpenAPI v2 and
 * v3, discovery, and RBAC's deny by default. Each check runs when the kind's verbs allow it;
 * create-only kinds (the reviews) get create, the 405 of the other verbs, protobuf bodies,
 * OpenAPI, discovery and RBAC. The objects come from test/fixtures/kinds.ts; a kind without a
 * fixture fails here. One server, flavor ORCH_TEST_FLAVOR (default orch).
 */
import { expect } from 'chai';
import { eventually, HttpResponse, startTestServer, TestServer, WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';
import { adminTarget, openWatch, WatchClient } from '../helpers/watch-client';
import { builtinResources } from '../../lib/registry/builtin';
import { Flavor, flavors } from '../../lib/naming';
import { apiVersionOf, ResourceDef } from '../../lib/scheme/types';
import { PROTOBUF_PREFIX, decodeProtobuf, encodeProtobuf } from '../../lib/scheme/protobuf';
import { FixtureBody, fixtureKey, kindFixtures, KindFixture } from '../fixtures/kinds';

const FLAVOR = (process.env.ORCH_TEST_FLAVOR ?? 'orch') as Flavor;
const naming = flavors[FLAVOR];
const NS = 'every-kind';
const MANAGER = 'every-kind';
const APPLY = 'application/apply-patch+yaml';
const PROTOBUF = naming.protobufMediaType;
const TABLE = `application/json;as=Table;v=v1;g=${naming.metaGroup}`;
const GVK = `${naming.schemaExtensionPrefix}group-version-kind`;
/** The kinds this suite generates checks for: the catalogue with the server's default gates. */
const CATALOGUE = builtinResources(naming);

/**
 * Tables whose Name column is not the first but the last, as Kubernetes prints them: Events
 * (kubectl's LAST SEEN TYPE REASON OBJECT ... NAME, Name at priority 1).
 */
const NAME_NOT_FIRST = new Set(['core/v1/events', 'events.orch.io/v1/events', 'events.k8s.io/v1/events', 'events.orch.io/v1beta1/events', 'events.k8s.io/v1beta1/events']);

const gvr = (d: ResourceDef) => `${d.group || 'core'}/${d.version}/${d.resource}`;
const prefixOf = (d: ResourceDef) => (d.group ? `/apis/${d.group}/${d.version}` : `/api/${d.version}`);
const collectionOf = (d: ResourceDef) => `${prefixOf(d)}${d.namespaced ? `/namespaces/${NS}` : ''}/${d.resource}`;
const itemOf = (d: ResourceDef, name: string) => `${collectionOf(d)}/${name}`;
const can = (d: ResourceDef, ...verbs: string[]) => verbs.every((v) => d.verbs.includes(v));

function fixtureOf(d: ResourceDef): KindFixture {
  const key = fixtureKey(d.group, d.resource);
  const fixture = kindFixtures[key];
  if (!fixture) {
    throw new Error(`${d.kind} (${gvr(d)}) has no fixture: add a minimal valid object under '${key}' to test/fixtures/kinds.ts`);
  }
  return fixture;
}

/** The fixture object of `d` named (as asked) `name`, with apiVersion, kind and namespace. */
function objectOf(d: ResourceDef, name: string): FixtureBody & { metadata: Record<string, unknown> & { name: string } } {
  const fixture = fixtureOf(d);
  const body = fixture.body(name, { naming, namespace: NS });
  const metadata = { ...(fixture.unnamed ? {} : { name }), ...(body.metadata ?? {}), ...(d.namespaced ? { namespace: NS } : {}) } as Record<string, unknown> & { name: string };
  return { apiVersion: apiVersionOf(d), kind: d.kind, ...body, metadata };
}

/** A name for one check of one kind; it carries the version, as v1 and v1beta1 of a kind share their objects. */
// A def served over another group's objects (events.k8s.io Event over core/v1 Event) shares its
// names: its group's first label keeps the two apart.
const nameFor = (d: ResourceDef, check: string) => `ek-${check}-${d.storageGroup !== undefined ? `${d.group.split('.')[0]}-` : ''}${d.version}`;

function expectStatus(res: HttpResponse, code: number | number[], reason?: string): void {
  const codes = Array.isArray(code) ? code : [code];
  expect(codes, `${res.status} ${res.text}`).to.include(res.status);
  if (codes.every((c) => c < 300)) return;
  expect(res.body, res.text).to.include({ kind: 'Status', status: 'Failure', code: res.status });
  if (reason) expect(res.body.reason, res.text).to.equal(reason);
}

/** The object without what a write without changes may still move: resourceVersion and managedFields' times. */
function stable(obj: any): any {
  const copy = JSON.parse(JSON.stringify(obj));
  delete copy.metadata.resourceVersion;
  for (const entry of copy.metadata.managedFields ?? []) delete entry.time;
  return copy;
}

describe('every served built-in kind', function () {
  this.timeout(60_000);
  let t: TestServer;
  const watches: WatchClient[] = [];

  const names = async (d: ResourceDef): Promise<string[]> => {
    const res = await t.get(collectionOf(d));
    expectStatus(res, 200);
    return (res.body.items as any[]).map((i) => i.metadata.name).sort();
  };
  /** Waits until a controller is done with a new object (fixture `settled`), and returns it as stored. */
  const settle = async (d: ResourceDef, obj: any) => {
    const settled = fixtureOf(d).settled;
    if (!settled) return obj;
    return eventually(async () => {
      const res = await t.get(itemOf(d, obj.metadata.name));
      return res.status === 200 && settled(res.body) ? res.body : undefined;
    });
  };
  const create = async (d: ResourceDef, check: string) => {
    const obj = objectOf(d, nameFor(d, check));
    const res = await t.post(collectionOf(d), obj);
    expectStatus(res, 201);
    return settle(d, res.body);
  };
  /** Deletes and waits for the 404, for checks whose object would otherwise stay (finalized kinds). */
  const removeAndWait = async (d: ResourceDef, name: string) => {
    expectStatus(await t.del(itemOf(d, name)), [200, 202]);
    await eventually(async () => (await t.get(itemOf(d, name))).status === 404, 20_000);
  };

  before(async () => {
    // Versions off by default (policy/v1beta1) are switched on: the suite covers the whole catalogue.
    const offByDefault = [...new Set(CATALOGUE.filter((d) => d.servedByDefault === false).map((d) => `${d.group}/${d.version}=true`))];
    t = await startTestServer([`--flavor=${FLAVOR}`, WITHOUT_NAMESPACE_DEFAULTS, ...(offByDefault.length ? [`--runtime-config=${offByDefault.join(',')}`] : [])]);
    expectStatus(await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), 201);
    // Pods need their service account; the controller that makes `default` is off (WITHOUT_NAMESPACE_DEFAULTS).
    expectStatus(await t.post(`/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }), 201);
    // What a create-only kind's objects need first (a Binding's pod), for each check that creates one.
    for (const d of CATALOGUE) {
      const needs = kindFixtures[fixtureKey(d.group, d.resource)]?.prerequisites;
      for (const check of needs ? ['create', 'protobuf', 'rbac'] : []) {
        for (const [path, body] of needs!(nameFor(d, check), { naming, namespace: NS })) expectStatus(await t.post(path, body), 201);
      }
    }
  });
  afterEach(() => { watches.splice(0).forEach((w) => w.close()); });
  after(async () => { await t?.stop(); });

  it('generates its checks for exactly the kinds the server serves', () => {
    expect(CATALOGUE.map(gvr)).to.have.members(t.server.registry.builtinResources().map(gvr));
  });

  for (const d of CATALOGUE) {
    describe(`${d.kind} (${gvr(d)})`, () => {
      it('has a fixture in test/fixtures/kinds.ts', () => { fixtureOf(d); });

      if (can(d, 'create', 'get', 'list', 'update', 'delete')) {
        it('CRUD: create, get, list, update with a label, delete, then 404', async () => {
          const obj = objectOf(d, nameFor(d, 'crud'));
          const name = obj.metadata.name;
          const created = await t.post(collectionOf(d), obj);
          expectStatus(created, 201);
          expect(created.body).to.include({ apiVersion: apiVersionOf(d), kind: d.kind });
          expect(created.body.metadata.name).to.equal(name);
          const settled = await settle(d, created.body);

          const got = await t.get(itemOf(d, name));
          expectStatus(got, 200);
          expect(got.body).to.deep.equal(settled);
          expect(await names(d)).to.include(name);

          const next = { ...got.body, metadata: { ...got.body.metadata, labels: { ...(got.body.metadata.labels ?? {}), 'every-kind': 'updated' } } };
          const updated = await t.put(itemOf(d, name), next);
          expectStatus(updated, 200);
          expect(updated.body.metadata.labels).to.include({ 'every-kind': 'updated' });
          expect(updated.body.metadata.resourceVersion).to.not.equal(got.body.metadata.resourceVersion);

          expectStatus(await t.del(itemOf(d, name)), [200, 202]);
          if (fixtureOf(d).finalized) {
            // Finalized kinds: the object stays, marked, until its controller is done.
            await eventually(async () => (await t.get(itemOf(d, name))).status === 404, 20_000);
          }
          const gone = await t.get(itemOf(d, name));
          expectStatus(gone, 404, 'NotFound');
        });
      } else if (can(d, 'create')) {
        it('create answers 201 with the kind', async () => {
          const res = await t.post(collectionOf(d), objectOf(d, nameFor(d, 'create')));
          expectStatus(res, 201);
          expect(res.body).to.include(fixtureOf(d).answersStatus ? { kind: 'Status', status: 'Success' } : { apiVersion: apiVersionOf(d), kind: d.kind });
        });

        const others: Array<[string, string, (p: string) => Promise<HttpResponse>]> = [
          ['get', 'GET item', (p) => t.get(`${p}/${nameFor(d, 'create')}`)],
          ['list', 'GET collection', (p) => t.get(p)],
          ['watch', 'GET collection with watch', (p) => t.get(`${p}?watch=true&timeoutSeconds=1`)],
          ['update', 'PUT item', (p) => t.put(`${p}/${nameFor(d, 'create')}`, objectOf(d, nameFor(d, 'create')))],
          ['delete', 'DELETE item', (p) => t.del(`${p}/${nameFor(d, 'create')}`)],
          ['deletecollection', 'DELETE collection', (p) => t.del(p)],
        ];
        for (const [verb, what, send] of others.filter(([v]) => !d.verbs.includes(v))) {
          it(`${what} (${verb}, not a verb of the kind) answers 405 with a Status`, async () => {
            expectStatus(await send(collectionOf(d)), 405, 'MethodNotAllowed');
          });
        }
      }

      if (can(d, 'create')) {
        it('bad input: a wrong kind or a malformed body is a 4xx Status and stores nothing', async () => {
          const listable = can(d, 'list');
          const before = listable ? await names(d) : [];
          const wrong = { ...objectOf(d, nameFor(d, 'bad-kind')), kind: `${d.kind}Wrong` };
          const res = await t.post(collectionOf(d), wrong);
          expect(res.status, res.text).to.be.within(400, 499);
          expectStatus(res, res.status);
          const malformed = await t.request('POST', collectionOf(d), { raw: '{"metadata": {"name": ', headers: { 'content-type': 'application/json' } });
          expectStatus(malformed, 400, 'BadRequest');
          if (listable) expect(await names(d)).to.deep.equal(before);
        });
      }

      if (can(d, 'create', 'list', 'watch', 'update', 'delete')) {
        it('watch from the list resourceVersion sees ADDED, MODIFIED, DELETED in order', async () => {
          const name = objectOf(d, nameFor(d, 'watch')).metadata.name;
          const list = await t.get(collectionOf(d));
          expectStatus(list, 200);
          const w = openWatch(adminTarget(t.server),
            `${collectionOf(d)}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}&fieldSelector=metadata.name%3D${name}`);
          watches.push(w);
          expect((await w.response()).statusCode).to.equal(200);
          const created = await create(d, 'watch');
          const updated = await t.put(itemOf(d, name), { ...created, metadata: { ...created.metadata, labels: { 'every-kind': 'watched' } } });
          expectStatus(updated, 200);
          expectStatus(await t.del(itemOf(d, name)), [200, 202]);
          await w.waitFor((e) => e.type === 'DELETED', 20_000);
          const types = w.events.map((e) => e.type);
          expect(types[0], types.join()).to.equal('ADDED');
          expect(types[types.length - 1], types.join()).to.equal('DELETED');
          // Controllers may modify an object too (a CRD's conditions, a finalized kind on its way out).
          const between = w.events.slice(1, -1);
          expect(between.every((e) => e.type === 'MODIFIED'), types.join()).to.equal(true);
          expect(between.some((e) => e.object.metadata.labels?.['every-kind'] === 'watched'), types.join()).to.equal(true);
          for (const e of w.events) expect(e.object.metadata.name).to.equal(name);
        });
      }

      if (can(d, 'patch', 'get')) {
        it('server-side apply creates (201) with an Apply entry, and applies a changed label (200)', async () => {
          const obj = objectOf(d, nameFor(d, 'apply'));
          const name = obj.metadata.name;
          const apply = (labels: Record<string, string>) => t.request('PATCH', `${itemOf(d, name)}?fieldManager=${MANAGER}&force=true`, {
            raw: JSON.stringify({ ...obj, metadata: { ...obj.metadata, labels } }), headers: { 'content-type': APPLY },
          });
          const first = await apply({ 'every-kind': 'one' });
          expectStatus(first, 201);
          expect(first.body.metadata.name).to.equal(name);
          await settle(d, first.body);
          const entries = (first.body.metadata.managedFields ?? []) as Array<{ manager: string; operation: string }>;
          expect(entries.some((e) => e.manager === MANAGER && e.operation === 'Apply'), JSON.stringify(entries)).to.equal(true);
          const second = await apply({ 'every-kind': 'two' });
          expectStatus(second, 200);
          expect(second.body.metadata.labels).to.include({ 'every-kind': 'two' });
          if (fixtureOf(d).finalized) await removeAndWait(d, name);
        });
      }

      if (can(d, 'create', 'get', 'update')) {
        it('protobuf round trip: GET as protobuf, PUT the same bytes back, the object is unchanged', async () => {
          const created = await create(d, 'protobuf');
          const name = created.metadata.name;
          const before = (await t.get(itemOf(d, name))).body;
          const pb = await t.get(itemOf(d, name), { headers: { accept: PROTOBUF } });
          expectStatus(pb, 200);
          expect(pb.headers['content-type']).to.equal(PROTOBUF);
          expect(pb.raw!.subarray(0, 4)).to.deep.equal(PROTOBUF_PREFIX);
          expect(decodeProtobuf(pb.raw!)).to.include({ apiVersion: apiVersionOf(d), kind: d.kind });
          const put = await t.request('PUT', itemOf(d, name), { raw: pb.raw!, headers: { 'content-type': PROTOBUF } });
          expectStatus(put, 200);
          const after = await t.get(itemOf(d, name));
          expectStatus(after, 200);
          expect(stable(after.body)).to.deep.equal(stable(before));
          if (fixtureOf(d).finalized) await removeAndWait(d, name);
        });
      } else if (can(d, 'create')) {
        it('protobuf: a protobuf body is created and answered in protobuf', async () => {
          const res = await t.request('POST', collectionOf(d), {
            raw: encodeProtobuf(objectOf(d, nameFor(d, 'protobuf'))), headers: { 'content-type': PROTOBUF, accept: PROTOBUF },
          });
          expect(res.status, res.text).to.equal(201);
          expect(res.headers['content-type']).to.equal(PROTOBUF);
          expect(decodeProtobuf(res.raw!)).to.include(fixtureOf(d).answersStatus ? { kind: 'Status', status: 'Success' } : { apiVersion: apiVersionOf(d), kind: d.kind });
        });
      }

      if (can(d, 'create', 'get', 'list')) {
        it('Table: a list and one object as Tables, Name first, one cell per column', async () => {
          const created = await create(d, 'table');
          const name = created.metadata.name;
          const checkTable = (res: HttpResponse, rows: 'one' | 'some') => {
            expectStatus(res, 200);
            expect(res.body.kind).to.equal('Table');
            const columns = res.body.columnDefinitions as Array<{ name: string }>;
            expect(columns).to.not.be.empty;
            const nameAt = columns.findIndex((c) => c.name === 'Name');
            expect(nameAt, JSON.stringify(columns.map((c) => c.name))).to.equal(NAME_NOT_FIRST.has(gvr(d)) ? columns.length - 1 : 0);
            const all = res.body.rows as Array<{ cells: unknown[]; object: any }>;
            if (rows === 'one') expect(all).to.have.length(1);
            for (const row of all) expect(row.cells).to.have.length(columns.length);
            const mine = all.filter((row) => row.object?.metadata?.name === name);
            expect(mine, JSON.stringify(all.map((r) => r.object?.metadata?.name))).to.have.length(1);
            expect(mine[0].cells[nameAt]).to.equal(name);
          };
          checkTable(await t.get(collectionOf(d), { headers: { accept: TABLE } }), 'some');
          checkTable(await t.get(itemOf(d, name), { headers: { accept: TABLE } }), 'one');
          if (fixtureOf(d).finalized) await removeAndWait(d, name);
        });
      }

      it('OpenAPI v3 and v2 describe the kind and its paths', async () => {
        const docPath = d.group ? `/openapi/v3/apis/${d.group}/${d.version}` : `/openapi/v3/api/${d.version}`;
        const v3 = await t.get(docPath);
        expectStatus(v3, 200);
        const gvkOf = (schema: any) => [schema?.[GVK] ?? []].flat() as Array<{ group: string; version: string; kind: string }>;
        const names = (schemas: Record<string, any>) => Object.keys(schemas).filter((key) => gvkOf(schemas[key])
          .some((g) => g.group === d.group && g.version === d.version && g.kind === d.kind));
        const v3Names = names(v3.body.components.schemas);
        expect(v3Names, `no schema with ${GVK} ${d.group}/${d.version}/${d.kind}`).to.have.length(1);
        const collection = `${prefixOf(d)}${d.namespaced ? '/namespaces/{namespace}' : ''}/${d.resource}`;
        expect(v3.body.paths).to.have.property(collection);
        if (can(d, 'get')) expect(v3.body.paths).to.have.property(`${collection}/{name}`);
        const v2 = await t.get('/openapi/v2');
        expectStatus(v2, 200);
        expect(names(v2.body.definitions)).to.deep.equal(v3Names);
        expect(v2.body.paths).to.have.property(collection);
      });

      it('discovery lists it with its kind, scope and verbs', async () => {
        const res = await t.get(prefixOf(d));
        expectStatus(res, 200);
        expect(res.body.kind).to.equal('APIResourceList');
        const entry = (res.body.resources as any[]).find((r) => r.name === d.resource);
        expect(entry, `${d.resource} in ${prefixOf(d)}`).to.not.equal(undefined);
        expect(entry).to.include({ kind: d.kind, namespaced: d.namespaced });
        expect(entry.verbs).to.deep.equal(d.verbs);
      });

      it('RBAC: a user without groups is refused (403), system:masters is allowed', async () => {
        const nobody = t.identity('every-kind-nobody');
        const obj = objectOf(d, nameFor(d, 'rbac'));
        if (can(d, 'list')) {
          expectStatus(await t.get(collectionOf(d), { identity: nobody }), 403, 'Forbidden');
          expectStatus(await t.get(collectionOf(d)), 200);
        }
        const created = await t.post(collectionOf(d), obj, { identity: nobody });
        if (fixtureOf(d).createGrantedToAuthenticated) expectStatus(created, 201);
        else {
          expectStatus(created, 403, 'Forbidden');
          if (can(d, 'get')) expectStatus(await t.get(itemOf(d, obj.metadata.name)), 404, 'NotFound');
        }
        // A read-only kind (ComponentStatus) refuses a create even to the admin.
        if (!can(d, 'create')) {
          expectStatus(await t.post(collectionOf(d), obj), 405, 'MethodNotAllowed');
          return;
        }
        expectStatus(await t.post(collectionOf(d), obj), 201);
        if (fixtureOf(d).finalized) await removeAndWait(d, obj.metadata.name);
      });
    });
  }
});
