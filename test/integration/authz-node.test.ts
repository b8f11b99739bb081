/**
 * The Node mode over HTTPS, with `--authorization-mode=Node,RBAC` and node client certificates
 * (`system:node:<name>` in `system:nodes`): a node reads exactly what the pods bound to it
 * reference (every path: volumes, projected sources, inline CSI, env, envFrom, image pull
 * secrets, claims and the volumes bound to them and their secrets), its volume attachments and
 * tokens of its pods' service accounts; anything else is 403 with Kubernetes' reason; the graph
 * follows pods, volumes and attachments as they change; other users are left to RBAC.
 * (The Pod kind served here keeps no envFrom, init or ephemeral containers: those paths are
 * covered by test/unit/authz/node-references.test.ts.)
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, startTestServer } from '../helpers/server-harness';

const NS = '/api/v1/namespaces/default';
const STORAGE = '/apis/storage.orch.io/v1';
const RBAC = '/apis/rbac.authorization.orch.io/v1';
const UNRELATED = "no relationship found between node 'n1' and this object";

type Identity = { certPem: string; keyPem: string };

const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: { k: 'v' } });
const claimSpec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };

/** Retries until `check` passes (the graph follows the watch caches, a moment behind the write). */
async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe('Node authorization mode', function () {
  this.timeout(120_000);
  let t: TestServer;
  let n1: Identity;
  let n2: Identity;

  const must = async (r: Promise<HttpResponse>) => {
    const res = await r;
    if (res.status >= 300) throw new Error(`setup: ${res.status} ${res.text}`);
    return res;
  };
  const status = async (path: string, who: Identity, expected: number) => {
    const res = await t.get(path, { identity: who });
    expect(res.status, `${path}: ${res.text}`).to.equal(expected);
    return res;
  };

  before(async () => {
    t = await startTestServer(['--authorization-mode=Node,RBAC']);
    n1 = t.identity('system:node:n1', ['system:nodes']);
    n2 = t.identity('system:node:n2', ['system:nodes']);
    for (const s of ['vol-secret', 'env-secret', 'pull-secret', 'proj-secret', 'csi-secret', 'pv-secret', 'unrelated', 'n2-secret']) {
      await must(t.post(`${NS}/secrets`, secret(s)));
    }
    for (const c of ['cfg', 'env-cfg']) await must(t.post(`${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: c }, data: { a: 'b' } }));
    await must(t.post(`${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'runner' } }));
    await must(t.post(`${NS}/persistentvolumeclaims`, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: claimSpec }));
    await must(t.post('/api/v1/persistentvolumes', {
      apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'vol' },
      spec: {
        capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'],
        claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data' },
        csi: { driver: 'csi.example.com', volumeHandle: 'h1', nodePublishSecretRef: { name: 'pv-secret', namespace: 'default' } },
      },
    }));
    await must(t.post('/api/v1/persistentvolumes', {
      apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'other-vol' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/x' } },
    }));
    for (const [name, node] of [['va-n1', 'n1'], ['va-n2', 'n2']]) {
      await must(t.post(`${STORAGE}/volumeattachments`, {
        apiVersion: 'storage.orch.io/v1', kind: 'VolumeAttachment', metadata: { name },
        spec: { attacher: 'csi.example.com', nodeName: node, source: { persistentVolumeName: 'vol' } },
      }));
    }
    await must(t.post(`${NS}/pods`, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' },
      spec: {
        nodeName: 'n1', serviceAccountName: 'runner',
        imagePullSecrets: [{ name: 'pull-secret' }],
        containers: [{
          name: 'app', image: 'nginx',
          env: [
            { name: 'A', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } },
            { name: 'B', valueFrom: { configMapKeyRef: { name: 'env-cfg', key: 'a' } } },
          ],
        }],
        volumes: [
          { name: 'sec', secret: { secretName: 'vol-secret' } },
          { name: 'proj', projected: { sources: [{ secret: { name: 'proj-secret' } }] } },
          { name: 'cfg', configMap: { name: 'cfg' } },
          { name: 'inline', csi: { driver: 'csi.example.com', nodePublishSecretRef: { name: 'csi-secret' } } },
          { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
        ],
      },
    }));
    await must(t.post(`${NS}/pods`, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'elsewhere' },
      spec: { nodeName: 'n2', containers: [{ name: 'app', image: 'nginx' }], volumes: [{ name: 's', secret: { secretName: 'n2-secret' } }] },
    }));
    // A pod not bound to any node yet names nothing for anyone.
    await must(t.post(`${NS}/pods`, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pending' },
      spec: { containers: [{ name: 'app', image: 'nginx' }], volumes: [{ name: 's', secret: { secretName: 'unrelated' } }] },
    }));
  });

  after(async () => { await t?.stop(); });

  it('lets a node get every secret a pod bound to it references, by each path the Pod kind keeps', async () => {
    await eventually(async () => {
      for (const s of ['vol-secret', 'env-secret', 'pull-secret', 'proj-secret', 'csi-secret']) {
        const res = await status(`${NS}/secrets/${s}`, n1, 200);
        expect(res.body.metadata.name).to.equal(s);
      }
    });
  });

  it('lets it get the configmaps, the claim, the volume bound to it and that volume\'s secret', async () => {
    await eventually(async () => {
      await status(`${NS}/configmaps/cfg`, n1, 200);
      await status(`${NS}/configmaps/env-cfg`, n1, 200);
      await status(`${NS}/persistentvolumeclaims/data`, n1, 200);
      await status('/api/v1/persistentvolumes/vol', n1, 200);
      await status(`${NS}/secrets/pv-secret`, n1, 200);
    });
  });

  it('refuses an unrelated secret, one only a pod on another node or an unbound pod names, with Kubernetes\' message', async () => {
    await eventually(() => status(`${NS}/secrets/vol-secret`, n1, 200).then(() => undefined));
    for (const s of ['unrelated', 'n2-secret']) {
      const res = await status(`${NS}/secrets/${s}`, n1, 403);
      expect(res.body).to.deep.include({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403 });
      expect(res.body.message).to.equal(`secrets "${s}" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" ` +
        `in the namespace "default": ${UNRELATED}`);
      expect(res.body.details).to.deep.equal({ name: s, kind: 'secrets' });
    }
    await status('/api/v1/persistentvolumes/other-vol', n1, 403);
  });

  it('refuses lists and writes of secrets even for related ones', async () => {
    const list = await status(`${NS}/secrets`, n1, 403);
    expect(list.body.message).to.equal('secrets is forbidden: User "system:node:n1" cannot list resource "secrets" in API group "" ' +
      'in the namespace "default": No Object name found');
    const all = await status('/api/v1/secrets', n1, 403);
    expect(all.body.message).to.match(/cannot list resource "secrets" in API group "" at the cluster scope: can only read namespaced object of this type$/);
    const del = await t.del(`${NS}/secrets/vol-secret`, undefined, { identity: n1 });
    expect(del.status).to.equal(403);
    expect(del.body.message).to.match(/cannot delete resource "secrets".*: can only read resources of this type$/);
    await must(t.get(`${NS}/secrets/vol-secret`));
  });

  it('keeps each node to its own: n2 reads its pod\'s secret, not n1\'s', async () => {
    await eventually(async () => {
      await status(`${NS}/secrets/n2-secret`, n2, 200);
      const res = await status(`${NS}/secrets/vol-secret`, n2, 403);
      expect(res.body.message).to.match(/: no relationship found between node 'n2' and this object$/);
      await status(`${NS}/persistentvolumeclaims/data`, n2, 403);
      await status('/api/v1/persistentvolumes/vol', n2, 403);
    });
  });

  it('volume attachments by spec.nodeName, and tokens only for its pods\' service accounts', async () => {
    await eventually(async () => {
      await status(`${STORAGE}/volumeattachments/va-n1`, n1, 200);
      await status(`${STORAGE}/volumeattachments/va-n2`, n1, 403);
      await status(`${STORAGE}/volumeattachments/va-n2`, n2, 200);
    });
    const tokenRequest = { apiVersion: 'authentication.orch.io/v1', kind: 'TokenRequest', spec: { audiences: [] } };
    const mine = await t.post(`${NS}/serviceaccounts/runner/token`, tokenRequest, { identity: n1 });
    expect(mine.status, mine.text).to.equal(201);
    const other = await t.post(`${NS}/serviceaccounts/runner/token`, tokenRequest, { identity: n2 });
    expect(other.status).to.equal(403);
    expect(other.body.message).to.match(/cannot create resource "serviceaccounts\/token".*: no relationship found between node 'n2' and this object$/);
    const read = await status(`${NS}/serviceaccounts/runner`, n1, 403);
    expect(read.body.message).to.match(/: can only create tokens for individual service accounts$/);
  });

  it('grants the static node rules for everything else (token reviews, CSI drivers), and nothing beyond them', async () => {
    const review = await t.post('/apis/authentication.orch.io/v1/tokenreviews',
      { apiVersion: 'authentication.orch.io/v1', kind: 'TokenReview', spec: { token: 'not-a-token' } }, { identity: n1 });
    expect(review.status, review.text).to.equal(201);
    await status(`${STORAGE}/csidrivers`, n1, 200);
    await status(`${NS}/pods/web`, n1, 200);
    await status(`${NS}/pods/elsewhere`, n1, 403);
    const cm = await t.post(`${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'by-node' } }, { identity: n1 });
    expect(cm.status).to.equal(403);
    expect(cm.body.message).to.match(/cannot create resource "configmaps".*: can only read resources of this type$/);
    const ns = await status('/api/v1/namespaces', n1, 403);
    expect(ns.body.message).to.equal('namespaces is forbidden: User "system:node:n1" cannot list resource "namespaces" in API group "" at the cluster scope');
  });

  it('follows a claim created by the ephemeral-volume controller for a new pod', async () => {
    await must(t.post(`${NS}/pods`, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'scratchy' },
      spec: {
        nodeName: 'n1', containers: [{ name: 'app', image: 'nginx' }],
        volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: claimSpec } } }],
      },
    }));
    await eventually(() => status(`${NS}/persistentvolumeclaims/scratchy-scratch`, n1, 200).then(() => undefined));
    await status(`${NS}/persistentvolumeclaims/scratchy-scratch`, n2, 403);
  });

  it('takes access away once the pod is deleted, and gives it with a volume rebound to a claim the node uses', async () => {
    await eventually(() => status(`${NS}/secrets/n2-secret`, n2, 200).then(() => undefined));
    // A force delete (no kubelet runs to finish a graceful one).
    await must(t.del(`${NS}/pods/elsewhere?gracePeriodSeconds=0`));
    await eventually(async () => {
      const res = await status(`${NS}/secrets/n2-secret`, n2, 403);
      expect(res.body.message).to.match(/: no relationship found between node 'n2' and this object$/);
    });
    // other-vol now claims `data` (used by n1's pod): n1 may read it.
    const pv = (await must(t.get('/api/v1/persistentvolumes/other-vol'))).body;
    pv.spec.claimRef = { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data' };
    await must(t.put('/api/v1/persistentvolumes/other-vol', pv));
    await eventually(() => status('/api/v1/persistentvolumes/other-vol', n1, 200).then(() => undefined));
  });

  it('leaves users who are not nodes to RBAC: no node reason, and a binding decides', async () => {
    const bob = t.identity('bob');
    const pretender = t.identity('system:node:n1'); // the name without the nodes group is no node
    for (const who of [bob, pretender]) {
      const res = await status(`${NS}/secrets/vol-secret`, who, 403);
      expect(res.body.message).to.match(/cannot get resource "secrets" in API group "" in the namespace "default"$/);
    }
    const G = 'rbac.authorization.orch.io';
    await must(t.post(`${RBAC}/namespaces/default/roles`, {
      apiVersion: `${G}/v1`, kind: 'Role', metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
    }));
    await must(t.post(`${RBAC}/namespaces/default/rolebindings`, {
      apiVersion: `${G}/v1`, kind: 'RoleBinding', metadata: { name: 'bob-reads' },
      roleRef: { apiGroup: G, kind: 'Role', name: 'secret-reader' }, subjects: [{ apiGroup: G, kind: 'User', name: 'bob' }],
    }));
    await eventually(() => status(`${NS}/secrets/unrelated`, bob, 200).then(() => undefined));
  });

  it('a user named system:node: without a name is refused with "unknown node"', async () => {
    const nameless = t.identity('system:node:', ['system:nodes']);
    const res = await status(`${STORAGE}/csidrivers`, nameless, 403);
    expect(res.body.message).to.match(/: unknown node for user "system:node:"$/);
  });
});
