/**
 * pods/binding and bindings over HTTPS against a real etcd, as kube-apiserver 1.32's BindingREST
 * answers them: a bind sets spec.nodeName, the PodScheduled condition and the binding's
 * annotations and answers 201 with a Status Success; a pod is bound once (409 afterwards, and of
 * concurrent binds exactly one wins); a terminating or gated pod is refused; a missing pod is
 * 404; the name must match the URL's; target.kind is Node or empty; dryRun binds nothing;
 * authorization is `create` on `pods/binding` or `bindings` (kube-scheduler's role has it); a
 * pod's own update may still not change spec.nodeName.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { expectInvalidCauses, mergePatch } from '../helpers/kind-checks';

type Body = Record<string, any>;
const NS = 'binding';
const PODS = `/api/v1/namespaces/${NS}/pods`;
const pod = (name: string, extra: Body = {}): Body => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, ...(extra.metadata ?? {}) },
  spec: { containers: [{ name: 'main', image: 'registry.example.com/app:1' }], ...(extra.spec ?? {}) },
});
const binding = (name: string, node: string, extra: Body = {}): Body =>
  ({ apiVersion: 'v1', kind: 'Binding', metadata: { name, ...(extra.metadata ?? {}) }, target: { kind: 'Node', name: node, ...(extra.target ?? {}) } });

describe('pods/binding and bindings', () => {
  let t: TestServer;
  const bind = (name: string, body: Body, query = '', opts = {}) => t.post(`${PODS}/${name}/binding${query}`, body, opts);
  const create = async (name: string, extra: Body = {}) => {
    const res = await t.post(PODS, pod(name, extra));
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };

  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    expect((await t.post(`/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } })).status).to.be.oneOf([201, 409]);
  });
  after(async () => { await t?.stop(); });

  it('binds a pod: spec.nodeName, PodScheduled True and the annotations; answers 201 Status Success', async () => {
    await create('p1');
    const res = await bind('p1', binding('p1', 'node-a', { metadata: { annotations: { 'scheduler.example.com/score': '7' } } }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ kind: 'Status', apiVersion: 'v1', status: 'Success', code: 201 });
    const got = (await t.get(`${PODS}/p1`)).body;
    expect(got.spec.nodeName).to.equal('node-a');
    expect(got.metadata.annotations).to.deep.equal({ 'scheduler.example.com/score': '7' });
    const scheduled = got.status.conditions.filter((c: Body) => c.type === 'PodScheduled');
    expect(scheduled).to.have.length(1);
    expect(scheduled[0]).to.include({ status: 'True' });
    expect(scheduled[0].lastTransitionTime).to.be.a('string');
    const byNode = await t.get(`${PODS}?fieldSelector=spec.nodeName%3Dnode-a`);
    expect(byNode.body.items.map((p: Body) => p.metadata.name)).to.deep.equal(['p1']);
  });

  it('refuses a second bind with 409 Conflict and leaves the pod on its node', async () => {
    const res = await bind('p1', binding('p1', 'node-b'));
    expect(res.status, res.text).to.equal(409);
    expect(res.body).to.include({ kind: 'Status', reason: 'Conflict', code: 409 });
    expect(res.body.message).to.equal('Operation cannot be fulfilled on pods/binding "p1": pod p1 is already assigned to node "node-a"');
    expect((await t.get(`${PODS}/p1`)).body.spec.nodeName).to.equal('node-a');
  });

  it('lets exactly one of many concurrent binds of one pod win; the others are 409', async () => {
    await create('race');
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => bind('race', binding('race', `node-${i}`))));
    const codes = answers.map((r) => r.status).sort();
    expect(codes).to.deep.equal([201, 409, 409, 409, 409, 409, 409, 409]);
    const winner = answers.findIndex((r) => r.status === 201);
    expect((await t.get(`${PODS}/race`)).body.spec.nodeName).to.equal(`node-${winner}`);
  });

  it('binds through the bindings collection, taking the pod name from the body', async () => {
    await create('p2');
    const res = await t.post(`/api/v1/namespaces/${NS}/bindings`, binding('p2', 'node-c'));
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ kind: 'Status', status: 'Success' });
    expect((await t.get(`${PODS}/p2`)).body.spec.nodeName).to.equal('node-c');
  });

  it('answers 404 for a missing pod and 400 when the names differ', async () => {
    const missing = await bind('nope', binding('nope', 'node-a'));
    expect(missing.status, missing.text).to.equal(404);
    expect(missing.body).to.include({ reason: 'NotFound' });
    await create('p3');
    const mismatch = await bind('p3', binding('other', 'node-a'));
    expect(mismatch.status).to.equal(400);
    expect(mismatch.body.message).to.equal('name in URL does not match name in Binding object');
    expect((await t.get(`${PODS}/p3`)).body.spec.nodeName).to.equal(undefined);
  });

  it('refuses a target that is not a Node, or has no name, with the causes of ValidatePodBinding', async () => {
    const kind = await bind('p3', binding('p3', 'n', { target: { kind: 'Pod' } }));
    expectInvalidCauses(kind, 'Binding', [{ field: 'target.kind', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Pod": supported values: "Node", "<empty>"' }]);
    const noName = await bind('p3', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p3' }, target: {} });
    expectInvalidCauses(noName, 'Binding', [{ field: 'target.name', reason: 'FieldValueRequired', message: 'Required value' }]);
    const empty = await bind('p3', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p3' }, target: { name: 'node-e' } });
    expect(empty.status, 'an empty target kind is a Node').to.equal(201);
  });

  it('binds nothing on a dry run', async () => {
    await create('p4');
    const res = await bind('p4', binding('p4', 'node-a'), '?dryRun=All');
    expect(res.status, res.text).to.equal(201);
    expect((await t.get(`${PODS}/p4`)).body.spec.nodeName).to.equal(undefined);
  });

  it('refuses a pod with scheduling gates and a terminating pod', async () => {
    await create('gated', { spec: { schedulingGates: [{ name: 'example.com/wait' }] } });
    const gated = await bind('gated', binding('gated', 'node-a'));
    expect(gated.status).to.equal(409);
    expect(gated.body.message).to.equal('Operation cannot be fulfilled on pods/binding "gated": pod gated has non-empty .spec.schedulingGates');
    await create('leaving', { metadata: { finalizers: ['example.com/hold'] } });
    expect((await t.del(`${PODS}/leaving?gracePeriodSeconds=0`)).status).to.equal(200);
    const leaving = await bind('leaving', binding('leaving', 'node-a'));
    expect(leaving.status).to.equal(409);
    expect(leaving.body.message).to.equal('Operation cannot be fulfilled on pods/binding "leaving": pod leaving is being deleted, cannot be assigned to a host');
    await mergePatch(t, `${PODS}/leaving`, { metadata: { finalizers: null } });
  });

  it('refuses a binding whose uid precondition does not match the pod', async () => {
    await create('p5');
    const res = await bind('p5', binding('p5', 'node-a', { metadata: { uid: '00000000-0000-0000-0000-000000000000' } }));
    expect(res.status).to.equal(409);
    expect((await t.get(`${PODS}/p5`)).body.spec.nodeName).to.equal(undefined);
  });

  it('still refuses spec.nodeName changes through the pod itself', async () => {
    const res = await mergePatch(t, `${PODS}/p5`, { spec: { nodeName: 'node-z' } });
    expect(res.status).to.equal(422);
  });

  it('authorizes create on pods/binding: refused to a user without rights, allowed to kube-scheduler', async () => {
    await create('p6');
    const nobody = t.identity('binding-nobody');
    const refused = await bind('p6', binding('p6', 'node-a'), '', { identity: nobody });
    expect(refused.status).to.equal(403);
    expect(refused.body.message).to.contain('cannot create resource "pods/binding"');
    const refusedCollection = await t.post(`/api/v1/namespaces/${NS}/bindings`, binding('p6', 'node-a'), { identity: nobody });
    expect(refusedCollection.status).to.equal(403);
    const scheduler = t.identity('system:kube-scheduler');
    const res = await bind('p6', binding('p6', 'node-s'), '', { identity: scheduler });
    expect(res.status, res.text).to.equal(201);
    expect((await t.get(`${PODS}/p6`)).body.spec.nodeName).to.equal('node-s');
  });

  it('is listed in discovery: bindings (create) and pods/binding (create, kind Binding)', async () => {
    const list = (await t.get('/api/v1')).body.resources as Body[];
    expect(list.find((r) => r.name === 'bindings')).to.include({ kind: 'Binding', namespaced: true }).and.to.have.deep.property('verbs', ['create']);
    expect(list.find((r) => r.name === 'pods/binding')).to.include({ kind: 'Binding' }).and.to.have.deep.property('verbs', ['create']);
  });
});
