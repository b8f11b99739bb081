/**
 * The authenticating proxy end to end: a front proxy with a certificate of its own CA
 * (--requestheader-client-ca-file) names the user in X-Remote-* headers; the same headers from
 * anyone else count for nothing. And the ConfigMap extension-apiserver-authentication.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HttpResponse, TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { createTestCa, issueTestCert, TestCert } from '../helpers/test-ca';

const SSR = '/apis/authentication.orch.io/v1/selfsubjectreviews';
const CM = '/api/v1/namespaces/orch-system/configmaps/extension-apiserver-authentication';
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

/** Header lines: an array value is sent as several lines of that header. */
type Lines = Record<string, string | string[]>;
const fingerprints = (bundle: string) => (bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [])
  .map((b) => new X509Certificate(b).fingerprint256);

describe('authenticating proxy (request-header authentication)', function () {
  this.timeout(60_000);
  let t: TestServer;
  let dir: string;
  const proxyCa = createTestCa('front-proxy-ca');
  const proxy = issueTestCert(proxyCa, { commonName: 'front-proxy-client' });
  const strangerProxy = issueTestCert(proxyCa, { commonName: 'not-an-allowed-name' });
  const alice: Lines = {
    'X-Remote-User': 'alice', 'X-Remote-Group': ['devs', 'ops'],
    'X-Remote-Extra-Scopes': ['read', 'write'], 'X-Remote-Extra-Example.org%2FTeam': 'blue',
  };

  const as = (identity: TestCert | null | undefined, headers: Lines = {}) => ({ identity, headers: headers as Record<string, string> });
  const whoami = (identity: TestCert | null | undefined, headers?: Lines) =>
    t.post(SSR, { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' }, as(identity, headers));
  const userOf = (r: HttpResponse) => {
    expect(r.status, r.text).to.equal(201);
    return r.body.status.userInfo;
  };

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'proxy-ca-'));
    writeFileSync(path.join(dir, 'proxy-ca.crt'), proxyCa.certPem);
    t = await startTestServer([
      `--requestheader-client-ca-file=${path.join(dir, 'proxy-ca.crt')}`,
      '--requestheader-username-headers=X-Remote-User', '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-', '--requestheader-allowed-names=front-proxy-client',
    ]);
  });
  after(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the proxy certificate with X-Remote-* headers: the request runs as that user', async () => {
    expect(userOf(await whoami(proxy, alice))).to.deep.equal({
      username: 'alice', groups: ['devs', 'ops', 'system:authenticated'],
      extra: { scopes: ['read', 'write'], 'example.org/team': ['blue'] },
    });
    // An authenticated user that is not the admin: may read discovery, may not list namespaces nor impersonate.
    expect((await t.get('/api', as(proxy, { 'X-Remote-User': 'alice' }))).status).to.equal(200);
    expect((await t.get('/api/v1/namespaces', as(proxy, { 'X-Remote-User': 'alice' }))).status).to.equal(403);
    const imp = await t.get('/api/v1/namespaces', as(proxy, { 'X-Remote-User': 'alice', 'Impersonate-User': 'bob' }));
    expect(imp.status).to.equal(403);
    expect(imp.body.message).to.contain('User "alice" cannot impersonate');
  });

  it('the headers from the admin certificate (client CA, not the proxy CA) are ignored: the admin', async () => {
    expect(userOf(await whoami(undefined, alice))).to.deep.equal({ username: 'orch-admin', groups: ['system:masters', 'system:authenticated'] });
  });

  it('a proxy certificate whose CN is not in --requestheader-allowed-names is 401', async () => {
    for (const r of [await t.get('/api/v1/namespaces', as(strangerProxy, alice)), await whoami(strangerProxy, alice)]) {
      expect(r.status).to.equal(401);
      expect(r.body).to.deep.equal(UNAUTHORIZED);
    }
  });

  it('the proxy certificate without a user name header is 401 (it is no client certificate of the server)', async () => {
    const r = await t.get('/api/v1/namespaces', as(proxy, { 'X-Remote-Group': 'system:masters' }));
    expect(r.status).to.equal(401);
    expect(r.body).to.deep.equal(UNAUTHORIZED);
    expect((await t.get('/api/v1/namespaces', as(proxy, { 'X-Remote-User': '' }))).status).to.equal(401);
  });

  it('headers without a client certificate are anonymous, never the header user', async () => {
    const r = await t.get('/api/v1/namespaces', as(null, { ...alice, 'X-Remote-Group': 'system:masters' }));
    expect(r.status).to.equal(403);
    expect(r.body.message).to.contain('User "system:anonymous" cannot list resource "namespaces"');
  });

  it('the TLS handshake asks for certificates of both the client CA and the proxy CA', async () => {
    const out = await new Promise<string>((resolve, reject) => {
      const child = execFile('openssl', ['s_client', '-connect', `127.0.0.1:${t.server.port}`, '-servername', 'localhost'],
        { timeout: 15_000 }, (err, stdout) => (stdout ? resolve(stdout) : reject(err)));
      child.stdin?.end();
    });
    const names = out.slice(out.indexOf('Acceptable client certificate CA names')).split('\n').slice(1, 3).map((l) => l.trim());
    expect(names).to.have.members(['CN = orch-apiserver-ca', 'CN = front-proxy-ca']);
  });

  describe('ConfigMap extension-apiserver-authentication', () => {
    it("publishes the client CA and the proxy's settings, lists as JSON arrays", async () => {
      const r = await t.get(CM);
      expect(r.status).to.equal(200);
      const data = r.body.data as Record<string, string>;
      expect(Object.keys(data).sort()).to.deep.equal([
        'client-ca-file', 'requestheader-allowed-names', 'requestheader-client-ca-file', 'requestheader-extra-headers-prefix',
        'requestheader-group-headers', 'requestheader-uid-headers', 'requestheader-username-headers',
      ]);
      expect(fingerprints(data['client-ca-file'])).to.deep.equal([new X509Certificate(t.server.pki.caCertPem).fingerprint256]);
      expect(fingerprints(data['requestheader-client-ca-file'])).to.deep.equal([new X509Certificate(proxyCa.certPem).fingerprint256]);
      expect(data['requestheader-username-headers']).to.equal('["X-Remote-User"]');
      expect(data['requestheader-group-headers']).to.equal('["X-Remote-Group"]');
      expect(data['requestheader-extra-headers-prefix']).to.equal('["X-Remote-Extra-"]');
      expect(data['requestheader-allowed-names']).to.equal('["front-proxy-client"]');
      expect(data['requestheader-uid-headers']).to.equal('[]');
    });

    it('is put back within seconds when deleted', async () => {
      const before = (await t.get(CM)).body;
      expect((await t.del(CM)).status).to.equal(200);
      const back = await eventually(async () => { const r = await t.get(CM); return r.status === 200 && r.body; }, 5000);
      expect(back.metadata.uid).to.not.equal(before.metadata.uid);
      expect(back.data).to.deep.equal(before.data);
    });

    it('is put right within seconds when edited; what others add is kept', async () => {
      const before = (await t.get(CM)).body;
      const edited = { ...before, data: { 'requestheader-allowed-names': '["other-proxy"]', 'client-ca-file': 'garbage' } };
      expect((await t.put(CM, edited)).status).to.equal(200);
      const back = await eventually(async () => {
        const r = await t.get(CM);
        return r.body.data?.['requestheader-username-headers'] && r.body;
      }, 5000);
      expect(back.data).to.deep.equal({ ...before.data, 'requestheader-allowed-names': '["other-proxy","front-proxy-client"]' });
    });
  });
});

