/**
 * Client certificates over HTTPS with --client-ca-file holding two CAs: a certificate of either
 * is its CN with a group per O; unknown CAs, expired and server-only certificates are 401; a
 * certificate without CN is no credential (anonymous); a valid bearer token still authenticates
 * beside a bad certificate. The server's generated CA is not trusted once the flag is given.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { HttpResponse, RequestOptions, TestServer, startTestServer } from '../helpers/server-harness';
import { Issued, issueCert } from '../helpers/x509-certs';

const SSR = '/apis/authentication.orch.io/v1/selfsubjectreviews';
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
const HOUR = 3600_000;

function expect401(res: HttpResponse): void {
  expect(res.status, res.text).to.equal(401);
  expect(res.body).to.deep.equal(UNAUTHORIZED);
}

const as = (c: Issued, headers?: Record<string, string>): RequestOptions => ({ identity: { certPem: c.certPem, keyPem: c.keyPem }, headers });

describe('client certificates with several CAs (--client-ca-file)', function () {
  this.timeout(120_000);
  let dir: string;
  let t: TestServer;
  let caA: Issued;
  let caB: Issued;
  let stranger: Issued;
  let admin: Issued;
  const token = `tok-${randomBytes(12).toString('hex')}`;

  const review = (opts: RequestOptions) => t.post(SSR, { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' }, opts);
  const whoami = async (opts: RequestOptions) => {
    const res = await review(opts);
    expect(res.status, res.text).to.equal(201);
    return res.body.status.userInfo;
  };

  before(async () => {
    caA = issueCert({ commonName: 'client-ca-a', ca: true });
    caB = issueCert({ commonName: 'client-ca-b', organizations: ['Example'], ca: true });
    stranger = issueCert({ commonName: 'client-ca-a', ca: true }); // same name as A, another key
    admin = issueCert({ commonName: 'root', organizations: ['system:masters'] }, caA);
    dir = mkdtempSync(path.join(os.tmpdir(), 'x509-'));
    const bundle = path.join(dir, 'client-ca.pem');
    writeFileSync(bundle, `${caA.certPem}${caB.certPem}`);
    const tokens = path.join(dir, 'tokens.csv');
    writeFileSync(tokens, `${token},token-user,token-uid,tokens\n`);
    t = await startTestServer([`--client-ca-file=${bundle}`, `--token-auth-file=${tokens}`]);
  });

  after(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a certificate of the first CA is its CN, with a group per O', async () => {
    const cert = issueCert({ commonName: 'alice', organizations: ['dev', 'ops'] }, caA);
    expect(await whoami(as(cert))).to.deep.equal({ username: 'alice', groups: ['dev', 'ops', 'system:authenticated'] });
    expect((await t.get('/api', as(cert))).status).to.equal(200);
  });

  it('a certificate of the second CA too', async () => {
    const cert = issueCert({ commonName: 'bob', organizations: ['qa'] }, caB);
    expect(await whoami(as(cert))).to.deep.equal({ username: 'bob', groups: ['qa', 'system:authenticated'] });
    expect(await whoami(as(issueCert({ commonName: 'carol' }, caB)))).to.deep.equal({ username: 'carol', groups: ['system:authenticated'] });
  });

  it('a certificate of an intermediate of a bundle CA, sent with the intermediate', async () => {
    const intermediate = issueCert({ commonName: 'team-ca', ca: true }, caB);
    const leaf = issueCert({ commonName: 'dave', organizations: ['team'] }, intermediate);
    expect(await whoami({ identity: { certPem: leaf.certPem + intermediate.certPem, keyPem: leaf.keyPem } }))
      .to.deep.equal({ username: 'dave', groups: ['team', 'system:authenticated'] });
    expect401(await review(as(leaf)));
  });

  it('the admin certificate of the generated CA is 401: the flag replaces that CA', async () => {
    expect401(await t.get('/api/v1/namespaces'));
    expect((await t.get('/api/v1/namespaces', as(admin))).status).to.equal(200);
  });

  it('a certificate of an unknown CA (even one named like a bundle CA) is 401', async () => {
    expect401(await review(as(issueCert({ commonName: 'eve', organizations: ['system:masters'] }, stranger))));
    expect401(await t.get('/healthz', as(issueCert({ commonName: 'eve' }, stranger))));
  });

  it('an expired or not yet valid certificate is 401', async () => {
    expect401(await review(as(issueCert({ commonName: 'old', notBefore: new Date(Date.now() - 48 * HOUR), notAfter: new Date(Date.now() - HOUR) }, caA))));
    expect401(await review(as(issueCert({ commonName: 'early', notBefore: new Date(Date.now() + HOUR) }, caB))));
  });

  it('a certificate for server authentication only is 401', async () => {
    expect401(await review(as(issueCert({ commonName: 'web', extKeyUsage: ['serverAuth'] }, caA))));
    // Without any extended key usage it is fine, as Go's verification says.
    expect(await whoami(as(issueCert({ commonName: 'no-eku', extKeyUsage: [] }, caA)))).to.include({ username: 'no-eku' });
  });

  it('a valid certificate without CN is no credential: anonymous', async () => {
    const cert = issueCert({ organizations: ['system:masters'] }, caA);
    const api = await t.get('/api', as(cert));
    expect(api.status, api.text).to.equal(403);
    expect(api.body.message).to.equal('forbidden: User "system:anonymous" cannot get path "/api"');
    expect((await t.get('/healthz', as(cert))).status).to.equal(200);
  });

  describe('beside a bearer token', () => {
    const bad = () => issueCert({ commonName: 'mallory' }, stranger);

    it('a valid token authenticates though the certificate is bad', async () => {
      expect(await whoami(as(bad(), { authorization: `Bearer ${token}` })))
        .to.deep.equal({ username: 'token-user', uid: 'token-uid', groups: ['tokens', 'system:authenticated'] });
      expect(await whoami(as(issueCert({ commonName: 'x', extKeyUsage: ['serverAuth'] }, caB), { authorization: `Bearer ${token}` })))
        .to.include({ username: 'token-user' });
    });

    it('a bad certificate and a bad token are 401', async () => {
      expect401(await review(as(bad(), { authorization: 'Bearer not-a-token' })));
    });

    it('a bad certificate without a token is 401, not anonymous', async () => {
      expect401(await t.get('/healthz', as(bad())));
    });
  });
});
