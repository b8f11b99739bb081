/**
 * The RBAC kinds over HTTPS against a real etcd, as the admin: Role, ClusterRole, RoleBinding and
 * ClusterRoleBinding in rbac.authorization/v1 through every verb (create, get, list, watch,
 * update, PUT-create, merge / strategic merge / JSON patch, server-side apply on atomic lists,
 * delete, deletecollection); kube-apiserver's validation with its fields and messages and the
 * store left untouched; roleRef immutable while subjects change; the Table columns kubectl
 * prints; protobuf bodies and answers; path-segment names; the kubernetes flavor's group; and a
 * binding made here granting a user what its role says.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, WITHOUT_NAMESPACE_DEFAULTS, eventually, startTestServer } from '../helpers/server-harness';
import { adminTarget, openWatch } from '../helpers/watch-client';
import { PROTOBUF_PREFIX, decodeProtobuf, encodeProtobuf } from '../../lib/scheme/protobuf';

type Obj = Record<string, any>;
const NS = 'rbac-kinds';
const K8S_PB = 'application/vnd.kubernetes.protobuf';
const MERGE = 'application/merge-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const APPLY = 'application/apply-patch+yaml';
const AGE = /^\d+s$/;

type Kind = 'Role' | 'ClusterRole' | 'RoleBinding' | 'ClusterRoleBinding';
const KINDS: Kind[] = ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'];
const PLURAL: Record<Kind, string> = { Role: 'roles', ClusterRole: 'clusterroles', RoleBinding: 'rolebindings', ClusterRoleBinding: 'clusterrolebindings' };
const NAMESPACED: Record<Kind, boolean> = { Role: true, ClusterRole: false, RoleBinding: true, ClusterRoleBinding: false };

const causes = (res: HttpResponse): Array<{ field: string; reason: string; message: string }> => res.body?.details?.causes ?? [];

function expectCode(res: HttpResponse, code: number): void {
  expect(res.status, res.text).to.equal(code);
}

/** A 422 Invalid whose causes include exactly this field, reason and message. */
function expectCause(res: HttpResponse, field: string, reason: string, message: string): void {
  expectCode(res, 422);
  expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422 });
  expect(causes(res), JSON.stringify(causes(res))).to.deep.include({ reason, message, field });
}

