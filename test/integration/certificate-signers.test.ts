/**
 * The built-in signers (csrsigning) and the node client auto-approver (csrapproving) over HTTPS
 * against a real etcd: requests made with openssl, approved through /approval, signed by the
 * controller with each signer's rules (Failed/SignerValidationFailure with Kubernetes' message
 * otherwise), lifetimes capped by --cluster-signing-duration, and a kube-apiserver-client
 * certificate used to call the server as the subject it names.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { X509Certificate, randomBytes } from 'node:crypto';
import { RequestOptions, TestServer, eventually, startTestServer } from '../helpers/server-harness';

const CSRS = '/apis/certificates.orch.io/v1/certificatesigningrequests';
const RBAC = '/apis/rbac.authorization.orch.io/v1';
const CLIENT = 'orch.io/kube-apiserver-client';
const KUBELET_CLIENT = 'orch.io/kube-apiserver-client-kubelet';
const SERVING = 'orch.io/kubelet-serving';
const CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];

let dir: string;
let n = 0;

/** An RSA key and a PEM request for `subject` (openssl syntax) with optional subjectAltName. */
function makeRequest(subject: string, san?: string): { keyPem: string; request: string } {
  const base = path.join(dir, `r${n++}`);
  const args = ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', subject];
  if (san) args.push('-addext', `subjectAltName=${san}`);
  execFileSync('openssl', args, { stdio: 'ignore' });
  return { keyPem: readFileSync(`${base}.key`, 'utf8'), request: readFileSync(`${base}.csr`).toString('base64') };
}

function csr(name: string, request: string, signerName: string, usages: string[], expirationSeconds?: number): Record<string, unknown> {
  return {
    apiVersion: 'certificates.orch.io/v1', kind: 'CertificateSigningRequest', metadata: { name },
    spec: { request, signerName, usages, ...(expirationSeconds ? { expirationSeconds } : {}) },
  };
}

const uniqueName = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex')}`;

