/**
 * Server-side apply and field ownership over HTTPS against a real etcd: every row of the spec's
 * field-ownership table, the apply endpoint's rules (fieldManager, managedFields, YAML/JSON,
 * create, dryRun, /status), the managedFields reset, the temporary-manager handover, the cap on
 * Update managers, and how Update entries and default manager names are recorded.
 */
import { expect } from 'chai';
import { startTestServer, TestServer, HttpResponse } from '../helpers/server-harness';

const NS = 'apply';
const APPLY = 'application/apply-patch+yaml';
const MERGE_PATCH = 'application/merge-patch+json';
const RFC3339_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const cmPath = (name = '') => `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ''}`;

interface Entry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: Record<string, any>;
  subresource?: string;
}

const configMap = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

/** The entries of `obj`, one per (manager, operation). */
function entries(obj: any): Entry[] {
  return (obj.metadata.managedFields ?? []) as Entry[];
}

function entryOf(obj: any, manager: string, operation?: 'Apply' | 'Update'): Entry | undefined {
  const found = entries(obj).filter((e) => e.manager === manager && (!operation || e.operation === operation));
  expect(found.length, `entries of ${manager}`).to.be.at.most(1);
  return found[0];
}

/** The data keys a manager's entry owns (sorted), [] when it has no entry. */
function dataKeys(obj: any, manager: string, operation?: 'Apply' | 'Update'): string[] {
  const e = entryOf(obj, manager, operation);
  const data = e?.fieldsV1['f:data'] ?? {};
  return Object.keys(data).filter((k) => k.startsWith('f:')).map((k) => k.slice(2)).sort();
}