describe('extension-apiserver-authentication without an authenticating proxy', function () {
  this.timeout(60_000);
  it('holds only client-ca-file; the X-Remote-* headers of a client certificate mean nothing', async () => {
    const t = await startTestServer();
    try {
      const r = await eventually(async () => { const x = await t.get(CM); return x.status === 200 && x; }, 5000);
      expect(Object.keys(r.body.data)).to.deep.equal(['client-ca-file']);
      expect(fingerprints(r.body.data['client-ca-file'])).to.deep.equal([new X509Certificate(t.server.pki.caCertPem).fingerprint256]);
      const who = await t.post(SSR, { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' }, { headers: { 'X-Remote-User': 'alice' } });
      expect(who.body.status.userInfo.username).to.equal('orch-admin');
    } finally {
      await t.stop();
    }
  });

  it('an unreadable --requestheader-client-ca-file stops the start with one line naming the flag', async () => {
    const missing = path.join(os.tmpdir(), 'no-such-proxy-ca.crt');
    let err: Error | undefined;
    try {
      const t = await startTestServer([`--requestheader-client-ca-file=${missing}`, '--requestheader-username-headers=X-Remote-User']);
      await t.stop();
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).to.equal(`--requestheader-client-ca-file=${missing}: cannot read: ENOENT`);
  });
});
