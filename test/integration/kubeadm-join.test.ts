/**
 * kubeadm 1.20's join path against the server (kubernetes flavor, started as kubeadm starts
 * kube-apiserver: bootstrap tokens, Node,RBAC, NodeRestriction), with the server's own
 * bootstrapsigner, tokencleaner, csrapproving and csrsigning controllers. The test first does what
 * `kubeadm init` does for joining nodes (its RBAC objects, a token), then what `kubeadm join`
 * does: token discovery of cluster-info (anonymous read, JWS checked with the token, CA pinned by
 * its public-key hash, read again over the pinned CA), and the kubelet's TLS bootstrap with the
 * token (a node client CSR as system:bootstrap:<id>, auto-approved, signed, and the signed
 * certificate then used as system:node:<name>). The same path with Kubernetes' own kubelet and
 * controller-manager is in test/control-plane/bootstrap-join.test.ts.
 */
import { expect } from 'chai';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { newBootstrapToken, BootstrapToken } from '../helpers/bootstrap-token';
import { makeCsrPem } from '../helpers/csr-request';
import {
  NODE_TOKEN_GROUP, caCertHash, discoverWithToken, getClusterInfoAnonymously, kubeadmInitObjects, kubeadmTokenSecret, collectionPath,
} from '../helpers/kubeadm-join';

const SECRETS = '/api/v1/namespaces/kube-system/secrets';
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