describe('server-side apply and field ownership', () => {
  let t: TestServer;

  /** PATCH with the apply content type; `body` is sent as JSON unless it is a string. */
  const apply = (path: string, body: unknown, query: string) =>
    t.request('PATCH', `${path}?${query}`, { raw: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': APPLY } });
  const applyCm = (name: string, data: Record<string, string>, manager: string, extra = '') =>
    apply(cmPath(name), configMap(name, data), `fieldManager=${manager}${extra}`);
  const mergePatch = (path: string, body: unknown, query = '', headers: Record<string, string> = {}) =>
    t.request('PATCH', `${path}${query}`, { raw: JSON.stringify(body), headers: { 'content-type': MERGE_PATCH, ...headers } });
  const get = async (path: string) => {
    const res = await t.get(path);
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };
  const ok = (res: HttpResponse, status = 200) => {
    expect(res.status, res.text).to.equal(status);
    return res.body;
  };

  before(async () => {
    t = await startTestServer();
    ok(await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), 201);
  });
  after(async () => { await t?.stop(); });

  describe('the field-ownership table', () => {
    it('Update (non-apply PATCH, PUT) by B that changes an A-owned value: owned by B', async () => {
      ok(await applyCm('row-update', { k: 'a', other: 'a' }, 'a'), 201);
      const patched = ok(await mergePatch(cmPath('row-update'), { data: { k: 'b' } }, '?fieldManager=b'));
      expect(patched.data).to.deep.equal({ k: 'b', other: 'a' });
      expect(dataKeys(patched, 'a', 'Apply')).to.deep.equal(['other']);
      expect(dataKeys(patched, 'b', 'Update')).to.deep.equal(['k']);

      // An update that leaves a value as it is takes nothing.
      const same = ok(await mergePatch(cmPath('row-update'), { data: { other: 'a' } }, '?fieldManager=c'));
      expect(entryOf(same, 'c')).to.equal(undefined);
      expect(dataKeys(same, 'a', 'Apply')).to.deep.equal(['other']);

      // PUT is an Update too: C takes `other`, and A, owning nothing now, is dropped.
      const current = await get(cmPath('row-update'));
      const put = ok(await t.put(`${cmPath('row-update')}?fieldManager=c`, { ...current, data: { k: 'b', other: 'c' } }));
      expect(dataKeys(put, 'c', 'Update')).to.deep.equal(['other']);
      expect(dataKeys(put, 'b', 'Update')).to.deep.equal(['k']);
      expect(entryOf(put, 'a'), 'a manager owning nothing is dropped').to.equal(undefined);
    });

    it('Apply by B with a different value: 409 Conflict naming the owner and the field; nothing changes', async () => {
      const created = ok(await applyCm('row-conflict', { k: 'a' }, 'a'), 201);
      const res = await applyCm('row-conflict', { k: 'b' }, 'b');
      expect(res.status, res.text).to.equal(409);
      expect(res.body).to.include({ kind: 'Status', reason: 'Conflict', code: 409 });
      expect(res.body.message).to.equal('Apply failed with 1 conflict: conflict with "a": .data.k');
      expect(res.body.details.causes).to.deep.equal([{ reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.data.k' }]);
      const after = await get(cmPath('row-conflict'));
      expect(after.data).to.deep.equal({ k: 'a' });
      expect(after.metadata.resourceVersion).to.equal(created.metadata.resourceVersion);
      expect(after.metadata.managedFields).to.deep.equal(created.metadata.managedFields);
    });

    it('Apply conflicting with several managers: one cause per (manager, field), Update managers named with their apiVersion', async () => {
      ok(await applyCm('row-conflicts', { k: 'a', j: 'a' }, 'a'), 201);
      ok(await mergePatch(cmPath('row-conflicts'), { data: { j: 'u' } }, '?fieldManager=u'));
      const res = await applyCm('row-conflicts', { k: 'x', j: 'x' }, 'x');
      expect(res.status, res.text).to.equal(409);
      expect(res.body.message).to.equal('Apply failed with 2 conflicts: conflicts with "a":\n- .data.k\nconflicts with "u" using v1:\n- .data.j');
      expect(res.body.details.causes).to.have.deep.members([
        { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.data.k' },
        { reason: 'FieldManagerConflict', message: 'conflict with "u" using v1', field: '.data.j' },
      ]);
      expect((await get(cmPath('row-conflicts'))).data).to.deep.equal({ k: 'a', j: 'u' });
    });

    it('Apply by B with a different value and force=true: B is the sole owner, removed from A', async () => {
      ok(await applyCm('row-force', { k: 'a', other: 'a' }, 'a'), 201);
      const forced = ok(await applyCm('row-force', { k: 'b' }, 'b', '&force=true'));
      expect(forced.data).to.deep.equal({ k: 'b', other: 'a' });
      expect(dataKeys(forced, 'b', 'Apply')).to.deep.equal(['k']);
      expect(dataKeys(forced, 'a', 'Apply')).to.deep.equal(['other']);
      expect((await get(cmPath('row-force'))).data.k).to.equal('b');
    });

    it('Apply by B with the same value: shared by A and B', async () => {
      ok(await applyCm('row-shared', { k: 'same' }, 'a'), 201);
      const shared = ok(await applyCm('row-shared', { k: 'same' }, 'b'));
      expect(dataKeys(shared, 'a', 'Apply')).to.deep.equal(['k']);
      expect(dataKeys(shared, 'b', 'Apply')).to.deep.equal(['k']);
    });

    it('A applies without a field: A no longer owns it; kept while another manager owns it, removed when A was the only owner', async () => {
      ok(await applyCm('row-drop', { kept: 'v', gone: 'v', stay: 'v' }, 'a'), 201);
      ok(await applyCm('row-drop', { kept: 'v' }, 'b'));
      const after = ok(await applyCm('row-drop', { stay: 'v' }, 'a'));
      expect(after.data).to.deep.equal({ kept: 'v', stay: 'v' });
      expect(dataKeys(after, 'a', 'Apply')).to.deep.equal(['stay']);
      expect(dataKeys(after, 'b', 'Apply')).to.deep.equal(['kept']);
      expect((await get(cmPath('row-drop'))).data).to.deep.equal({ kept: 'v', stay: 'v' });
    });

    it('a field shared by several managers: changing it by apply without force conflicts, even for one of the sharers', async () => {
      ok(await applyCm('row-shared-change', { k: 'same' }, 'a'), 201);
      ok(await applyCm('row-shared-change', { k: 'same' }, 'b'));
      const res = await applyCm('row-shared-change', { k: 'new' }, 'a');
      expect(res.status, res.text).to.equal(409);
      expect(res.body.message).to.equal('Apply failed with 1 conflict: conflict with "b": .data.k');
      expect((await get(cmPath('row-shared-change'))).data.k).to.equal('same');

      // With force the changer becomes the sole owner; an Update never conflicts and takes the field from all.
      const forced = ok(await applyCm('row-shared-change', { k: 'new' }, 'a', '&force=true'));
      expect(dataKeys(forced, 'a', 'Apply')).to.deep.equal(['k']);
      expect(entryOf(forced, 'b')).to.equal(undefined);
      ok(await applyCm('row-shared-change', { k: 'new' }, 'b'));
      const updated = ok(await mergePatch(cmPath('row-shared-change'), { data: { k: 'u' } }, '?fieldManager=u'));
      expect(dataKeys(updated, 'u', 'Update')).to.deep.equal(['k']);
      expect(entryOf(updated, 'a')).to.equal(undefined);
      expect(entryOf(updated, 'b')).to.equal(undefined);
    });
  });

  describe('the apply endpoint', () => {
    it('creates a missing object: 201 with one Apply entry owning the applied fields', async () => {
      const res = await applyCm('created', { k: 'v' }, 'creator');
      const obj = ok(res, 201);
      expect(obj.data).to.deep.equal({ k: 'v' });
      expect(entries(obj)).to.have.length(1);
      const e = entries(obj)[0];
      expect(e).to.include({ manager: 'creator', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1' });
      expect(e.time).to.match(RFC3339_SECONDS);
      expect(dataKeys(obj, 'creator')).to.deep.equal(['k']);
      expect(await get(cmPath('created'))).to.deep.equal(obj);
      // Applying it again is 200.
      ok(await applyCm('created', { k: 'v' }, 'creator'), 200);
    });

    it('without fieldManager is 422 and creates nothing', async () => {
      const res = await apply(cmPath('no-manager'), configMap('no-manager', { k: 'v' }), '');
      expect(res.status, res.text).to.equal(422);
      expect(res.body.reason).to.equal('Invalid');
      expect(res.body.message).to.include('fieldManager').and.include('required');
      expect((await t.get(cmPath('no-manager'))).status).to.equal(404);
    });

    it('a body carrying managedFields is 400 and changes nothing', async () => {
      ok(await applyCm('with-mf', { k: 'v' }, 'a'), 201);
      const body = { ...configMap('with-mf', { k: 'w' }), metadata: { name: 'with-mf', managedFields: [{ manager: 'x', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }] } };
      const res = await apply(cmPath('with-mf'), body, 'fieldManager=a');
      expect(res.status, res.text).to.equal(400);
      expect(res.body.message).to.include('managedFields must be nil');
      expect((await get(cmPath('with-mf'))).data).to.deep.equal({ k: 'v' });
    });

    it('accepts YAML and JSON bodies', async () => {
      const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-body\ndata:\n  number: "1"\n  word: hello\n';
      ok(await apply(cmPath('yaml-body'), yaml, 'fieldManager=y'), 201);
      expect((await get(cmPath('yaml-body'))).data).to.deep.equal({ number: '1', word: 'hello' });
      const json = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"yaml-body"},"data":{"number":"2"}}';
      const res = ok(await apply(cmPath('yaml-body'), json, 'fieldManager=y'));
      // `word` was applied last time and is not now: y was its only owner, so it is removed.
      expect(res.data).to.deep.equal({ number: '2' });
    });

    it('a fieldManager longer than 128 characters is 422 for apply and for other writes', async () => {
      const long = 'm'.repeat(129);
      const applied = await applyCm('long-manager', { k: 'v' }, long);
      expect(applied.status, applied.text).to.equal(422);
      expect(applied.body.message).to.include('fieldManager').and.include('128');
      const posted = await t.post(`${cmPath()}?fieldManager=${long}`, configMap('long-manager', { k: 'v' }));
      expect(posted.status, posted.text).to.equal(422);
      expect((await t.get(cmPath('long-manager'))).status).to.equal(404);
      ok(await applyCm('long-manager', { k: 'v' }, 'm'.repeat(128)), 201);
    });

    it('dryRun=All answers with the would-be object and stores nothing (create and change)', async () => {
      const dryCreate = await applyCm('dry-apply', { k: 'v' }, 'a', '&dryRun=All');
      expect(dryCreate.status, dryCreate.text).to.equal(201);
      expect(dryCreate.body.data).to.deep.equal({ k: 'v' });
      expect((await t.get(cmPath('dry-apply'))).status).to.equal(404);

      const created = ok(await applyCm('dry-apply', { k: 'v' }, 'a'), 201);
      const dryChange = ok(await applyCm('dry-apply', { k: 'w' }, 'b', '&force=true&dryRun=All'));
      expect(dryChange.data).to.deep.equal({ k: 'w' });
      expect(dataKeys(dryChange, 'b', 'Apply')).to.deep.equal(['k']);
      expect(await get(cmPath('dry-apply'))).to.deep.equal(created);
    });

    it('apply through /status of a namespace records an entry with subresource status and changes only status', async () => {
      const created = ok(await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apply-status' } }), 201);
      const condition = { type: 'Ready', status: 'True', reason: 'Applied' };
      const res = await apply('/api/v1/namespaces/apply-status/status', {
        apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apply-status' }, status: { conditions: [condition] },
      }, 'fieldManager=status-agent');
      const obj = ok(res);
      expect(obj.status.conditions).to.deep.equal([condition]);
      const e = entryOf(obj, 'status-agent');
      expect(e).to.include({ operation: 'Apply', subresource: 'status', apiVersion: 'v1' });
      expect(e?.fieldsV1).to.have.property('f:status');
      expect(e?.fieldsV1).to.not.have.property('f:spec');
      const stored = await get('/api/v1/namespaces/apply-status');
      expect(stored.spec).to.deep.equal(created.spec);
      expect(stored.status.conditions).to.deep.equal([condition]);
      expect(entryOf(stored, 'status-agent')?.subresource).to.equal('status');
    });
  });

  describe('managedFields', () => {
    it('a merge patch setting managedFields to [{}] resets them; [] does not', async () => {
      ok(await applyCm('reset', { k: 'a', j: 'a' }, 'a'), 201);
      const before = ok(await mergePatch(cmPath('reset'), { data: { j: 'b' } }, '?fieldManager=b'));
      expect(entries(before).map((e) => e.manager)).to.have.members(['a', 'b']);

      const empty = ok(await mergePatch(cmPath('reset'), { metadata: { managedFields: [] } }, '?fieldManager=r'));
      expect(empty.metadata.managedFields).to.deep.equal(before.metadata.managedFields);

      const reset = ok(await mergePatch(cmPath('reset'), { metadata: { managedFields: [{}] } }, '?fieldManager=r'));
      expect(reset.metadata).to.not.have.property('managedFields');
      expect((await get(cmPath('reset'))).metadata).to.not.have.property('managedFields');
      expect(reset.data).to.deep.equal({ k: 'a', j: 'b' });
    });

    it('a reset together with other changes: the sender owns every field of the request', async () => {
      ok(await applyCm('reset-change', { k: 'a', j: 'a' }, 'a'), 201);
      const res = ok(await mergePatch(cmPath('reset-change'), { metadata: { managedFields: [{}] }, data: { k: 'a', n: 'new' } }, '?fieldManager=r'));
      expect(entries(res).map((e) => e.manager)).to.deep.equal(['r']);
      expect(dataKeys(res, 'r', 'Update')).to.deep.equal(['k', 'n']);
    });

    it('temporary-manager handover: the temporary manager is dropped once the controller writes the field', async () => {
      ok(await applyCm('handover', { replicas: '3', owner: 'user' }, 'user'), 201);
      // 1. The temporary manager applies only the field, with the live value: shared.
      const shared = ok(await applyCm('handover', { replicas: '3' }, 'handover-to-controller'));
      expect(dataKeys(shared, 'handover-to-controller', 'Apply')).to.deep.equal(['replicas']);
      // 2. The user drops the field from its configuration: the value stays (the temporary manager owns it).
      const released = ok(await applyCm('handover', { owner: 'user' }, 'user'));
      expect(released.data).to.deep.equal({ replicas: '3', owner: 'user' });
      expect(dataKeys(released, 'user', 'Apply')).to.deep.equal(['owner']);
      // 3. The controller writes the field: it owns it, and the temporary manager, owning nothing, is gone.
      const taken = ok(await mergePatch(cmPath('handover'), { data: { replicas: '5' } }, '?fieldManager=controller'));
      expect(taken.data).to.deep.equal({ replicas: '5', owner: 'user' });
      expect(dataKeys(taken, 'controller', 'Update')).to.deep.equal(['replicas']);
      expect(entryOf(taken, 'handover-to-controller')).to.equal(undefined);
      expect(entries(taken).map((e) => e.manager).sort()).to.deep.equal(['controller', 'user']);
      // The user's next apply of its configuration does not fight the controller.
      ok(await applyCm('handover', { owner: 'user' }, 'user'));
      expect((await get(cmPath('handover'))).data.replicas).to.equal('5');
    });

    it('each updater gets an Update entry with apiVersion v1 and a time', async () => {
      ok(await t.post(`${cmPath()}?fieldManager=creator`, configMap('updates', { c: '1' })), 201);
      ok(await mergePatch(cmPath('updates'), { data: { x: '1' } }, '?fieldManager=x'));
      const obj = ok(await mergePatch(cmPath('updates'), { data: { y: '1' } }, '?fieldManager=y'));
      expect(entries(obj).map((e) => e.manager).sort()).to.deep.equal(['creator', 'x', 'y']);
      for (const e of entries(obj)) {
        expect(e).to.include({ operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1' });
        expect(e.time).to.match(RFC3339_SECONDS);
        expect(e).to.not.have.property('subresource');
      }
      expect(dataKeys(obj, 'creator')).to.deep.equal(['c']);
      expect(dataKeys(obj, 'x')).to.deep.equal(['x']);
      expect(dataKeys(obj, 'y')).to.deep.equal(['y']);
      // A second write by the same manager extends its one entry.
      const again = ok(await mergePatch(cmPath('updates'), { data: { y2: '1' } }, '?fieldManager=y'));
      expect(dataKeys(again, 'y')).to.deep.equal(['y', 'y2']);
    });

    it('more than 10 Update managers: the oldest are folded into `ancient-changes`', async () => {
      ok(await t.post(`${cmPath()}?fieldManager=creator`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'capped' } }), 201);
      const name = (i: number) => `m${String(i).padStart(2, '0')}`;
      let obj: any;
      for (let i = 1; i <= 10; i++) obj = ok(await mergePatch(cmPath('capped'), { data: { [name(i)]: 'v' } }, `?fieldManager=${name(i)}`));
      expect(entries(obj).map((e) => e.manager).sort()).to.deep.equal(Array.from({ length: 10 }, (_, i) => name(i + 1)));

      obj = ok(await mergePatch(cmPath('capped'), { data: { [name(11)]: 'v' } }, `?fieldManager=${name(11)}`));
      const managers = entries(obj).map((e) => e.manager).sort();
      expect(managers).to.have.length(10);
      expect(managers).to.include('ancient-changes').and.include(name(11));
      expect(entryOf(obj, 'ancient-changes')).to.include({ operation: 'Update', apiVersion: 'v1' });
      // Every field is still owned by someone, the two oldest managers' by ancient-changes.
      const owned = entries(obj).flatMap((e) => dataKeys(obj, e.manager)).sort();
      expect(owned).to.deep.equal(Array.from({ length: 11 }, (_, i) => name(i + 1)));
      expect(dataKeys(obj, 'ancient-changes')).to.deep.equal([name(1), name(2)]);
      expect(await get(cmPath('capped'))).to.deep.equal(obj);
    });

    it('without fieldManager the manager is the User-Agent up to its first "/"', async () => {
      const ua = { 'user-agent': 'mytool/1.0 (linux/amd64) build/abc' };
      const created = await t.post(cmPath(), configMap('ua', { k: 'v' }), { headers: ua });
      expect(created.status, created.text).to.equal(201);
      expect(entries(created.body).map((e) => e.manager)).to.deep.equal(['mytool']);
      const patched = ok(await mergePatch(cmPath('ua'), { data: { j: 'v' } }, '', { 'user-agent': 'othertool/2.0' }));
      expect(dataKeys(patched, 'othertool', 'Update')).to.deep.equal(['j']);
      expect(dataKeys(patched, 'mytool', 'Update')).to.deep.equal(['k']);
    });
  });
});
