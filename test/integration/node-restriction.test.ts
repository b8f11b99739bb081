/**
 * A node agent's writes with `--authorization-mode=Node,RBAC` and NodeRestriction on, over HTTPS
 * with `system:node:<name>` client certificates: what a kubelet does works (register its Node,
 * report its status, create and renew its Lease in the node lease namespace, read its pods,
 * report their status, create a mirror pod owned by its Node, create events); what
 * NodeRestriction forbids is 403 in Kubernetes' words (another node's Node, Lease or pods,
 * taints, restricted labels, ordinary pods, mirror pods referencing secrets, tokens not bound to
 * its pods). Other users are not restricted.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, startTestServer } from '../helpers/server-harness';
import { mergePatch } from '../helpers/kind-checks';

type Body = Record<string, any>;
type Identity = { certPem: string; keyPem: string };
const NODES = '/api/v1/nodes';
const PODS = '/api/v1/namespaces/default/pods';
const LEASES = '/apis/coordination.orch.io/v1/namespaces/orch-node-lease/leases';
const MIRROR = 'orch.io/config.mirror';

function expectForbidden(res: HttpResponse, message: string): void {
  expect(res.status, res.text).to.equal(403);
  expect(res.body).to.include({ kind: 'Status', reason: 'Forbidden', code: 403 });
  expect(res.body.message).to.equal(message);
}

describe('NodeRestriction with the Node authorizer', function () {
  this.timeout(120_000);
  let t: TestServer;
  let n1: Identity;
  let n1Uid = '';
  const as = (who: Identity) => ({ identity: who });
  const patchAs = (who: Identity, url: string, patch: unknown) =>
    t.request('PATCH', url, { raw: JSON.stringify(patch), headers: { 'Content-Type': 'application/merge-patch+json' }, identity: who });
  const container = [{ name: 'main', image: 'registry.example.com/app:1' }];
  const mirrorPod = (name: string, extra: Body = {}): Body => ({
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, annotations: { [MIRROR]: 'hash' }, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: n1Uid, controller: true }], ...(extra.metadata ?? {}) },
    spec: { nodeName: 'n1', containers: container, ...(extra.spec ?? {}) },
  });

  before(async () => {
    t = await startTestServer(['--authorization-mode=Node,RBAC', '--enable-admission-plugins=NodeRestriction']);
    n1 = t.identity('system:node:n1', ['system:nodes']);
    await t.post('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
    for (const [name, node] of [['on-n1', 'n1'], ['on-n2', 'n2']]) {
      const res = await t.post(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName: node, containers: container } });
      expect(res.status, res.text).to.equal(201);
    }
    expect((await t.post(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  describe('Nodes', () => {
    it('lets a node register its own Node with kubelet labels, and refuses another node\'s', async () => {
      const res = await t.post(NODES, {
        apiVersion: 'v1', kind: 'Node',
        metadata: { name: 'n1', labels: { 'orch.io/hostname': 'n1', 'orch.io/os': 'linux', 'node.orch.io/pool': 'a', 'kubelet.orch.io/x': 'y', 'topology.orch.io/zone': 'z', 'example.com/free': 'yes' } },
        status: { capacity: { cpu: '2', pods: '110' }, daemonEndpoints: { kubeletEndpoint: { Port: 10250 } } },
      }, as(n1));
      expect(res.status, res.text).to.equal(201);
      n1Uid = res.body.metadata.uid;
      expectForbidden(await t.post(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n3' } }, as(n1)),
        'nodes "n3" is forbidden: node "n1" is not allowed to modify node "n3"');
    });

    it('refuses restricted and reserved labels on create', async () => {
      const other = t.identity('system:node:n4', ['system:nodes']);
      const res = await t.post(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n4', labels: { 'node-restriction.orch.io/x': 'y', 'orch.io/role': 'master', 'sub.orch.io/z': '1' } } }, as(other));
      expectForbidden(res, 'nodes "n4" is forbidden: node "n4" is not allowed to set the following labels: node-restriction.orch.io/x, orch.io/role, sub.orch.io/z');
      expect((await t.get(`${NODES}/n4`)).status).to.equal(404);
    });

    it('lets a node report its status and change its allowed labels, but not its taints or other nodes', async () => {
      const ready = { type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' };
      const status = await t.request('PATCH', `${NODES}/n1/status`, {
        raw: JSON.stringify({ status: { conditions: [ready] } }), headers: { 'Content-Type': 'application/strategic-merge-patch+json' }, identity: n1,
      });
      expect(status.status, status.text).to.equal(200);
      expect(status.body.status.conditions).to.deep.equal([ready]);
      expect((await patchAs(n1, `${NODES}/n1`, { metadata: { labels: { 'node.orch.io/pool': 'b' } } })).status).to.equal(200);
      expectForbidden(await patchAs(n1, `${NODES}/n1`, { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } }),
        'nodes "n1" is forbidden: node "n1" is not allowed to modify taints');
      expectForbidden(await patchAs(n1, `${NODES}/n1`, { metadata: { labels: { 'node-restriction.orch.io/pci': 'yes' } } }),
        'nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.orch.io/pci');
      expectForbidden(await patchAs(n1, `${NODES}/n2/status`, { status: { phase: 'Running' } }),
        'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
    });

    it('leaves other users unrestricted: the admin changes taints and restricted labels', async () => {
      const res = await mergePatch(t, `${NODES}/n1`, { metadata: { labels: { 'node-restriction.orch.io/pci': 'yes' } }, spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } });
      expect(res.status, res.text).to.equal(200);
    });

    it('does not let a node delete Nodes', async () => {
      const res = await t.del(`${NODES}/n1`, undefined, as(n1));
      expect(res.status).to.equal(403);
      expect((await t.get(`${NODES}/n1`)).status).to.equal(200);
    });
  });

  describe('Leases', () => {
    const lease = (name: string) => ({ apiVersion: 'coordination.orch.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: name, leaseDurationSeconds: 40 } });
    it('lets a node create and renew its own Lease in orch-node-lease only', async () => {
      const created = await t.post(LEASES, lease('n1'), as(n1));
      expect(created.status, created.text).to.equal(201);
      const renewed = await patchAs(n1, `${LEASES}/n1`, { spec: { renewTime: '2026-01-01T00:00:00.000000Z' } });
      expect(renewed.status, renewed.text).to.equal(200);
      expectForbidden(await t.post(LEASES, lease('n2'), as(n1)),
        'leases.coordination.orch.io "n2" is forbidden: can only access node lease with the same name as the requesting node');
    });
  });

  describe('Pods', () => {
    it('lets a node read its pods and report their status, but not another node\'s', async () => {
      const mine = await t.get('/api/v1/pods?fieldSelector=spec.nodeName%3Dn1', as(n1));
      expect(mine.status, mine.text).to.equal(200);
      expect(mine.body.items.map((p: Body) => p.metadata.name)).to.deep.equal(['on-n1']);
      const all = await t.get('/api/v1/pods', as(n1));
      expect(all.status).to.equal(403);
      expect(all.body.message).to.contain('can only list/watch pods with spec.nodeName field selector');
      expect((await t.get('/api/v1/pods?fieldSelector=spec.nodeName%3Dn2', as(n1))).status, 'another node\'s pods').to.equal(403);
      const ok = await patchAs(n1, `${PODS}/on-n1/status`, { status: { phase: 'Running' } });
      expect(ok.status, ok.text).to.equal(200);
      expectForbidden(await patchAs(n1, `${PODS}/on-n2/status`, { status: { phase: 'Running' } }),
        'pods "on-n2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself');
    });

    it('lets a node create a mirror pod owned by its Node, and nothing else', async () => {
      const created = await t.post(PODS, mirrorPod('mirror-1'), as(n1));
      expect(created.status, created.text).to.equal(201);
      expectForbidden(await t.post(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'plain' }, spec: { nodeName: 'n1', containers: container } }, as(n1)),
        `pods "plain" is forbidden: pod does not have "${MIRROR}" annotation, node "n1" can only create mirror pods`);
      expectForbidden(await t.post(PODS, mirrorPod('elsewhere', { spec: { nodeName: 'n2' } }), as(n1)),
        'pods "elsewhere" is forbidden: node "n1" can only create pods with spec.nodeName set to itself');
      expectForbidden(await t.post(PODS, mirrorPod('orphan', { metadata: { ownerReferences: [] } }), as(n1)),
        'pods "orphan" is forbidden: node "n1" can only create pods with an owner reference set to itself');
      expectForbidden(await t.post(PODS, mirrorPod('not-controller', { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: n1Uid }] } }), as(n1)),
        'pods "not-controller" is forbidden: node "n1" can only create pods with a controller owner reference set to itself');
      // ServiceAccount admission, before NodeRestriction as in kube-apiserver, refuses a mirror pod's secrets first.
      expectForbidden(await t.post(PODS, mirrorPod('secretive', { spec: { volumes: [{ name: 's', secret: { secretName: 'x' } }] } }), as(n1)),
        'pods "secretive" is forbidden: a mirror pod may not reference secrets');
      expectForbidden(await t.post(PODS, mirrorPod('configured', { spec: { volumes: [{ name: 'c', configMap: { name: 'x' } }] } }), as(n1)),
        'pods "configured" is forbidden: node "n1" can not create pods that reference configmaps');
      expectForbidden(await t.post(PODS, mirrorPod('claiming', { spec: { volumes: [{ name: 'c', persistentVolumeClaim: { claimName: 'x' } }] } }), as(n1)),
        'pods "claiming" is forbidden: node "n1" can not create pods that reference persistentvolumeclaims');
    });

    it('lets a node delete its pods, not another node\'s', async () => {
      expectForbidden(await t.del(`${PODS}/on-n2`, undefined, as(n1)),
        'pods "on-n2" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself');
      const evict = await t.post(`${PODS}/on-n2/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'on-n2' } }, as(n1));
      expectForbidden(evict, 'pods "on-n2" is forbidden: node n1 can only evict pods with spec.nodeName set to itself');
      const del = await t.del(`${PODS}/mirror-1?gracePeriodSeconds=0`, undefined, as(n1));
      expect(del.status, del.text).to.equal(200);
    });

    it('refuses a service-account token not bound to a pod of the node', async () => {
      const res = await t.post('/api/v1/namespaces/default/serviceaccounts/default/token',
        { apiVersion: 'authentication.orch.io/v1', kind: 'TokenRequest', spec: { audiences: ['api'] } }, as(n1));
      expectForbidden(res, 'serviceaccounts "default" is forbidden: node requested token not bound to a pod');
    });

    it('lets a node create events', async () => {
      const res = await t.post('/api/v1/namespaces/default/events', {
        apiVersion: 'v1', kind: 'Event', metadata: { name: 'n1.started' }, involvedObject: { kind: 'Node', name: 'n1' }, reason: 'Starting', message: 'kubelet started', type: 'Normal',
      }, as(n1));
      expect(res.status, res.text).to.equal(201);
    });
  });
});