/** RFC 3339 in whole seconds, `ms` from now (rounded up). */
const rfc3339In = (ms: number) => new Date(Math.ceil((Date.now() + ms) / 1000) * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

describe('kubeadm join: token discovery and the kubelet TLS bootstrap', function () {
  this.timeout(120_000);
  let t: TestServer;
  let hash: string;

  const asToken = (token: string) => ({ identity: null, headers: { authorization: `Bearer ${token}` } });
  async function createToken(tok: BootstrapToken, expiration?: string): Promise<void> {
    const res = await t.post(SECRETS, kubeadmTokenSecret(tok.id, tok.secret, expiration));
    expect(res.status, res.text).to.equal(201);
  }
  /** Discovery once cluster-info carries the token's signature (kubeadm retries until then). */
  const discover = async (token: string, hashes: string[]) => {
    const id = token.split('.')[0];
    await eventually(async () => !!(await t.get('/api/v1/namespaces/kube-public/configmaps/cluster-info')).body?.data?.[`jws-kubeconfig-${id}`]);
    return discoverWithToken(t.server.url, token, hashes);
  };
  const failure = (p: Promise<unknown>) => p.then(() => { throw new Error('discovery succeeded'); }, (err: Error) => err.message);

  before(async () => {
    t = await startTestServer(['--flavor=kubernetes', '--enable-bootstrap-token-auth', '--authorization-mode=Node,RBAC',
      '--enable-admission-plugins=NodeRestriction', '--controllers=*,bootstrapsigner,tokencleaner']);
    hash = caCertHash(t.server.pki.caCertPem);
  });
  after(async () => { await t?.stop(); });

  it('cluster-info is not readable anonymously until kubeadm init\'s objects grant it', async () => {
    await eventually(async () => (await t.get('/api/v1/namespaces/kube-public/configmaps/cluster-info')).status === 200);
    const res = await getClusterInfoAnonymously(t.server.url);
    expect(res.status).to.equal(403);
    expect(res.body.message).to.equal('configmaps "cluster-info" is forbidden: User "system:anonymous" cannot get resource "configmaps" in API group "" in the namespace "kube-public"');
    for (const o of kubeadmInitObjects()) {
      const created = await t.post(collectionPath(o), o);
      expect(created.status, created.text).to.equal(201);
    }
  });

  it('discovers the cluster with a token and the CA hash: the server URL and the CA it serves with', async () => {
    const tok = newBootstrapToken();
    await createToken(tok);
    const found = await discover(tok.token, [hash]);
    expect(found.server).to.equal(t.server.url);
    expect(found.caPem).to.equal(t.server.pki.caCertPem);
    // The server's certificate chains to the pinned CA (the second read trusted it alone).
    expect(caCertHash(found.caPem)).to.equal(hash);
  });

  it('a wrong token secret does not verify the signature, and a wrong CA hash is refused', async () => {
    const tok = newBootstrapToken();
    await createToken(tok);
    await discover(tok.token, [hash]);
    const wrongSecret = `${tok.id}.${'0'.repeat(16)}`;
    expect(await failure(discoverWithToken(t.server.url, wrongSecret, [hash])))
      .to.equal('failed to verify JWS signature of received cluster info object, can\'t trust this API Server');
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'der' });
    const otherHash = `sha256:${Buffer.from(other).toString('hex').slice(0, 64)}`;
    expect(await failure(discoverWithToken(t.server.url, tok.token, [otherHash]))).to.match(/^cluster CA found in cluster-info ConfigMap is invalid/);
  });

  it('a deleted token\'s signature disappears, and so does an expired token\'s (its Secret deleted by tokencleaner)', async () => {
    const deleted = newBootstrapToken();
    const expiring = newBootstrapToken();
    await createToken(deleted);
    await createToken(expiring, rfc3339In(8_000));
    await discover(deleted.token, [hash]);
    await discover(expiring.token, [hash]);
    expect((await t.del(`${SECRETS}/${deleted.name}`)).status).to.equal(200);
    for (const tok of [deleted, expiring]) {
      await eventually(async () => !(await getClusterInfoAnonymously(t.server.url)).body.data?.[`jws-kubeconfig-${tok.id}`], 30_000);
      expect(await failure(discoverWithToken(t.server.url, tok.token, [hash])))
        .to.equal(`token id "${tok.id}" is invalid for this cluster or it has expired`);
    }
    await eventually(async () => (await t.get(`${SECRETS}/${expiring.name}`)).status === 404, 20_000);
    expect((await t.get('/api/v1/nodes/x', asToken(expiring.token))).status, 'the expired token no longer authenticates').to.equal(401);
  });

  it('anonymous may get cluster-info only: not list it, nor read other ConfigMaps or namespaces', async () => {
    await t.post('/api/v1/namespaces/kube-public/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } });
    for (const path of ['/api/v1/namespaces/kube-public/configmaps', '/api/v1/namespaces/kube-public/configmaps/other',
      '/api/v1/namespaces/kube-public/configmaps?fieldSelector=metadata.name%3Dcluster-info',
      '/api/v1/namespaces/kube-system/configmaps/cluster-info', '/api/v1/namespaces/default/configmaps', '/api/v1/namespaces/kube-system/secrets']) {
      const res = await t.get(path, { identity: null });
      expect(res.status, path).to.equal(403);
      expect(res.body.message, path).to.contain('User "system:anonymous"');
    }
  });

  it('TLS bootstrap: the token creates a node client CSR, auto-approved and signed; the certificate is system:node:<name>', async () => {
    const tok = newBootstrapToken();
    await createToken(tok);
    const found = await discover(tok.token, [hash]);
    // The bootstrap identity, as the server sees the token.
    const review = await t.post('/apis/authentication.k8s.io/v1/selfsubjectreviews',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, asToken(tok.token));
    expect(review.status, review.text).to.equal(201);
    expect(review.body.status.userInfo.username).to.equal(`system:bootstrap:${tok.id}`);
    expect(review.body.status.userInfo.groups).to.have.members([NODE_TOKEN_GROUP, 'system:bootstrappers', 'system:authenticated']);
    // kubeadm:get-nodes: the joining node's name is checked first (404: no such Node yet); the
    // configuration kubeadm join reads with the token, and nothing else of kube-system.
    expect((await t.get('/api/v1/nodes/joiner-0', asToken(tok.token))).status).to.equal(404);
    for (const cm of ['kubeadm-config', 'kubelet-config-1.20']) {
      expect((await t.get(`/api/v1/namespaces/kube-system/configmaps/${cm}`, asToken(tok.token))).status, cm).to.equal(200);
    }
    expect((await t.get('/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication', asToken(tok.token))).status).to.equal(403);
    // The kubelet's request: key and CSR of its own, signer kube-apiserver-client-kubelet.
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const csr = {
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { generateName: 'node-csr-' },
      spec: {
        request: Buffer.from(makeCsrPem({ commonName: 'system:node:joiner-0', organizations: ['system:nodes'], keyType: 'ec', keyPair: { privateKey, publicKey } })).toString('base64'),
        signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'key encipherment', 'client auth'],
      },
    };
    const created = await t.post(CSRS, csr, asToken(tok.token));
    expect(created.status, created.text).to.equal(201);
    const name: string = created.body.metadata.name;
    expect(created.body.spec.username).to.equal(`system:bootstrap:${tok.id}`);
    const signed = await eventually(async () => {
      const body = (await t.get(`${CSRS}/${name}`, asToken(tok.token))).body;
      return body.status?.certificate && body;
    });
    expect(signed.status.conditions.find((c: { type: string }) => c.type === 'Approved'))
      .to.include({ status: 'True', reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' });
    const cert = new X509Certificate(Buffer.from(signed.status.certificate, 'base64'));
    expect(cert.subject).to.equal('O=system:nodes\nCN=system:node:joiner-0');
    expect(cert.checkIssued(new X509Certificate(found.caPem)), 'issued by the discovered CA').to.equal(true);
    expect(cert.publicKey.export({ type: 'spki', format: 'der' }).equals(publicKey.export({ type: 'spki', format: 'der' }))).to.equal(true);
    // The kubelet switches to it: the Node authorizer and NodeRestriction let it register its own Node only.
    const asNode = { identity: { certPem: cert.toString(), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() } };
    const me = await t.post('/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, asNode);
    expect(me.body.status.userInfo).to.deep.include({ username: 'system:node:joiner-0' });
    expect(me.body.status.userInfo.groups).to.have.members(['system:nodes', 'system:authenticated']);
    const own = await t.post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'joiner-0' } }, asNode);
    expect(own.status, own.text).to.equal(201);
    const other = await t.post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'joiner-1' } }, asNode);
    expect(other.status, other.text).to.equal(403);
    // The token, once the node has joined, is not a node.
    expect((await t.post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'joiner-2' } }, asToken(tok.token))).status).to.equal(403);
  });
});
