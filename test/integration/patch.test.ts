/**
 * PATCH over HTTPS against a real etcd: JSON patch, merge patch and strategic merge patch on a
 * ConfigMap and a Namespace, their errors, optimistic concurrency, the /status subresource,
 * dryRun, and fieldValidation (Strict, Warn, Ignore) on writes.
 */
import { expect } from 'chai';
import { startTestServer, TestServer, HttpResponse } from '../helpers/server-harness';

const NS = 'patch';
const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const cmPath = (name = '') => `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ''}`;
const nsPath = (name: string) => `/api/v1/namespaces/${name}`;

/** The values of every `Warning` header (Node joins repeated headers with ', '). */
function warnings(res: HttpResponse): string[] {
  const raw = res.headers.warning;
  const text = Array.isArray(raw) ? raw.join(', ') : raw ?? '';
  return [...text.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`));
}

describe('PATCH', () => {
  let t: TestServer;

  const patch = (path: string, contentType: string, body: unknown, query = '') =>
    t.request('PATCH', `${path}${query}`, { raw: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': contentType } });

  async function createConfigMap(name: string, data: Record<string, string>, metadata: Record<string, unknown> = {}): Promise<any> {
    const res = await t.post(cmPath(), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...metadata }, data });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }

  /** Owner ConfigMaps that exist (the garbage collector removes dependents of missing owners): key -> uid. */
  async function realOwners(names: Record<string, string>): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const [key, name] of Object.entries(names)) out[key] = (await createConfigMap(name, {})).metadata.uid;
    return out;
  }

  async function createNamespace(name: string, metadata: Record<string, unknown> = {}): Promise<any> {
    const res = await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...metadata } });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }

  const stored = async (path: string) => {
    const res = await t.get(path);
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };

  before(async () => {
    t = await startTestServer();
    await createNamespace(NS);
  });
  after(async () => { await t?.stop(); });

  describe('patch types on a ConfigMap', () => {
    it('JSON patch adds, replaces and removes keys (200, stored)', async () => {
      const before = await createConfigMap('jp', { a: '1', b: '2' });
      const res = await patch(cmPath('jp'), JSON_PATCH, [
        { op: 'replace', path: '/data/a', value: 'one' },
        { op: 'remove', path: '/data/b' },
        { op: 'add', path: '/data/c', value: '3' },
        { op: 'add', path: '/metadata/labels', value: { tier: 'web' } },
      ]);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data).to.deep.equal({ a: 'one', c: '3' });
      const after = await stored(cmPath('jp'));
      expect(after.data).to.deep.equal({ a: 'one', c: '3' });
      expect(after.metadata.labels).to.deep.equal({ tier: 'web' });
      expect(after.metadata.uid).to.equal(before.metadata.uid);
      expect(Number(after.metadata.resourceVersion)).to.be.greaterThan(Number(before.metadata.resourceVersion));
    });

    it('merge patch merges maps, null deletes a key, and a list replaces the whole list', async () => {
      await createConfigMap('mp', { a: '1', b: '2' }, { finalizers: ['example.com/one', 'example.com/two'] });
      const res = await patch(cmPath('mp'), MERGE_PATCH, { data: { a: 'x', b: null, c: '3' }, metadata: { finalizers: ['example.com/three'] } });
      expect(res.status, res.text).to.equal(200);
      const after = await stored(cmPath('mp'));
      expect(after.data).to.deep.equal({ a: 'x', c: '3' });
      expect(after.metadata.finalizers).to.deep.equal(['example.com/three']);
      await patch(cmPath('mp'), MERGE_PATCH, { metadata: { finalizers: null } });
    });

    it('strategic merge patch unions finalizers, merges ownerReferences by uid, and null deletes a key', async () => {
      const owner = (uid: string, name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid: uids[uid] });
      const uids = await realOwners({ '00000000-0000-0000-0000-00000000000a': 'owner-a', '00000000-0000-0000-0000-00000000000b': 'owner-b' });
      await createConfigMap('smp', { a: '1', b: '2' }, {
        finalizers: ['example.com/one'],
        ownerReferences: [owner('00000000-0000-0000-0000-00000000000a', 'owner-a')],
      });
      const res = await patch(cmPath('smp'), STRATEGIC, {
        data: { b: null, c: '3' },
        metadata: {
          finalizers: ['example.com/two', 'example.com/one'],
          ownerReferences: [
            owner('00000000-0000-0000-0000-00000000000b', 'owner-b'),
            { ...owner('00000000-0000-0000-0000-00000000000a', 'owner-a'), controller: true },
          ],
        },
      });
      expect(res.status, res.text).to.equal(200);
      const after = await stored(cmPath('smp'));
      expect(after.data).to.deep.equal({ a: '1', c: '3' });
      expect(after.metadata.finalizers).to.have.members(['example.com/one', 'example.com/two']).and.have.length(2);
      expect(after.metadata.ownerReferences).to.have.length(2);
      const byUid = Object.fromEntries(after.metadata.ownerReferences.map((r: any) => [r.uid, r]));
      expect(byUid[uids['00000000-0000-0000-0000-00000000000a']]).to.deep.equal({ ...owner('00000000-0000-0000-0000-00000000000a', 'owner-a'), controller: true });
      expect(byUid[uids['00000000-0000-0000-0000-00000000000b']]).to.deep.equal(owner('00000000-0000-0000-0000-00000000000b', 'owner-b'));
      await patch(cmPath('smp'), MERGE_PATCH, { metadata: { finalizers: null } });
    });

    it('strategic merge patch: `$patch: delete` removes a list element by merge key and a whole map', async () => {
      const uids = await realOwners({ one: 'o1', two: 'o2' });
      await createConfigMap('smp-delete', { a: '1' }, {
        labels: { x: '1', y: '2' },
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'o1', uid: uids.one },
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'o2', uid: uids.two },
        ],
      });
      const res = await patch(cmPath('smp-delete'), STRATEGIC, {
        metadata: {
          labels: { $patch: 'delete' },
          ownerReferences: [{ $patch: 'delete', uid: uids.one }],
        },
      });
      expect(res.status, res.text).to.equal(200);
      const after = await stored(cmPath('smp-delete'));
      expect(after.metadata.labels).to.equal(undefined);
      expect(after.metadata.ownerReferences.map((r: any) => r.name)).to.deep.equal(['o2']);
      expect(after.data).to.deep.equal({ a: '1' });
    });

    it('strategic merge patch: `$setElementOrder/finalizers` sets the order of the merged list', async () => {
      await createConfigMap('smp-order', {}, { finalizers: ['example.com/a', 'example.com/b'] });
      const res = await patch(cmPath('smp-order'), STRATEGIC, {
        metadata: {
          '$setElementOrder/finalizers': ['example.com/c', 'example.com/b', 'example.com/a'],
          finalizers: ['example.com/c'],
        },
      });
      expect(res.status, res.text).to.equal(200);
      expect((await stored(cmPath('smp-order'))).metadata.finalizers).to.deep.equal(['example.com/c', 'example.com/b', 'example.com/a']);
      await patch(cmPath('smp-order'), MERGE_PATCH, { metadata: { finalizers: null } });
    });
  });

  describe('patch types on a Namespace', () => {
    it('merge patch sets and removes labels', async () => {
      await createNamespace('patch-labels', { labels: { keep: 'yes', drop: 'yes' } });
      const res = await patch(nsPath('patch-labels'), MERGE_PATCH, { metadata: { labels: { drop: null, added: 'v' } } });
      expect(res.status, res.text).to.equal(200);
      const labels = (await stored(nsPath('patch-labels'))).metadata.labels;
      expect(labels).to.include({ keep: 'yes', added: 'v' });
      expect(labels).to.not.have.property('drop');
    });

    it('JSON patch adds a label whose key needs ~1 escaping', async () => {
      await createNamespace('patch-json');
      const res = await patch(nsPath('patch-json'), JSON_PATCH, [{ op: 'add', path: '/metadata/labels/example.com~1team', value: 'blue' }]);
      expect(res.status, res.text).to.equal(200);
      expect((await stored(nsPath('patch-json'))).metadata.labels).to.include({ 'example.com/team': 'blue' });
    });

    it('strategic merge patch unions metadata.finalizers, while merge patch replaces them', async () => {
      await createNamespace('patch-fin', { finalizers: ['example.com/a'] });
      const smp = await patch(nsPath('patch-fin'), STRATEGIC, { metadata: { finalizers: ['example.com/b'] } });
      expect(smp.status, smp.text).to.equal(200);
      // Kubernetes' merged order: patch items first unless the server order places a server-only item before them.
      expect((await stored(nsPath('patch-fin'))).metadata.finalizers).to.deep.equal(['example.com/b', 'example.com/a']);
      const mp = await patch(nsPath('patch-fin'), MERGE_PATCH, { metadata: { finalizers: ['example.com/c'] } });
      expect(mp.status, mp.text).to.equal(200);
      expect((await stored(nsPath('patch-fin'))).metadata.finalizers).to.deep.equal(['example.com/c']);
      await patch(nsPath('patch-fin'), MERGE_PATCH, { metadata: { finalizers: null } });
    });

    it('strategic merge patch on a namespace merges ownerReferences by uid', async () => {
      await createNamespace('patch-owners', { ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'a', uid: '00000000-0000-0000-0000-0000000000aa' }] });
      const res = await patch(nsPath('patch-owners'), STRATEGIC, {
        metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'b', uid: '00000000-0000-0000-0000-0000000000bb' }] },
      });
      expect(res.status, res.text).to.equal(200);
      expect((await stored(nsPath('patch-owners'))).metadata.ownerReferences.map((r: any) => r.name)).to.deep.equal(['b', 'a']);
    });

    it('a patch of the namespace cannot change status; a patch through /status changes only status', async () => {
      const created = await createNamespace('patch-status', { labels: { l: 'before' } });
      const direct = await patch(nsPath('patch-status'), MERGE_PATCH, { status: { phase: 'Terminating' } });
      expect(direct.status, direct.text).to.equal(200);
      expect((await stored(nsPath('patch-status'))).status).to.deep.equal({ phase: 'Active' });

      const condition = { type: 'Custom', status: 'True', reason: 'Test', message: 'set through status' };
      const res = await patch(`${nsPath('patch-status')}/status`, MERGE_PATCH, {
        metadata: { labels: { l: 'after' } }, spec: { finalizers: [] }, status: { conditions: [condition] },
      });
      expect(res.status, res.text).to.equal(200);
      const after = await stored(nsPath('patch-status'));
      expect(after.status).to.deep.equal({ phase: 'Active', conditions: [condition] });
      expect(after.spec).to.deep.equal(created.spec);
      expect(after.metadata.labels.l).to.equal('before');
    });
  });

  describe('errors', () => {
    it('a JSON patch whose test op fails is 422 and nothing is stored, not even earlier ops', async () => {
      const before = await createConfigMap('jp-test', { a: '1' });
      const res = await patch(cmPath('jp-test'), JSON_PATCH, [
        { op: 'replace', path: '/data/a', value: 'changed' },
        { op: 'test', path: '/data/a', value: 'something else' },
      ]);
      expect(res.status, res.text).to.equal(422);
      expect(res.body).to.include({ kind: 'Status', reason: 'Invalid' });
      expect(res.body.message).to.include('testing value /data/a failed');
      const after = await stored(cmPath('jp-test'));
      expect(after.data).to.deep.equal({ a: '1' });
      expect(after.metadata.resourceVersion).to.equal(before.metadata.resourceVersion);
    });

    it('malformed patches are 400 BadRequest', async () => {
      await createConfigMap('malformed', { a: '1' });
      for (const [type, body] of [
        [MERGE_PATCH, '{"data": '],
        [STRATEGIC, '{not json}'],
        [JSON_PATCH, '{"op":"add"}'],
        [JSON_PATCH, '[{"op":"frobnicate","path":"/data/a"}]'],
        [MERGE_PATCH, '["a"]'],
        [STRATEGIC, '{"metadata":{"labels":{"$patch":"explode"}}}'],
      ] as const) {
        const res = await patch(cmPath('malformed'), type, body);
        expect(res.status, `${type} ${body}: ${res.text}`).to.equal(400);
        expect(res.body).to.include({ kind: 'Status', reason: 'BadRequest' });
      }
      expect((await stored(cmPath('malformed'))).data).to.deep.equal({ a: '1' });
    });

    it('Content-Type text/plain is 415 listing the accepted patch types', async () => {
      await createConfigMap('wrong-type', { a: '1' });
      const res = await patch(cmPath('wrong-type'), 'text/plain', '{"data":{"a":"2"}}');
      expect(res.status, res.text).to.equal(415);
      expect(res.body.reason).to.equal('UnsupportedMediaType');
      for (const type of [JSON_PATCH, MERGE_PATCH, STRATEGIC, 'application/apply-patch+yaml']) expect(res.body.message).to.include(type);
      expect((await stored(cmPath('wrong-type'))).data).to.deep.equal({ a: '1' });
    });

    it('force on a non-apply patch is 422 and nothing is stored', async () => {
      await createConfigMap('forced', { a: '1' });
      const res = await patch(cmPath('forced'), MERGE_PATCH, { data: { a: '2' } }, '?force=true');
      expect(res.status, res.text).to.equal(422);
      expect(res.body.reason).to.equal('Invalid');
      expect(res.body.message).to.include('force').and.include('non-apply patch');
      expect((await stored(cmPath('forced'))).data).to.deep.equal({ a: '1' });
    });

    it('PATCH of a missing object is 404 and creates nothing', async () => {
      for (const [type, body] of [[MERGE_PATCH, { data: { a: '1' } }], [JSON_PATCH, [{ op: 'add', path: '/data', value: {} }]], [STRATEGIC, { data: { a: '1' } }]] as const) {
        const res = await patch(cmPath('nowhere'), type, body);
        expect(res.status, res.text).to.equal(404);
        expect(res.body).to.include({ reason: 'NotFound', message: 'configmaps "nowhere" not found' });
      }
      expect((await t.get(cmPath('nowhere'))).status).to.equal(404);
    });

    it('a merge patch with a stale metadata.resourceVersion is 409 Conflict and changes nothing', async () => {
      const created = await createConfigMap('stale', { a: '1' });
      const first = await patch(cmPath('stale'), MERGE_PATCH, { metadata: { resourceVersion: created.metadata.resourceVersion }, data: { a: '2' } });
      expect(first.status, first.text).to.equal(200);
      const res = await patch(cmPath('stale'), MERGE_PATCH, { metadata: { resourceVersion: created.metadata.resourceVersion }, data: { a: '3' } });
      expect(res.status, res.text).to.equal(409);
      expect(res.body.reason).to.equal('Conflict');
      expect(res.body.message).to.include('the object has been modified');
      const after = await stored(cmPath('stale'));
      expect(after.data).to.deep.equal({ a: '2' });
      expect(after.metadata.resourceVersion).to.equal(first.body.metadata.resourceVersion);
    });
  });

  it('concurrent merge patches without resourceVersion all succeed (the server retries lost races)', async () => {
    await createConfigMap('racy', {});
    const n = 12;
    const results = await Promise.all(Array.from({ length: n }, (_, i) => patch(cmPath('racy'), MERGE_PATCH, { data: { [`k${i}`]: String(i) } })));
    for (const r of results) expect(r.status, r.text).to.equal(200);
    const after = await stored(cmPath('racy'));
    expect(after.data).to.deep.equal(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, String(i)])));
  });

  describe('dryRun', () => {
    it('dryRun=All returns the patched object and stores nothing', async () => {
      const created = await createConfigMap('dry', { a: '1' });
      for (const [type, body] of [[MERGE_PATCH, { data: { a: '2' } }], [STRATEGIC, { data: { a: '2' } }], [JSON_PATCH, [{ op: 'replace', path: '/data/a', value: '2' }]]] as const) {
        const res = await patch(cmPath('dry'), type, body, '?dryRun=All');
        expect(res.status, res.text).to.equal(200);
        expect(res.body.data).to.deep.equal({ a: '2' });
      }
      const after = await stored(cmPath('dry'));
      expect(after.data).to.deep.equal({ a: '1' });
      expect(after.metadata.resourceVersion).to.equal(created.metadata.resourceVersion);
      expect(after.metadata.managedFields).to.deep.equal(created.metadata.managedFields);
    });

    it('an invalid dryRun value is 400 and stores nothing', async () => {
      await createConfigMap('dry-bad', { a: '1' });
      const res = await patch(cmPath('dry-bad'), MERGE_PATCH, { data: { a: '2' } }, '?dryRun=Some');
      expect(res.status, res.text).to.equal(400);
      expect((await stored(cmPath('dry-bad'))).data).to.deep.equal({ a: '1' });
    });
  });

  describe('fieldValidation', () => {
    const withUnknown = (name: string) => JSON.stringify({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, bogusMeta: 'x' }, data: { a: '1' }, spec: { replicas: 2 },
    });
    const post = (body: string, query = '') => t.request('POST', `${cmPath()}${query}`, { raw: body, headers: { 'content-type': 'application/json' } });

    it('Strict: unknown fields are 400 `strict decoding error` naming every path; nothing is created', async () => {
      const res = await post(withUnknown('strict-unknown'), '?fieldValidation=Strict');
      expect(res.status, res.text).to.equal(400);
      expect(res.body.reason).to.equal('BadRequest');
      expect(res.body.message).to.match(/^ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: /);
      expect(res.body.message).to.include('unknown field "metadata.bogusMeta"').and.include('unknown field "spec"');
      expect((await t.get(cmPath('strict-unknown'))).status).to.equal(404);
    });

    it('Strict: a duplicate JSON key is 400 `duplicate field`; nothing is created', async () => {
      const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"strict-dup"},"data":{"a":"1","a":"2"}}';
      const res = await post(body, '?fieldValidation=Strict');
      expect(res.status, res.text).to.equal(400);
      expect(res.body.message).to.match(/^ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: /);
      expect(res.body.message).to.include('duplicate field "data.a"');
      expect((await t.get(cmPath('strict-dup'))).status).to.equal(404);
    });

    it('Warn (the default): 201 with one Warning header per problem', async () => {
      for (const [name, query] of [['warn-default', ''], ['warn-explicit', '?fieldValidation=Warn']]) {
        const body = withUnknown(name).replace('"data":{"a":"1"}', '"data":{"a":"1","a":"2"}');
        const res = await post(body, query);
        expect(res.status, res.text).to.equal(201);
        expect(warnings(res)).to.have.members(['duplicate field "data.a"', 'unknown field "metadata.bogusMeta"', 'unknown field "spec"']);
        expect(String(res.headers.warning)).to.include('299 - "unknown field \\"spec\\""');
        const created = await stored(cmPath(name));
        expect(created.data).to.deep.equal({ a: '2' });
        expect(created).to.not.have.property('spec');
        expect(created.metadata).to.not.have.property('bogusMeta');
      }
    });

    it('Ignore: 201 without any Warning header', async () => {
      const res = await post(withUnknown('ignore'), '?fieldValidation=Ignore');
      expect(res.status, res.text).to.equal(201);
      expect(res.headers.warning).to.equal(undefined);
    });

    it('applies to PATCH as well: Strict refuses an unknown field, Warn warns', async () => {
      await createConfigMap('fv-patch', { a: '1' });
      const strict = await patch(cmPath('fv-patch'), MERGE_PATCH, { data: { a: '2' }, extra: true }, '?fieldValidation=Strict');
      expect(strict.status, strict.text).to.equal(400);
      expect(strict.body.message).to.equal('strict decoding error: unknown field "extra"');
      expect((await stored(cmPath('fv-patch'))).data).to.deep.equal({ a: '1' });
      const warn = await patch(cmPath('fv-patch'), MERGE_PATCH, { data: { a: '2' }, extra: true });
      expect(warn.status, warn.text).to.equal(200);
      expect(warnings(warn)).to.deep.equal(['unknown field "extra"']);
      expect((await stored(cmPath('fv-patch'))).data).to.deep.equal({ a: '2' });
    });

    it('an unsupported fieldValidation value is 400 naming the supported values', async () => {
      const res = await post(withUnknown('fv-bad'), '?fieldValidation=Loose');
      expect(res.status, res.text).to.equal(400);
      expect(res.body.message).to.include('fieldValidation').and.include('"Loose"').and.include('"Strict"');
      expect((await t.get(cmPath('fv-bad'))).status).to.equal(404);
    });
  });
});