describe('built-in CSR signers and the node client auto-approver', function () {
  this.timeout(120_000);
  let t: TestServer;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'csr-signers-'));
    t = await startTestServer(['--enable-bootstrap-token-auth', '--cluster-signing-duration=48h']);
  });
  after(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function create(obj: Record<string, unknown>, opts?: RequestOptions): Promise<void> {
    const res = await t.post(CSRS, obj, opts);
    expect(res.status, res.text).to.equal(201);
  }

  async function approve(name: string): Promise<void> {
    const cur = (await t.get(`${CSRS}/${name}`)).body;
    cur.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved by the test' }] };
    const res = await t.put(`${CSRS}/${name}/approval`, cur);
    expect(res.status, res.text).to.equal(200);
  }

  /** The request once the signer has acted on it (a certificate or a Failed condition). */
  const settled = (name: string) => eventually(async () => {
    const body = (await t.get(`${CSRS}/${name}`)).body;
    const done = body.status?.certificate || (body.status?.conditions ?? []).some((c: { type: string }) => c.type === 'Failed');
    return done && body;
  });

  const certOf = (obj: { status: { certificate: string } }) => new X509Certificate(Buffer.from(obj.status.certificate, 'base64'));

  async function expectFailed(name: string, message: string): Promise<void> {
    const obj = await settled(name);
    expect(obj.status.certificate).to.equal(undefined);
    const failed = obj.status.conditions.find((c: { type: string }) => c.type === 'Failed');
    expect(failed).to.include({ type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message });
  }

  it('kube-apiserver-client: signs an approved request, and the certificate authenticates as its subject', async () => {
    const { keyPem, request } = makeRequest('/O=dev/O=qa/CN=alice');
    const name = uniqueName('alice');
    await create(csr(name, request, CLIENT, CLIENT_USAGES, 3600));
    // Pending requests are never signed.
    await new Promise((r) => setTimeout(r, 500));
    expect((await t.get(`${CSRS}/${name}`)).body.status?.certificate).to.equal(undefined);
    await approve(name);
    const obj = await settled(name);
    const cert = certOf(obj);
    expect(cert.subject).to.equal('O=dev\nO=qa\nCN=alice');
    expect(cert.ca).to.equal(false);
    expect(cert.keyUsage).to.deep.equal(['1.3.6.1.5.5.7.3.2']);
    expect(cert.checkIssued(new X509Certificate(t.server.pki.caCertPem))).to.equal(true);
    // 1h requested (short-lived: notAfter not backdated), notBefore backdated 5 minutes.
    const lifetime = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 1000;
    expect(lifetime).to.be.within(3600 + 300 - 2, 3600 + 300 + 2);

    const res = await t.post('/apis/authentication.orch.io/v1/selfsubjectreviews',
      { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' },
      { identity: { certPem: cert.toString(), keyPem } });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.status.userInfo).to.deep.equal({ username: 'alice', groups: ['dev', 'qa', 'system:authenticated'] });
  });

  it('kube-apiserver-client: a usage other than digital signature, key encipherment and client auth fails the request', async () => {
    const name = uniqueName('bad-usage');
    await create(csr(name, makeRequest('/CN=bob').request, CLIENT, ['client auth', 'server auth']));
    await approve(name);
    await expectFailed(name, 'invalid usage for client certificate: server auth');
  });

  it('kube-apiserver-client: client auth is required', async () => {
    const name = uniqueName('no-client-auth');
    await create(csr(name, makeRequest('/CN=bob').request, CLIENT, ['digital signature']));
    await approve(name);
    await expectFailed(name, 'missing required usage for client certificate: client auth');
  });

  it('kube-apiserver-client-kubelet: signs a node client request without subjectAltNames (auto-approved for the admin)', async () => {
    const name = uniqueName('node-client');
    // The admin (system:masters) may create certificatesigningrequests/nodeclient: csrapproving approves it.
    await create(csr(name, makeRequest('/O=system:nodes/CN=system:node:n1').request, KUBELET_CLIENT, CLIENT_USAGES));
    const obj = await settled(name);
    expect(obj.status.conditions.find((c: { type: string }) => c.type === 'Approved')).to.include({ reason: 'AutoApproved' });
    const cert = certOf(obj);
    expect(cert.subject).to.equal('O=system:nodes\nCN=system:node:n1');
    expect(cert.subjectAltName).to.equal(undefined);
  });

  for (const [what, subject, san, usages, message] of [
    ['another organization', '/O=system:masters/CN=system:node:n1', undefined, CLIENT_USAGES, 'subject organization is not system:nodes'],
    ['a common name outside system:node:', '/O=system:nodes/CN=n1', undefined, CLIENT_USAGES, 'subject common name does not begin with system:node:'],
    ['a DNS subjectAltName', '/O=system:nodes/CN=system:node:n1', 'DNS:n1.example', CLIENT_USAGES, 'DNS subjectAltNames are not allowed'],
    ['an IP subjectAltName', '/O=system:nodes/CN=system:node:n1', 'IP:10.0.0.1', CLIENT_USAGES, 'IP subjectAltNames are not allowed'],
    ['other usages', '/O=system:nodes/CN=system:node:n1', undefined, ['client auth'], 'usages did not match [client auth digital signature key encipherment]'],
  ] as const) {
    it(`kube-apiserver-client-kubelet: ${what} fails the request`, async () => {
      const name = uniqueName('node-client-bad');
      await create(csr(name, makeRequest(subject, san).request, KUBELET_CLIENT, [...usages]));
      await approve(name);
      await expectFailed(name, message);
    });
  }

  it('kubelet-serving: signs with the DNS and IP subjectAltNames and server auth', async () => {
    const name = uniqueName('serving');
    await create(csr(name, makeRequest('/O=system:nodes/CN=system:node:n1', 'DNS:n1.example,IP:10.0.0.1').request, SERVING, SERVING_USAGES));
    await approve(name);
    const cert = certOf(await settled(name));
    expect(cert.subjectAltName).to.equal('DNS:n1.example, IP Address:10.0.0.1');
    expect(cert.keyUsage).to.deep.equal(['1.3.6.1.5.5.7.3.1']);
    expect(cert.ca).to.equal(false);
  });

  for (const [what, subject, san, usages, message] of [
    ['no subjectAltName', '/O=system:nodes/CN=system:node:n1', undefined, SERVING_USAGES, 'DNS or IP subjectAltName is required'],
    ['an email subjectAltName', '/O=system:nodes/CN=system:node:n1', 'DNS:n1.example,email:a@example.com', SERVING_USAGES, 'Email subjectAltNames are not allowed'],
    ['a URI subjectAltName', '/O=system:nodes/CN=system:node:n1', 'DNS:n1.example,URI:spiffe://x/y', SERVING_USAGES, 'URI subjectAltNames are not allowed'],
    ['client auth', '/O=system:nodes/CN=system:node:n1', 'DNS:n1.example', CLIENT_USAGES, 'usages did not match [digital signature key encipherment server auth]'],
    ['another organization', '/O=dev/CN=system:node:n1', 'DNS:n1.example', SERVING_USAGES, 'subject organization is not system:nodes'],
    ['a common name outside system:node:', '/O=system:nodes/CN=n1', 'DNS:n1.example', SERVING_USAGES, 'subject common name does not begin with system:node:'],
  ] as const) {
    it(`kubelet-serving: ${what} fails the request`, async () => {
      const name = uniqueName('serving-bad');
      await create(csr(name, makeRequest(subject, san).request, SERVING, [...usages]));
      await approve(name);
      await expectFailed(name, message);
    });
  }

  it('lifetime: capped by --cluster-signing-duration; without expirationSeconds the full duration', async () => {
    const long = uniqueName('long');
    const plain = uniqueName('plain');
    await create(csr(long, makeRequest('/CN=carol').request, CLIENT, CLIENT_USAGES, 30 * 86_400));
    await create(csr(plain, makeRequest('/CN=carol').request, CLIENT, CLIENT_USAGES));
    await approve(long);
    await approve(plain);
    for (const name of [long, plain]) {
      const cert = certOf(await settled(name));
      // 48h is not short-lived: both ends backdated 5 minutes.
      const lifetime = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 1000;
      expect(lifetime, name).to.be.within(48 * 3600 - 2, 48 * 3600 + 2);
    }
  });

  it('a denied request is never signed', async () => {
    const name = uniqueName('denied');
    await create(csr(name, makeRequest('/CN=dave').request, CLIENT, CLIENT_USAGES));
    const cur = (await t.get(`${CSRS}/${name}`)).body;
    cur.status = { conditions: [{ type: 'Denied', status: 'True', reason: 'Test', message: 'no' }] };
    expect((await t.put(`${CSRS}/${name}/approval`, cur)).status).to.equal(200);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await t.get(`${CSRS}/${name}`)).body.status.certificate).to.equal(undefined);
  });

  describe('csrapproving', () => {
    const bind = async (name: string, role: string, subject: Record<string, string>) => {
      const res = await t.post(`${RBAC}/clusterrolebindings`, {
        apiVersion: 'rbac.authorization.orch.io/v1', kind: 'ClusterRoleBinding', metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: role }, subjects: [subject],
      });
      expect(res.status, res.text).to.equal(201);
    };

    before(async () => {
      const group = (g: string) => ({ kind: 'Group', apiGroup: 'rbac.authorization.orch.io', name: g });
      // As kubeadm binds them: bootstrappers may create requests and have node client ones approved; nodes renew.
      await bind('test-bootstrappers-create', 'system:node-bootstrapper', group('system:bootstrappers'));
      await bind('test-bootstrappers-approve', 'system:certificates.orch.io:certificatesigningrequests:nodeclient', group('system:bootstrappers'));
      await bind('test-nodes-renew', 'system:certificates.orch.io:certificatesigningrequests:selfnodeclient', group('system:nodes'));
      await bind('test-nodes-create', 'system:node-bootstrapper', group('system:nodes'));
      await bind('test-bob-create', 'system:node-bootstrapper', { kind: 'User', apiGroup: 'rbac.authorization.orch.io', name: 'bob' });
    });

    const approvedBy = (name: string) => eventually(async () => {
      const body = (await t.get(`${CSRS}/${name}`)).body;
      const c = (body.status?.conditions ?? []).find((x: { type: string }) => x.type === 'Approved');
      return c && body.status?.certificate && { condition: c, body };
    });

    it('approves a node client request from a bootstrap token, which is then signed', async () => {
      const id = randomBytes(3).toString('hex');
      const secret = randomBytes(8).toString('hex');
      const res = await t.post('/api/v1/namespaces/orch-system/secrets', {
        apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${id}` }, type: 'bootstrap.orch.io/token',
        stringData: { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true' },
      });
      expect(res.status, res.text).to.equal(201);
      const bearer: RequestOptions = { identity: null, headers: { authorization: `Bearer ${id}.${secret}` } };
      const name = uniqueName('bootstrap');
      await eventually(async () => (await t.post(CSRS, csr(name, makeRequest('/O=system:nodes/CN=system:node:joiner').request, KUBELET_CLIENT, CLIENT_USAGES), bearer)).status === 201);
      const { condition, body } = await approvedBy(name);
      expect(condition).to.include({ status: 'True', reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' });
      expect(body.spec.username).to.equal(`system:bootstrap:${id}`);
      expect(certOf(body).subject).to.equal('O=system:nodes\nCN=system:node:joiner');
    });

    it('approves a node renewing its own client certificate', async () => {
      const name = uniqueName('renew');
      await create(csr(name, makeRequest('/O=system:nodes/CN=system:node:n2').request, KUBELET_CLIENT, CLIENT_USAGES),
        { identity: t.identity('system:node:n2', ['system:nodes']) });
      const { condition } = await approvedBy(name);
      expect(condition).to.include({ status: 'True', reason: 'AutoApproved', message: 'Auto approving self kubelet client certificate after SubjectAccessReview.' });
    });

    it('leaves pending the request of a user without the nodeclient rights, and requests of other signers', async () => {
      const bobs = uniqueName('bob');
      await create(csr(bobs, makeRequest('/O=system:nodes/CN=system:node:n3').request, KUBELET_CLIENT, CLIENT_USAGES), { identity: t.identity('bob') });
      // A node asking for another node's certificate is not a renewal.
      const other = uniqueName('other-node');
      await create(csr(other, makeRequest('/O=system:nodes/CN=system:node:n4').request, KUBELET_CLIENT, CLIENT_USAGES),
        { identity: t.identity('system:node:n2', ['system:nodes']) });
      const serving = uniqueName('node-serving');
      await create(csr(serving, makeRequest('/O=system:nodes/CN=system:node:n2', 'DNS:n2.example').request, SERVING, SERVING_USAGES),
        { identity: t.identity('system:node:n2', ['system:nodes']) });
      await new Promise((r) => setTimeout(r, 1500));
      for (const name of [bobs, other, serving]) {
        const body = (await t.get(`${CSRS}/${name}`)).body;
        expect(body.status?.conditions ?? [], name).to.deep.equal([]);
        expect(body.status?.certificate, name).to.equal(undefined);
      }
    });
  });
});

