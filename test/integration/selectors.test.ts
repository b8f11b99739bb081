/**
 * Label and field selectors on list and deletecollection, and chunked lists (limit/continue)
 * over one etcd snapshot, through HTTPS against a real etcd.
 */
import { expect } from 'chai';
import { eventually, startTestServer, TestServer, WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';

const NS = 'sel';
const OTHER_NS = 'sel-other';
const cmPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
const q = (params: Record<string, string>) => `?${new URLSearchParams(params).toString()}`;
const names = (body: any): string[] => body.items.map((i: any) => i.metadata.name).sort();

/** name -> labels of the ConfigMaps in NS. */
const FIXTURE: Record<string, Record<string, string>> = {
  'web-1': { app: 'web', tier: 'frontend', env: 'prod' },
  'web-2': { app: 'web', tier: 'frontend', env: 'dev' },
  'db-1': { app: 'db', tier: 'backend', env: 'prod' },
  'cache-1': { app: 'cache', tier: 'backend' },
  plain: {},
};

describe('selectors and chunked lists', () => {
  let t: TestServer;

  async function createNamespace(name: string): Promise<void> {
    const res = await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    expect(res.status, res.text).to.equal(201);
  }

  async function createConfigMaps(ns: string, objects: Record<string, Record<string, string>>): Promise<void> {
    for (const [name, labels] of Object.entries(objects)) {
      const res = await t.post(cmPath(ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels } });
      expect(res.status, res.text).to.equal(201);
    }
  }

  async function listNames(path: string): Promise<string[]> {
    const res = await t.get(path);
    expect(res.status, `${path}: ${res.text}`).to.equal(200);
    return names(res.body);
  }

  before(async () => {
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS]);
    await createNamespace(NS);
    await createNamespace(OTHER_NS);
    await createConfigMaps(NS, FIXTURE);
    await createConfigMaps(OTHER_NS, { 'web-1': { app: 'web', env: 'prod' } });
  });
  after(async () => { await t?.stop(); });

  describe('label selectors on list', () => {
    const cases: Array<[string, string[]]> = [
      ['app=web', ['web-1', 'web-2']],
      ['app==web', ['web-1', 'web-2']],
      ['app!=web', ['cache-1', 'db-1', 'plain']],
      ['env in (prod,dev)', ['db-1', 'web-1', 'web-2']],
      ['env in (prod)', ['db-1', 'web-1']],
      ['env notin (prod)', ['cache-1', 'plain', 'web-2']],
      ['env', ['db-1', 'web-1', 'web-2']],
      ['!env', ['cache-1', 'plain']],
      ['app=web,env=prod', ['web-1']],
      ['tier=backend,!env', ['cache-1']],
      ['tier in (frontend,backend),env notin (dev)', ['cache-1', 'db-1', 'web-1']],
      ['app=web,app!=web', []],
      ['app=nothing', []],
    ];
    for (const [selector, expected] of cases) {
      it(`${selector} selects ${expected.length ? expected.join(', ') : 'nothing'}`, async () => {
        expect(await listNames(cmPath(NS) + q({ labelSelector: selector }))).to.deep.equal(expected);
      });
    }

    it('an empty selector selects everything', async () => {
      expect(await listNames(cmPath(NS) + q({ labelSelector: '' }))).to.deep.equal(Object.keys(FIXTURE).sort());
    });

    it('applies across namespaces on /api/v1/configmaps', async () => {
      const res = await t.get(`/api/v1/configmaps${q({ labelSelector: 'app=web,env=prod' })}`);
      expect(res.body.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`).sort())
        .to.deep.equal([`${NS}/web-1`, `${OTHER_NS}/web-1`].sort());
    });

    for (const bad of ['app in (web', 'env notin', 'app=web,', '=web', 'app=web=db', 'Bad Key=x']) {
      it(`a malformed selector ${JSON.stringify(bad)} is 400 BadRequest`, async () => {
        const res = await t.get(cmPath(NS) + q({ labelSelector: bad }));
        expect(res.status, res.text).to.equal(400);
        expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
        expect(res.body.message).to.be.a('string').and.not.equal('');
      });
    }
  });

  describe('label selectors on deletecollection', () => {
    const ns = 'sel-dc';
    before(async () => {
      await createNamespace(ns);
      await createConfigMaps(ns, FIXTURE);
    });

    it('deletes exactly the objects a combined selector selects', async () => {
      const res = await t.del(cmPath(ns) + q({ labelSelector: 'app in (db,cache),!env' }));
      expect(res.status, res.text).to.equal(200);
      expect(names(res.body)).to.deep.equal(['cache-1']);
      expect(await listNames(cmPath(ns))).to.deep.equal(['db-1', 'plain', 'web-1', 'web-2']);
    });

    it('deletes with notin and equality combined', async () => {
      const res = await t.del(cmPath(ns) + q({ labelSelector: 'env notin (dev),tier=frontend' }));
      expect(names(res.body)).to.deep.equal(['web-1']);
      expect(await listNames(cmPath(ns))).to.deep.equal(['db-1', 'plain', 'web-2']);
    });

    it('deletes with != (which also matches objects without the label)', async () => {
      const res = await t.del(cmPath(ns) + q({ labelSelector: 'app!=db' }));
      expect(names(res.body)).to.deep.equal(['plain', 'web-2']);
      expect(await listNames(cmPath(ns))).to.deep.equal(['db-1']);
    });

    it('a malformed selector on deletecollection is 400 and deletes nothing', async () => {
      const res = await t.del(cmPath(ns) + q({ labelSelector: 'app in (db' }));
      expect(res.status).to.equal(400);
      expect(await listNames(cmPath(ns))).to.deep.equal(['db-1']);
    });

    it('a field selector on deletecollection deletes only the named object', async () => {
      const res = await t.del(cmPath(NS) + q({ fieldSelector: 'metadata.name=nothing-here' }));
      expect(res.status).to.equal(200);
      expect(res.body.items).to.deep.equal([]);
      expect(await listNames(cmPath(NS))).to.deep.equal(Object.keys(FIXTURE).sort());
    });
  });

  describe('field selectors', () => {
    it('metadata.name= and metadata.name!= within a namespace', async () => {
      expect(await listNames(cmPath(NS) + q({ fieldSelector: 'metadata.name=web-1' }))).to.deep.equal(['web-1']);
      expect(await listNames(cmPath(NS) + q({ fieldSelector: 'metadata.name==db-1' }))).to.deep.equal(['db-1']);
      expect(await listNames(cmPath(NS) + q({ fieldSelector: 'metadata.name!=web-1' })))
        .to.deep.equal(['cache-1', 'db-1', 'plain', 'web-2']);
      expect(await listNames(cmPath(NS) + q({ fieldSelector: 'metadata.name=absent' }))).to.deep.equal([]);
    });

    it('metadata.namespace on the all-namespaces list', async () => {
      const only = await t.get(`/api/v1/configmaps${q({ fieldSelector: `metadata.namespace=${OTHER_NS}` })}`);
      expect(only.status).to.equal(200);
      expect(only.body.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`)).to.deep.equal([`${OTHER_NS}/web-1`]);
      const except = await t.get(`/api/v1/configmaps${q({ fieldSelector: `metadata.namespace!=${OTHER_NS}` })}`);
      const namespaces = new Set(except.body.items.map((i: any) => i.metadata.namespace));
      expect(namespaces.has(OTHER_NS)).to.equal(false);
      expect(namespaces.has(NS)).to.equal(true);
    });

    it('a field selector combined with a label selector must both hold', async () => {
      expect(await listNames(cmPath(NS) + q({ fieldSelector: 'metadata.name!=web-1', labelSelector: 'app=web' })))
        .to.deep.equal(['web-2']);
    });

    it('Secret type', async () => {
      for (const [name, type] of [['opaque-1', undefined], ['token-1', 'example.com/token'], ['token-2', 'example.com/token']]) {
        const res = await t.post(`/api/v1/namespaces/${NS}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name }, ...(type ? { type } : {}) });
        expect(res.status, res.text).to.equal(201);
      }
      const secrets = `/api/v1/namespaces/${NS}/secrets`;
      expect(await listNames(secrets + q({ fieldSelector: 'type=example.com/token' }))).to.deep.equal(['token-1', 'token-2']);
      expect(await listNames(secrets + q({ fieldSelector: 'type=Opaque' }))).to.deep.equal(['opaque-1']);
      expect(await listNames(secrets + q({ fieldSelector: 'type!=Opaque' }))).to.deep.equal(['token-1', 'token-2']);
    });

    it('Namespace status.phase tells Active from Terminating namespaces', async () => {
      // A finalizer on an object inside keeps the deleted namespace Terminating.
      const held = 'sel-held';
      await createNamespace(held);
      const cm = await t.post(cmPath(held), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hold', finalizers: ['example.com/hold'] } });
      expect(cm.status, cm.text).to.equal(201);
      expect((await t.del(`/api/v1/namespaces/${held}`)).status).to.equal(200);

      const terminating = await listNames(`/api/v1/namespaces${q({ fieldSelector: 'status.phase=Terminating' })}`);
      expect(terminating).to.deep.equal([held]);
      const active = await listNames(`/api/v1/namespaces${q({ fieldSelector: 'status.phase=Active' })}`);
      expect(active).to.include.members(['default', NS, OTHER_NS]);
      expect(active).to.not.include(held);
      expect(await listNames(`/api/v1/namespaces${q({ fieldSelector: 'status.phase!=Active' })}`)).to.deep.equal([held]);

      // Release the finalizer so the namespace can go, once the namespace controller has marked
      // the ConfigMap deleted (a read before that mark would be a stale base for the PUT: 409).
      const current = await eventually(async () => {
        const res = await t.get(cmPath(held, 'hold'));
        return res.body?.metadata?.deletionTimestamp ? res.body : undefined;
      });
      const released = await t.put(cmPath(held, 'hold'), { ...current, metadata: { ...current.metadata, finalizers: [] } });
      expect(released.status, released.text).to.equal(200);
      await eventually(async () => (await t.get(`/api/v1/namespaces/${held}`)).status === 404);
    });

    it('an unsupported field is 400 "field label not supported"', async () => {
      for (const path of [cmPath(NS), '/api/v1/configmaps', '/api/v1/namespaces', `/api/v1/namespaces/${NS}/secrets`]) {
        const res = await t.get(path + q({ fieldSelector: 'spec.foo=bar' }));
        expect(res.status, path).to.equal(400);
        expect(res.body).to.include({ kind: 'Status', reason: 'BadRequest', message: 'field label not supported: spec.foo' });
      }
    });

    it('a field valid for one kind is unsupported on another (type on ConfigMaps, metadata.namespace on Namespaces)', async () => {
      const onConfigMaps = await t.get(cmPath(NS) + q({ fieldSelector: 'type=Opaque' }));
      expect(onConfigMaps.status).to.equal(400);
      expect(onConfigMaps.body.message).to.equal('field label not supported: type');
      const onNamespaces = await t.get(`/api/v1/namespaces${q({ fieldSelector: 'metadata.namespace=default' })}`);
      expect(onNamespaces.status).to.equal(400);
    });

    it('a malformed field selector is 400', async () => {
      const res = await t.get(cmPath(NS) + q({ fieldSelector: 'metadata.name' }));
      expect(res.status).to.equal(400);
      expect(res.body.reason).to.equal('BadRequest');
    });
  });

  describe('limit and continue', () => {
    const ns = 'sel-pages';
    const all = ['p1', 'p2', 'p3', 'p4', 'p5'];
    before(async () => {
      await createNamespace(ns);
      await createConfigMaps(ns, Object.fromEntries(all.map((n) => [n, { group: 'pages' }])));
    });

    async function page(params: Record<string, string>): Promise<any> {
      const res = await t.get(cmPath(ns) + q(params));
      expect(res.status, res.text).to.equal(200);
      return res.body;
    }

    it('limit=2 over 5 objects: 3 pages, one resourceVersion, continue on all but the last, remainingItemCount 3, 1, absent', async () => {
      const p1 = await page({ limit: '2' });
      expect(p1.items).to.have.length(2);
      expect(p1.metadata.continue).to.be.a('string').and.not.equal('');
      expect(p1.metadata.remainingItemCount).to.equal(3);

      const p2 = await page({ limit: '2', continue: p1.metadata.continue });
      expect(p2.items).to.have.length(2);
      expect(p2.metadata.continue).to.be.a('string').and.not.equal('');
      expect(p2.metadata.continue).to.not.equal(p1.metadata.continue);
      expect(p2.metadata.remainingItemCount).to.equal(1);

      const p3 = await page({ limit: '2', continue: p2.metadata.continue });
      expect(p3.items).to.have.length(1);
      expect(p3.metadata.continue ?? '').to.equal('');
      expect(p3.metadata).to.not.have.property('remainingItemCount');

      expect(p2.metadata.resourceVersion).to.equal(p1.metadata.resourceVersion);
      expect(p3.metadata.resourceVersion).to.equal(p1.metadata.resourceVersion);
      expect([...p1.items, ...p2.items, ...p3.items].map((i: any) => i.metadata.name)).to.deep.equal(all);
    });

    it('a limit larger than the collection is one complete page', async () => {
      const body = await page({ limit: '10' });
      expect(names(body)).to.deep.equal(all);
      expect(body.metadata.continue ?? '').to.equal('');
      expect(body.metadata).to.not.have.property('remainingItemCount');
    });

    it('with a label selector, pages carry continue but never remainingItemCount', async () => {
      const seen: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const body = await page({ limit: '2', labelSelector: 'group=pages', ...(token ? { continue: token } : {}) });
        expect(body.metadata, `page ${pages + 1}`).to.not.have.property('remainingItemCount');
        seen.push(...body.items.map((i: any) => i.metadata.name));
        token = body.metadata.continue || undefined;
        pages++;
      } while (token && pages < 10);
      expect(pages).to.equal(3);
      expect(seen).to.deep.equal(all);
    });

    it('with a field selector, pages never carry remainingItemCount', async () => {
      const body = await page({ limit: '2', fieldSelector: 'metadata.name!=p1' });
      expect(body.items.map((i: any) => i.metadata.name)).to.deep.equal(['p2', 'p3']);
      expect(body.metadata.continue).to.be.a('string').and.not.equal('');
      expect(body.metadata).to.not.have.property('remainingItemCount');
    });

    it('later pages show the snapshot of the first: created objects do not appear, deleted ones still do', async () => {
      const snap = 'sel-snapshot';
      await createNamespace(snap);
      await createConfigMaps(snap, { s1: {}, s2: {}, s3: {}, s4: {} });
      const first = (await t.get(cmPath(snap) + q({ limit: '2' }))).body;
      expect(first.items.map((i: any) => i.metadata.name)).to.deep.equal(['s1', 's2']);

      await createConfigMaps(snap, { s0: {}, s25: {}, s9: {} });
      expect((await t.del(cmPath(snap, 's3'))).status).to.equal(200);

      const rest = (await t.get(cmPath(snap) + q({ limit: '10', continue: first.metadata.continue }))).body;
      expect(rest.items.map((i: any) => i.metadata.name)).to.deep.equal(['s3', 's4']);
      expect(rest.metadata.resourceVersion).to.equal(first.metadata.resourceVersion);

      // A fresh list sees the present.
      expect(await listNames(cmPath(snap))).to.deep.equal(['s0', 's1', 's2', 's25', 's4', 's9']);
    });

    it('later pages are the snapshot whether their namespace changed in between or only another one did', async () => {
      const [quiet, busy] = ['sel-pages-quiet', 'sel-pages-busy'];
      for (const ns of [quiet, busy]) {
        await createNamespace(ns);
        await createConfigMaps(ns, { q1: {}, q2: {}, q3: {}, q4: {}, q5: {} });
      }
      const first = (await t.get(cmPath(quiet) + q({ limit: '2' }))).body;
      // Only the other namespace changes: the rest of the quiet one is as it was.
      await createConfigMaps(busy, { q0: {} });
      expect((await t.del(cmPath(busy, 'q4'))).status).to.equal(200);
      const second = (await t.get(cmPath(quiet) + q({ limit: '2', continue: first.metadata.continue }))).body;
      expect(second.items.map((i: any) => i.metadata.name)).to.deep.equal(['q3', 'q4']);
      expect(second.metadata.resourceVersion).to.equal(first.metadata.resourceVersion);
      expect(second.metadata.remainingItemCount).to.equal(1);
      // Now a key already listed changes (q1) and one not yet listed goes: the last page still shows the snapshot.
      const q1 = (await t.get(cmPath(quiet, 'q1'))).body;
      expect((await t.put(cmPath(quiet, 'q1'), { ...q1, data: { changed: 'yes' } })).status).to.equal(200);
      expect((await t.del(cmPath(quiet, 'q5'))).status).to.equal(200);
      const last = (await t.get(cmPath(quiet) + q({ limit: '2', continue: second.metadata.continue }))).body;
      expect(last.items.map((i: any) => i.metadata.name)).to.deep.equal(['q5']);
      expect(last.metadata.resourceVersion).to.equal(first.metadata.resourceVersion);
      expect(last.metadata.continue ?? '').to.equal('');
      // Across all namespaces, pages keep the snapshot while namespaces change around them.
      const everywhere = (await t.get(`/api/v1/configmaps${q({ limit: '3', labelSelector: '!absent' })}`)).body;
      await createConfigMaps(busy, { q9: {} });
      let token = everywhere.metadata.continue;
      const seen: string[] = everywhere.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`);
      while (token) {
        const body = (await t.get(`/api/v1/configmaps${q({ limit: '3', labelSelector: '!absent', continue: token })}`)).body;
        expect(body.metadata.resourceVersion).to.equal(everywhere.metadata.resourceVersion);
        seen.push(...body.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`));
        token = body.metadata.continue;
      }
      expect(seen).to.include(`${busy}/q0`).and.not.include(`${busy}/q9`);
      expect(seen.filter((k) => k.startsWith(`${quiet}/`))).to.deep.equal(['q1', 'q2', 'q3', 'q4'].map((n) => `${quiet}/${n}`));
    });

    it('a garbage continue token is 400 BadRequest', async () => {
      for (const token of ['garbage', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ', Buffer.from('{"v":"meta.k8s.io/v1","rv":-1,"start":"x"}').toString('base64url')]) {
        const res = await t.get(cmPath(ns) + q({ limit: '2', continue: token }));
        expect(res.status, token).to.equal(400);
        expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'BadRequest' });
      }
    });

    it('continue together with a non-zero resourceVersion is 400', async () => {
      const p1 = await page({ limit: '2' });
      const res = await t.get(cmPath(ns) + q({ limit: '2', continue: p1.metadata.continue, resourceVersion: p1.metadata.resourceVersion }));
      expect(res.status).to.equal(400);
      expect(res.body.reason).to.equal('BadRequest');
    });

    it('a non-numeric limit is 400', async () => {
      const res = await t.get(cmPath(ns) + q({ limit: 'ten' }));
      expect(res.status).to.equal(400);
      expect(res.body.reason).to.equal('BadRequest');
    });
  });
});
