/**
 * pods/ephemeralcontainers over HTTPS against a real etcd, as kube-apiserver 1.32's
 * podEphemeralContainersStrategy: GET answers the Pod; a write (PUT, strategic merge and JSON
 * patch) takes over only spec.ephemeralContainers, defaulted and validated as ephemeral
 * containers (no ports, resources, probes or lifecycle; a target container that exists); existing
 * ones may be neither changed nor removed; a mirror pod takes none; the Pod itself may not add
 * them; the store is untouched by a refusal.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { expectInvalidCauses, rejectedLeavingStore } from '../helpers/kind-checks';

type Body = Record<string, any>;
const NS = 'ephemeral';
const PODS = `/api/v1/namespaces/${NS}/pods`;
const EC = (name: string) => `${PODS}/${name}/ephemeralcontainers`;
const debug = (name: string, extra: Body = {}) => ({ name, image: 'busybox:1.36', ...extra });

describe('pods/ephemeralcontainers', () => {
  let t: TestServer;
  const smp = (name: string, patch: unknown) =>
    t.request('PATCH', EC(name), { raw: JSON.stringify(patch), headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });

  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    await t.post(`/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
    for (const name of ['app', 'app2', 'app3']) {
      const res = await t.post(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { a: 'b' } }, spec: { containers: [{ name: 'main', image: 'registry.example.com/app:1' }] } });
      expect(res.status, res.text).to.equal(201);
    }
  });
  after(async () => { await t?.stop(); });

  it('GET answers the Pod', async () => {
    const res = await t.get(EC('app'));
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ kind: 'Pod', apiVersion: 'v1' });
    expect(res.body.metadata.name).to.equal('app');
  });

  it('adds an ephemeral container by strategic merge patch, defaulted, and changes nothing else', async () => {
    const res = await smp('app', { metadata: { labels: { a: 'changed' } }, spec: { activeDeadlineSeconds: 5, ephemeralContainers: [debug('dbg', { targetContainerName: 'main' })] } });
    expect(res.status, res.text).to.equal(200);
    const [ec] = res.body.spec.ephemeralContainers;
    expect(ec).to.include({ name: 'dbg', image: 'busybox:1.36', targetContainerName: 'main', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' });
    expect(res.body.metadata.labels, 'metadata is not written through the subresource').to.deep.equal({ a: 'b' });
    expect(res.body.spec.activeDeadlineSeconds).to.equal(undefined);
    expect((await t.get(`${PODS}/app`)).body.spec.ephemeralContainers.map((c: Body) => c.name)).to.deep.equal(['dbg']);
  });

  it('adds a second one with PUT of the whole pod', async () => {
    const current = (await t.get(EC('app'))).body;
    current.spec.ephemeralContainers.push(debug('dbg2'));
    const res = await t.put(EC('app'), current);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.spec.ephemeralContainers.map((c: Body) => c.name)).to.deep.equal(['dbg', 'dbg2']);
  });

  it('refuses removing an existing ephemeral container', async () => {
    const current = (await t.get(EC('app'))).body;
    current.spec.ephemeralContainers = current.spec.ephemeralContainers.slice(1);
    const res = await rejectedLeavingStore(t, PODS, () => t.put(EC('app'), current));
    expectInvalidCauses(res, 'Pod', [{ field: 'spec.ephemeralContainers', reason: 'FieldValueForbidden', message: 'Forbidden: existing ephemeral containers "dbg" may not be removed\n' }]);
  });

  it('refuses changing an existing ephemeral container', async () => {
    const current = (await t.get(EC('app'))).body;
    current.spec.ephemeralContainers[0].image = 'busybox:2';
    const res = await rejectedLeavingStore(t, PODS, () => t.put(EC('app'), current));
    expect(res.status, res.text).to.equal(422);
    const [cause] = res.body.details.causes;
    expect(cause.field).to.equal('spec.ephemeralContainers');
    expect(cause.message).to.match(/^Forbidden: existing ephemeral containers "dbg" may not be changed\n/);
  });

  const refused: Array<[string, Body, Array<{ field: string; reason: string; message: string }>]> = [
    ['ports', debug('p', { ports: [{ containerPort: 80 }] }), [{ field: 'spec.ephemeralContainers[0].ports', reason: 'FieldValueForbidden', message: 'Forbidden: cannot be set for an Ephemeral Container' }]],
    ['resources', debug('r', { resources: { limits: { cpu: '1' } } }), [{ field: 'spec.ephemeralContainers[0].resources', reason: 'FieldValueForbidden', message: 'Forbidden: cannot be set for an Ephemeral Container' }]],
    ['a readiness probe', debug('rp', { readinessProbe: { exec: { command: ['true'] } } }), [{ field: 'spec.ephemeralContainers[0].readinessProbe', reason: 'FieldValueForbidden', message: 'Forbidden: cannot be set for an Ephemeral Container' }]],
    ['lifecycle', debug('l', { lifecycle: { preStop: { exec: { command: ['true'] } } } }), [{ field: 'spec.ephemeralContainers[0].lifecycle', reason: 'FieldValueForbidden', message: 'Forbidden: cannot be set for an Ephemeral Container' }]],
    ['a target container that does not exist', debug('t', { targetContainerName: 'nope' }), [{ field: 'spec.ephemeralContainers[0].targetContainerName', reason: 'FieldValueNotFound', message: 'Not found: "nope"' }]],
    ['the name of a container', debug('main'), [{ field: 'spec.ephemeralContainers[0].name', reason: 'FieldValueDuplicate', message: 'Duplicate value: "main"' }]],
  ];
  refused.forEach(([what, container, causes]) => {
    it(`refuses an ephemeral container with ${what}`, async () => {
      const res = await rejectedLeavingStore(t, PODS, () => smp('app2', { spec: { ephemeralContainers: [container] } }));
      expectInvalidCauses(res, 'Pod', causes);
    });
  });

  it('refuses ephemeral containers added through the Pod itself', async () => {
    const current = (await t.get(`${PODS}/app3`)).body;
    current.spec.ephemeralContainers = [debug('dbg')];
    const res = await rejectedLeavingStore(t, PODS, () => t.put(`${PODS}/app3`, current));
    expect(res.status, res.text).to.equal(422);
    expect(res.body.details.causes[0].field).to.equal('spec');
  });

  it('refuses ephemeral containers on a mirror pod', async () => {
    const mirror = await t.post(PODS, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'static', annotations: { 'orch.io/config.mirror': 'x' } },
      spec: { nodeName: 'n1', containers: [{ name: 'main', image: 'registry.example.com/app:1' }] },
    });
    expect(mirror.status, mirror.text).to.equal(201);
    const res = await rejectedLeavingStore(t, PODS, () => smp('static', { spec: { ephemeralContainers: [debug('dbg')] } }));
    expectInvalidCauses(res, 'Pod', [{ field: '', reason: 'FieldValueForbidden', message: 'Forbidden: static pods do not support ephemeral containers' }]);
  });

  it('is authorized as its own subresource: a user without rights is refused', async () => {
    const res = await smp('app3', { spec: { ephemeralContainers: [debug('x')] } });
    expect(res.status).to.equal(200);
    const nobody = t.identity('ec-nobody');
    const refused = await t.request('PATCH', EC('app3'), { raw: '{}', headers: { 'Content-Type': 'application/strategic-merge-patch+json' }, identity: nobody });
    expect(refused.status).to.equal(403);
    expect(refused.body.message).to.contain('pods/ephemeralcontainers');
  });
});