describe('RBAC kinds', function () {
  this.timeout(60_000);
  let t: TestServer;
  let group: string;
  let apiVersion: string;
  let seq = 0;
  const name = (prefix: string) => `${prefix}-${++seq}`;

  const path = (kind: Kind, n = '') => `/apis/${apiVersion}${NAMESPACED[kind] ? `/namespaces/${NS}` : ''}/${PLURAL[kind]}${n ? `/${n}` : ''}`;
  const rule = (resources = ['configmaps'], verbs = ['get', 'list']) => ({ verbs, apiGroups: [''], resources });
  const ref = (kind: 'Role' | 'ClusterRole', n: string) => ({ apiGroup: group, kind, name: n });

  /** A valid object of each kind. */
  function valid(kind: Kind, n: string): Obj {
    const base = { apiVersion, kind, metadata: { name: n } };
    switch (kind) {
      case 'Role': return { ...base, rules: [rule()] };
      case 'ClusterRole': return { ...base, rules: [rule(), { verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics/*'] }] };
      case 'RoleBinding': return { ...base, roleRef: { kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'jane' }, { kind: 'ServiceAccount', name: 'builder' }] };
      case 'ClusterRoleBinding': return { ...base, roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'builder', namespace: NS }] };
    }
  }

  async function created(kind: Kind, obj: Obj): Promise<Obj> {
    const res = await t.post(path(kind), obj);
    expectCode(res, 201);
    return res.body;
  }
  const patch = (p: string, contentType: string, body: unknown, query = '') =>
    t.request('PATCH', `${p}${query}`, { raw: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': contentType } });

  before(async () => {
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS]);
    group = t.server.naming.group('rbac.authorization');
    apiVersion = `${group}/v1`;
    expectCode(await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), 201);
  });
  after(async () => { await t?.stop(); });

  it('discovery lists the four resources with every verb, their scope and no short names', async () => {
    const res = await t.get(`/apis/${apiVersion}`);
    expectCode(res, 200);
    const byName = Object.fromEntries(res.body.resources.map((r: Obj) => [r.name, r]));
    for (const kind of KINDS) {
      const r = byName[PLURAL[kind]];
      expect(r, PLURAL[kind]).to.include({ kind, namespaced: NAMESPACED[kind], singularName: kind.toLowerCase() });
      expect(r.verbs).to.have.members(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
      expect(r.shortNames ?? []).to.deep.equal([]);
    }
  });

  describe('every verb', () => {
    for (const kind of KINDS) {
      it(`${kind}: create, get, list, update, patch, delete`, async () => {
        const n = name(kind.toLowerCase());
        const made = await created(kind, valid(kind, n));
        expect(made.metadata).to.include({ name: n, ...(NAMESPACED[kind] ? { namespace: NS } : {}) });
        const got = await t.get(path(kind, n));
        expectCode(got, 200);
        expect(got.body).to.deep.equal(made);
        const list = await t.get(path(kind));
        expect(list.body.kind).to.equal(`${kind}List`);
        expect(list.body.items.map((o: Obj) => o.metadata.name)).to.include(n);

        const isRole = kind === 'Role' || kind === 'ClusterRole';
        const next = isRole ? { ...got.body, rules: [rule(['secrets'], ['get'])] } : { ...got.body, subjects: [{ kind: 'User', name: 'other' }] };
        const put = await t.put(path(kind, n), next);
        expectCode(put, 200);
        expect(isRole ? put.body.rules : put.body.subjects).to.deep.equal(isRole ? [rule(['secrets'], ['get'])] : [{ kind: 'User', apiGroup: group, name: 'other' }]);

        const merged = await patch(path(kind, n), MERGE, { metadata: { labels: { tier: 'x' } } });
        expectCode(merged, 200);
        expect(merged.body.metadata.labels).to.deep.equal({ tier: 'x' });
        const jp = await patch(path(kind, n), JSON_PATCH, [{ op: 'add', path: '/metadata/annotations', value: { a: 'b' } }]);
        expectCode(jp, 200);

        const del = await t.del(path(kind, n));
        expectCode(del, 200);
        expect(del.body).to.include({ kind: 'Status', status: 'Success' });
        expect(del.body.details).to.include({ name: n, group, kind: PLURAL[kind] });
        expectCode(await t.get(path(kind, n)), 404);
      });
    }

    it('PUT of a missing object creates it (201), as Kubernetes allows for RBAC kinds', async () => {
      const n = name('put-create');
      const res = await t.put(path('RoleBinding', n), valid('RoleBinding', n));
      expectCode(res, 201);
      expect(res.body.roleRef).to.deep.equal(ref('Role', 'reader'));
    });

    it('watch sees a ClusterRole added, modified and deleted', async () => {
      const n = name('watched');
      const list = await t.get(path('ClusterRole'));
      const w = openWatch(adminTarget(t.server), `${path('ClusterRole')}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`);
      try {
        await created('ClusterRole', valid('ClusterRole', n));
        expectCode(await patch(path('ClusterRole', n), MERGE, { rules: [rule(['pods'])] }), 200);
        expectCode(await t.del(path('ClusterRole', n)), 200);
        const mine = (type: string) => (e: { type: string; object: Obj }) => e.type === type && e.object.metadata?.name === n;
        expect((await w.waitFor(mine('ADDED'))).object.kind).to.equal('ClusterRole');
        expect((await w.waitFor(mine('MODIFIED'))).object.rules).to.deep.equal([rule(['pods'])]);
        await w.waitFor(mine('DELETED'));
      } finally {
        w.close();
      }
    });

    it('deletecollection removes the roles a label selector picks, and only those', async () => {
      const [a, b, keep] = [name('dc'), name('dc'), name('dc-keep')];
      for (const n of [a, b]) await created('Role', { ...valid('Role', n), metadata: { name: n, labels: { batch: 'dc' } } });
      await created('Role', valid('Role', keep));
      const res = await t.request('DELETE', `${path('Role')}?labelSelector=batch%3Ddc`);
      expectCode(res, 200);
      expect(res.body.kind).to.equal('RoleList');
      const left = (await t.get(path('Role'))).body.items.map((o: Obj) => o.metadata.name);
      expect(left).to.include(keep).and.not.include(a).and.not.include(b);
    });
  });

  describe('names are path segments', () => {
    it('accepts colons, capitals and dots (system:controller:x, Upper.Case)', async () => {
      for (const n of ['system:controller:demo', 'Upper.Case_name', 'a@b']) {
        const made = await created('ClusterRole', valid('ClusterRole', n));
        expect(made.metadata.name).to.equal(n);
        expectCode(await t.get(path('ClusterRole', encodeURIComponent(n))), 200);
      }
    });

    it("refuses '/', '%', '.' and '..' with Kubernetes' message", async () => {
      for (const [n, msg] of [['a/b', "may not contain '/'"], ['a%b', "may not contain '%'"], ['..', "may not be '..'"], ['.', "may not be '.'"]]) {
        expectCause(await t.post(path('Role'), valid('Role', n)), 'metadata.name', 'FieldValueInvalid', `Invalid value: "${n}": ${msg}`);
      }
    });
  });

  describe('patches and apply treat rules and subjects as atomic lists', () => {
    it('a strategic merge patch replaces the whole rules list', async () => {
      const n = name('smp');
      await created('ClusterRole', valid('ClusterRole', n));
      const res = await patch(path('ClusterRole', n), SMP, { rules: [rule(['pods'], ['watch'])] });
      expectCode(res, 200);
      expect(res.body.rules).to.deep.equal([rule(['pods'], ['watch'])]);
    });

    it('a strategic merge patch replaces the whole subjects list, defaulting its apiGroups', async () => {
      const n = name('smp-b');
      await created('RoleBinding', valid('RoleBinding', n));
      const res = await patch(path('RoleBinding', n), SMP, { subjects: [{ kind: 'Group', name: 'ops' }] });
      expectCode(res, 200);
      expect(res.body.subjects).to.deep.equal([{ kind: 'Group', apiGroup: group, name: 'ops' }]);
    });

    it('server-side apply: rules are owned whole, another manager conflicts on .rules, force takes them', async () => {
      const n = name('ssa');
      const applied = (rules: Obj[]) => JSON.stringify({ apiVersion, kind: 'ClusterRole', metadata: { name: n }, rules });
      const first = await patch(path('ClusterRole', n), APPLY, applied([rule()]), '?fieldManager=a');
      expectCode(first, 201);
      const entry = first.body.metadata.managedFields.find((m: Obj) => m.manager === 'a');
      expect(entry.fieldsV1).to.deep.equal({ 'f:rules': {} });
      const conflict = await patch(path('ClusterRole', n), APPLY, applied([rule(['pods'])]), '?fieldManager=b');
      expectCode(conflict, 409);
      expect(conflict.body.message).to.equal('Apply failed with 1 conflict: conflict with "a": .rules');
      expect((await t.get(path('ClusterRole', n))).body.rules).to.deep.equal([rule()]);
      const forced = await patch(path('ClusterRole', n), APPLY, applied([rule(['pods'])]), '?fieldManager=b&force=true');
      expectCode(forced, 200);
      expect(forced.body.rules).to.deep.equal([rule(['pods'])]);
    });

    it('server-side apply creates a binding with its defaults', async () => {
      const n = name('ssa-b');
      const body = { apiVersion, kind: 'ClusterRoleBinding', metadata: { name: n }, roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'u' }] };
      const res = await patch(path('ClusterRoleBinding', n), APPLY, JSON.stringify(body), '?fieldManager=a');
      expectCode(res, 201);
      expect(res.body.roleRef).to.deep.equal(ref('ClusterRole', 'view'));
      expect(res.body.subjects).to.deep.equal([{ kind: 'User', apiGroup: group, name: 'u' }]);
    });
  });

  describe('validation (422 with Kubernetes\' fields and messages; nothing stored)', () => {
    const cases: Array<[string, Kind, (o: Obj) => void, string, string, string]> = [
      ['verbs required', 'Role', (o) => { o.rules = [{ apiGroups: [''], resources: ['pods'] }]; },
        'rules[0].verbs', 'FieldValueRequired', 'Required value: verbs must contain at least one value'],
      ['non-resource URLs in a Role', 'Role', (o) => { o.rules = [rule(), { verbs: ['get'], nonResourceURLs: ['/healthz'] }]; },
        'rules[1].nonResourceURLs', 'FieldValueInvalid', 'Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs'],
      ['resources mixed with non-resource URLs', 'ClusterRole', (o) => { o.rules = [{ verbs: ['get'], resources: ['pods'], nonResourceURLs: ['/x', '/y'] }]; },
        'rules[0].nonResourceURLs', 'FieldValueInvalid', 'Invalid value: []string{"/x", "/y"}: rules cannot apply to both regular resources and non-resource URLs'],
      ['apiGroups required', 'ClusterRole', (o) => { o.rules = [{ verbs: ['get'], resources: ['pods'] }]; },
        'rules[0].apiGroups', 'FieldValueRequired', 'Required value: resource rules must supply at least one api group'],
      ['resources required', 'Role', (o) => { o.rules = [{ verbs: ['get'], apiGroups: [''] }]; },
        'rules[0].resources', 'FieldValueRequired', 'Required value: resource rules must supply at least one resource'],
      ['aggregationRule without selectors', 'ClusterRole', (o) => { o.aggregationRule = {}; },
        'aggregationRule.clusterRoleSelectors', 'FieldValueRequired', 'Required value: at least one clusterRoleSelector required if aggregationRule is non-nil'],
      ['aggregation selector with a bad operator', 'ClusterRole', (o) => { o.aggregationRule = { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Like' }] }] }; },
        'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator', 'FieldValueInvalid', 'Invalid value: "Like": not a valid selector operator'],
      ['aggregation selector with a bad label key', 'ClusterRole', (o) => { o.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { 'bad key': 'true' } }] }; },
        'aggregationRule.clusterRoleSelectors[0]', 'FieldValueInvalid', 'Invalid value: "null": invalid label selector.'],
      ['subject of an unknown kind', 'RoleBinding', (o) => { o.subjects = [{ kind: 'Robot', name: 'r' }]; },
        'subjects[0].kind', 'FieldValueNotSupported', 'Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"'],
      ['subject without a name', 'RoleBinding', (o) => { o.subjects = [{ kind: 'User' }]; },
        'subjects[0].name', 'FieldValueRequired', 'Required value'],
      ['user subject of another API group', 'ClusterRoleBinding', (o) => { o.subjects = [{ kind: 'User', apiGroup: 'example.com', name: 'u' }]; },
        'subjects[0].apiGroup', 'FieldValueNotSupported', 'Unsupported value: "example.com": supported values: "RBAC"'],
      ['service account subject with an API group', 'RoleBinding', (o) => { o.subjects = [{ kind: 'ServiceAccount', apiGroup: 'example.com', name: 'sa' }]; },
        'subjects[0].apiGroup', 'FieldValueNotSupported', 'Unsupported value: "example.com": supported values: ""'],
      ['service account name not a DNS subdomain', 'RoleBinding', (o) => { o.subjects = [{ kind: 'ServiceAccount', name: 'Build_Bot' }]; },
        'subjects[0].name', 'FieldValueInvalid', 'Invalid value: "Build_Bot": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')'],
      ['service account without namespace in a ClusterRoleBinding', 'ClusterRoleBinding', (o) => { o.subjects = [{ kind: 'ServiceAccount', name: 'sa' }]; },
        'subjects[0].namespace', 'FieldValueRequired', 'Required value'],
      ['roleRef of another API group', 'RoleBinding', (o) => { o.roleRef = { apiGroup: 'example.com', kind: 'Role', name: 'r' }; },
        'roleRef.apiGroup', 'FieldValueNotSupported', 'Unsupported value: "example.com": supported values: "RBAC"'],
      ['roleRef to another kind', 'RoleBinding', (o) => { o.roleRef = { kind: 'Secret', name: 'r' }; },
        'roleRef.kind', 'FieldValueNotSupported', 'Unsupported value: "Secret": supported values: "Role", "ClusterRole"'],
      ['ClusterRoleBinding to a Role', 'ClusterRoleBinding', (o) => { o.roleRef = { kind: 'Role', name: 'r' }; },
        'roleRef.kind', 'FieldValueNotSupported', 'Unsupported value: "Role": supported values: "ClusterRole"'],
      ['roleRef without name', 'ClusterRoleBinding', (o) => { o.roleRef = { kind: 'ClusterRole' }; },
        'roleRef.name', 'FieldValueRequired', 'Required value'],
      ['roleRef name not a path segment', 'RoleBinding', (o) => { o.roleRef = { kind: 'ClusterRole', name: 'a/b' }; },
        'roleRef.name', 'FieldValueInvalid', 'Invalid value: "a/b": may not contain \'/\''],
      ['binding without roleRef', 'RoleBinding', (o) => { delete o.roleRef; },
        'roleRef.kind', 'FieldValueNotSupported', 'Unsupported value: "": supported values: "Role", "ClusterRole"'],
    ];

    for (const [what, kind, change, field, reason, message] of cases) {
      it(`${kind}: ${what}`, async () => {
        const n = name('bad');
        const obj = valid(kind, n);
        change(obj);
        expectCause(await t.post(path(kind), obj), field, reason, message.replace('"RBAC"', JSON.stringify(group)));
        expectCode(await t.get(path(kind, n)), 404);
      });
    }

    it('the Status message names the kind, the object and every cause', async () => {
      const res = await t.post(path('Role'), { ...valid('Role', 'two-faults'), rules: [{ verbs: [], apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/x'] }] });
      expectCode(res, 422);
      expect(res.body.message).to.equal(`Role.${group} "two-faults" is invalid: [rules[0].verbs: Required value: verbs must contain at least one value, `
        + 'rules[1].nonResourceURLs: Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs]');
      expect(res.body.details).to.include({ name: 'two-faults', group, kind: 'Role' });
    });

    it('an invalid update is refused and leaves the stored object as it was', async () => {
      const n = name('bad-update');
      const made = await created('ClusterRole', valid('ClusterRole', n));
      expectCause(await t.put(path('ClusterRole', n), { ...made, rules: [{ verbs: ['get'] }] }), 'rules[0].apiGroups', 'FieldValueRequired', 'Required value: resource rules must supply at least one api group');
      expectCause(await patch(path('ClusterRole', n), MERGE, { aggregationRule: { clusterRoleSelectors: [] } }), 'aggregationRule.clusterRoleSelectors', 'FieldValueRequired', 'Required value: at least one clusterRoleSelector required if aggregationRule is non-nil');
      expect((await t.get(path('ClusterRole', n))).body).to.deep.equal(made);
    });

    it('a body of the wrong JSON type is 400, not stored', async () => {
      const res = await t.post(path('Role'), { ...valid('Role', 'wrong-type'), rules: [{ verbs: 'get' }] });
      expectCode(res, 400);
      expect(res.body.message).to.contain('cannot unmarshal string into Go struct field');
      expectCode(await t.get(path('Role', 'wrong-type')), 404);
    });
  });

  describe('roleRef is immutable, subjects are not', () => {
    for (const kind of ['RoleBinding', 'ClusterRoleBinding'] as const) {
      it(`${kind}: changing roleRef is 422 "cannot change roleRef" (PUT and patch), subjects change freely`, async () => {
        const n = name('immutable');
        const made = await created(kind, valid(kind, n));
        const other = { ...made.roleRef, name: 'something-else' };
        const goRef = `rbac.RoleRef{APIGroup:"${group}", Kind:"${other.kind}", Name:"something-else"}`;
        expectCause(await t.put(path(kind, n), { ...made, roleRef: other }), 'roleRef', 'FieldValueInvalid', `Invalid value: ${goRef}: cannot change roleRef`);
        expectCause(await patch(path(kind, n), MERGE, { roleRef: { name: 'something-else' } }), 'roleRef', 'FieldValueInvalid', `Invalid value: ${goRef}: cannot change roleRef`);
        expect((await t.get(path(kind, n))).body).to.deep.equal(made);

        const subjects = [{ kind: 'User', apiGroup: group, name: 'new-user' }];
        const ok = await patch(path(kind, n), MERGE, { subjects });
        expectCode(ok, 200);
        expect(ok.body.subjects).to.deep.equal(subjects);
        expect(ok.body.roleRef).to.deep.equal(made.roleRef);
        // The same roleRef spelled without its (defaulted) apiGroup is no change.
        const same = await t.put(path(kind, n), { ...ok.body, roleRef: { kind: made.roleRef.kind, name: made.roleRef.name } });
        expectCode(same, 200);
      });
    }
  });

  describe('Table', () => {
    const asTable = { accept: `application/json;as=Table;v=v1;g=${'meta.orch.io'}` };

    it('RoleBindings: Name, Role (Kind/name), Age, and the wide Users, Groups, ServiceAccounts', async () => {
      const n = name('table');
      await created('RoleBinding', {
        ...valid('RoleBinding', n), roleRef: { kind: 'ClusterRole', name: 'edit' },
        subjects: [{ kind: 'User', name: 'jane' }, { kind: 'User', name: 'joe' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'ci' }, { kind: 'ServiceAccount', name: 'x', namespace: 'other' }],
      });
      const res = await t.get(path('RoleBinding', n), { headers: asTable });
      expectCode(res, 200);
      expect(res.body).to.include({ kind: 'Table', apiVersion: 'meta.orch.io/v1' });
      expect(res.body.columnDefinitions.map((c: Obj) => [c.name, c.type, c.format, c.priority])).to.deep.equal([
        ['Name', 'string', 'name', 0], ['Role', 'string', '', 0], ['Age', 'string', '', 0],
        ['Users', 'string', '', 1], ['Groups', 'string', '', 1], ['ServiceAccounts', 'string', '', 1],
      ]);
      expect(res.body.columnDefinitions[3].description).to.equal('Users in the roleBinding');
      const [cells] = res.body.rows.map((r: Obj) => r.cells);
      expect(cells[2]).to.match(AGE);
      // A ServiceAccount subject without a namespace prints as "/name", as kubectl shows it.
      expect([...cells.slice(0, 2), ...cells.slice(3)]).to.deep.equal([n, 'ClusterRole/edit', 'jane, joe', 'devs', '/ci, other/x']);
    });

    it('ClusterRoleBindings: the same columns, described for a clusterRoleBinding', async () => {
      const n = name('table-crb');
      await created('ClusterRoleBinding', valid('ClusterRoleBinding', n));
      const res = await t.get(path('ClusterRoleBinding'), { headers: asTable });
      expectCode(res, 200);
      expect(res.body.columnDefinitions.map((c: Obj) => c.name)).to.deep.equal(['Name', 'Role', 'Age', 'Users', 'Groups', 'ServiceAccounts']);
      expect(res.body.columnDefinitions[5].description).to.equal('ServiceAccounts in the clusterRoleBinding');
      const row = res.body.rows.find((r: Obj) => r.cells[0] === n);
      expect(row.cells.slice(3)).to.deep.equal(['', 'devs', `${NS}/builder`]);
      expect(row.cells[1]).to.equal('ClusterRole/view');
    });

    it('Roles and ClusterRoles: Name and Created At (the default table)', async () => {
      const n = name('table-role');
      const made = await created('Role', valid('Role', n));
      for (const kind of ['Role', 'ClusterRole'] as const) {
        const res = await t.get(path(kind), { headers: asTable });
        expectCode(res, 200);
        expect(res.body.columnDefinitions.map((c: Obj) => [c.name, c.type])).to.deep.equal([['Name', 'string'], ['Created At', 'date']]);
      }
      const row = (await t.get(path('Role'), { headers: asTable })).body.rows.find((r: Obj) => r.cells[0] === n);
      expect(row.cells).to.deep.equal([n, made.metadata.creationTimestamp]);
    });
  });

  describe('protobuf', () => {
    const pb = (res: HttpResponse): Obj => {
      expect(res.headers['content-type']).to.equal(K8S_PB);
      expect(res.raw!.subarray(0, 4)).to.deep.equal(PROTOBUF_PREFIX);
      return decodeProtobuf(res.raw!) as Obj;
    };

    it('a protobuf RoleBinding is created (201, protobuf answer) with its defaults', async () => {
      const n = name('pb');
      const res = await t.request('POST', path('RoleBinding'), { raw: encodeProtobuf(valid('RoleBinding', n)), headers: { 'content-type': K8S_PB, accept: K8S_PB } });
      expectCode(res, 201);
      const made = pb(res);
      expect(made.roleRef).to.deep.equal(ref('Role', 'reader'));
      expect(made.subjects).to.deep.equal([{ kind: 'User', apiGroup: group, name: 'jane' }, { kind: 'ServiceAccount', name: 'builder' }]);
      expect((await t.get(path('RoleBinding', n))).body).to.deep.equal(made);
    });

    for (const kind of KINDS) {
      it(`${kind} and its list read in protobuf equal their JSON`, async () => {
        const n = name('pb-read');
        const obj = valid(kind, n);
        if (kind === 'ClusterRole') obj.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { 'agg.example.com/view': 'true' } }, { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }] };
        await created(kind, obj);
        // The aggregation controller may rewrite an aggregated role meanwhile: compare one version.
        const [json, proto] = await eventually(async () => {
          const pair = [(await t.get(path(kind, n))).body, pb(await t.get(path(kind, n), { headers: { accept: K8S_PB } }))];
          return pair[0].metadata.resourceVersion === pair[1].metadata.resourceVersion && pair;
        });
        // Protobuf has no empty list apart from an absent one (the aggregation controller may write rules: []).
        if (Array.isArray(json.rules) && !json.rules.length) delete json.rules;
        expect(proto).to.deep.equal(json);
        const list = pb(await t.get(`${path(kind)}?resourceVersion=${json.metadata.resourceVersion}&resourceVersionMatch=Exact`, { headers: { accept: K8S_PB } }));
        expect(list.kind).to.equal(`${kind}List`);
        const { apiVersion: _a, kind: _k, ...bare } = json;
        expect(list.items.find((o: Obj) => o.metadata.name === n)).to.deep.equal(bare);
      });
    }
  });

  describe('authorization reads these objects', () => {
    it('a Role and RoleBinding made here let a user read configmaps in that namespace, and nothing more', async () => {
      const user = t.identity('rbac-kinds-user', ['rbac-kinds-group']);
      const cms = `/api/v1/namespaces/${NS}/configmaps`;
      const denied = await t.get(cms, { identity: user });
      expectCode(denied, 403);
      expect(denied.body.message).to.equal(`configmaps is forbidden: User "rbac-kinds-user" cannot list resource "configmaps" in API group "" in the namespace "${NS}"`);
      await created('Role', { apiVersion, kind: 'Role', metadata: { name: 'cm-reader' }, rules: [rule()] });
      await created('RoleBinding', { apiVersion, kind: 'RoleBinding', metadata: { name: 'cm-reader' }, roleRef: { kind: 'Role', name: 'cm-reader' }, subjects: [{ kind: 'Group', name: 'rbac-kinds-group' }] });
      await eventually(async () => (await t.get(cms, { identity: user })).status === 200);
      expectCode(await t.post(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nope' } }, { identity: user }), 403);
      expectCode(await t.get('/api/v1/namespaces/default/configmaps', { identity: user }), 403);
      expectCode(await t.get(path('ClusterRole'), { identity: user }), 403);
    });
  });
});

describe('RBAC kinds with --flavor=kubernetes', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => { t = await startTestServer(['--flavor=kubernetes', WITHOUT_NAMESPACE_DEFAULTS]); });
  after(async () => { await t?.stop(); });

  it('serves rbac.authorization.k8s.io/v1, defaults to it and refuses the orch group in roleRef', async () => {
    const base = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings';
    const res = await t.post(base, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'k8s-view' }, roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'u' }] });
    expectCode(res, 201);
    expect(res.body.roleRef.apiGroup).to.equal('rbac.authorization.k8s.io');
    expect(res.body.subjects[0].apiGroup).to.equal('rbac.authorization.k8s.io');
    expectCause(await t.post(base, { metadata: { name: 'orch' }, roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'view' } }),
      'roleRef.apiGroup', 'FieldValueNotSupported', 'Unsupported value: "rbac.authorization.orch.io": supported values: "rbac.authorization.k8s.io"');
    expectCode(await t.get('/apis/rbac.authorization.orch.io/v1/clusterrolebindings'), 404);
  });
});
