/**
 * Static bearer tokens (--token-auth-file) over HTTPS: who a token is (SelfSubjectReview), the
 * exact 401 Status of an unknown token even with anonymous access on, Authorization headers that
 * are not bearer tokens, TokenReview, a bad file stopping the start, and no token in the log.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { HttpResponse, RequestOptions, TestServer, startTestServer } from '../helpers/server-harness';
import { LogCapture, captureLog } from '../helpers/log-capture';

const SSR = '/apis/authentication.orch.io/v1/selfsubjectreviews';
const TOKEN_REVIEWS = '/apis/authentication.orch.io/v1/tokenreviews';
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

const secret = (name: string) => `${name}-${randomBytes(12).toString('hex')}`;
const withAuthorization = (authorization: string): RequestOptions => ({ identity: null, headers: { authorization } });
const bearer = (token: string) => withAuthorization(`Bearer ${token}`);

function expect401(res: HttpResponse): void {
  expect(res.status, res.text).to.equal(401);
  expect(res.body).to.deep.equal(UNAUTHORIZED);
}

describe('static token file (--token-auth-file)', function () {
  this.timeout(120_000);
  const alice = secret('alice');
  const bob = secret('bob');
  const anon = secret('anon');
  const unknown = secret('unknown');
  let dir: string;
  let t: TestServer;
  let log: LogCapture;

  const whoami = async (opts: RequestOptions) => {
    const res = await t.post(SSR, { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' }, opts);
    expect(res.status, res.text).to.equal(201);
    return res.body.status.userInfo;
  };

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'token-file-'));
    const file = path.join(dir, 'tokens.csv');
    writeFileSync(file, [
      `${alice},alice,alice-uid,"dev,ops"`,
      '',
      `${bob},bob,bob-uid`,
      `${anon},system:anonymous,anon-uid`,
      `,nobody,empty-token`,
    ].join('\r\n') + '\r\n');
    log = captureLog();
    t = await startTestServer([`--token-auth-file=${file}`, '--log-level=debug']);
  });

  after(async () => {
    await t?.stop();
    log?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a known token is its user: name, uid, groups, then system:authenticated', async () => {
    expect(await whoami(bearer(alice))).to.deep.equal({ username: 'alice', uid: 'alice-uid', groups: ['dev', 'ops', 'system:authenticated'] });
    expect(await whoami(bearer(bob))).to.deep.equal({ username: 'bob', uid: 'bob-uid', groups: ['system:authenticated'] });
  });

  it('an authenticated token user may read discovery (system:discovery), anonymous may not', async () => {
    expect((await t.get('/api', bearer(alice))).status).to.equal(200);
    expect((await t.get('/api', { identity: null })).status).to.equal(403);
  });

  it('a token user named system:anonymous gets no system:authenticated (as kube\'s group adder), so is treated as anonymous', async () => {
    const review = await t.post(TOKEN_REVIEWS, { apiVersion: 'authentication.orch.io/v1', kind: 'TokenReview', spec: { token: anon } });
    expect(review.body.status.user).to.deep.equal({ username: 'system:anonymous', uid: 'anon-uid' });
    const res = await t.get('/api/v1/namespaces', bearer(anon));
    expect(res.status).to.equal(403);
    expect(res.body.message).to.include('User "system:anonymous" cannot list');
  });

  it('an unknown token is 401 with the exact Status, though anonymous access is on', async () => {
    expect401(await t.get('/api/v1/namespaces', bearer(unknown)));
    expect401(await t.get('/healthz', bearer(unknown)));
    expect401(await t.get('/version', bearer(unknown)));
    expect401(await t.post(SSR, { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' }, bearer(unknown)));
  });

  describe('Authorization headers as kube-apiserver reads them', () => {
    it('"bearer <token>" in lower case is a bearer token', async () => {
      expect((await whoami(withAuthorization(`bearer ${alice}`))).username).to.equal('alice');
      expect401(await t.get('/api/v1/namespaces', withAuthorization(`bearer ${unknown}`)));
    });

    it('a token followed by more words is the first word', async () => {
      expect((await whoami(withAuthorization(`Bearer ${bob} trailing words`))).username).to.equal('bob');
    });

    for (const header of ['Bearer', 'Basic xyz', `Basic ${Buffer.from('alice:pw').toString('base64')}`, `Token ${alice}`, `Bearer  ${alice}`, alice]) {
      it(`${JSON.stringify(header.replace(alice, '<token>'))} carries no bearer token: anonymous`, async () => {
        const api = await t.get('/api/v1/namespaces', withAuthorization(header));
        expect(api.status, api.text).to.equal(403);
        expect(api.body.message).to.equal('namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
        expect((await t.get('/healthz', withAuthorization(header))).status).to.equal(200);
      });
    }
  });

  it('a valid client certificate decides before the bearer token is looked at (kube\'s order)', async () => {
    const cert = t.identity('cert-user', ['cert-group']);
    expect(await whoami({ identity: cert, headers: { authorization: `Bearer ${unknown}` } }))
      .to.deep.equal({ username: 'cert-user', groups: ['cert-group', 'system:authenticated'] });
    expect(await whoami({ identity: cert, headers: { authorization: `Bearer ${alice}` } })).to.include({ username: 'cert-user' });
  });

  it('TokenReview answers for a file token, for the server\'s audiences', async () => {
    const res = await t.post(TOKEN_REVIEWS, { apiVersion: 'authentication.orch.io/v1', kind: 'TokenReview', spec: { token: alice } });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.status.authenticated).to.equal(true);
    expect(res.body.status.user).to.deep.equal({ username: 'alice', uid: 'alice-uid', groups: ['dev', 'ops', 'system:authenticated'] });
    expect(res.body.status.audiences).to.be.an('array').that.is.not.empty;
    const other = await t.post(TOKEN_REVIEWS, { apiVersion: 'authentication.orch.io/v1', kind: 'TokenReview', spec: { token: alice, audiences: ['not-this-server'] } });
    expect(other.body.status.authenticated).to.equal(undefined);
    const bad = await t.post(TOKEN_REVIEWS, { apiVersion: 'authentication.orch.io/v1', kind: 'TokenReview', spec: { token: unknown } });
    expect(bad.body.status).to.deep.include({ user: {} });
    expect(bad.body.status.authenticated).to.equal(undefined);
  });

  it('the request log names the token user, and why a token failed, never a token (at debug level)', async () => {
    await t.get('/api/v1/namespaces', bearer(alice));
    await t.get('/api/v1/namespaces', bearer(unknown));
    const records = log.records();
    expect(records.some((r) => r.message === 'HTTP' && r.user === 'alice')).to.equal(true);
    const failure = records.find((r) => r.message === 'HTTP' && r.resp === 401);
    expect(failure?.authnFailure).to.be.a('string').that.includes('invalid bearer token');
    const text = log.lines.join('\n');
    for (const token of [alice, bob, anon, unknown]) expect(text).not.to.include(token);
    for (const token of [alice, bob, anon, unknown]) expect(text).not.to.include(token.slice(-24));
  });

  it('warns at start about the record with an empty token, by line', () => {
    expect(log.records().some((r) => r.level === 'warn' && String(r.message).endsWith('line 5: empty token, record skipped'))).to.equal(true);
  });

  describe('a bad file stops the start', () => {
    let badDir: string;
    before(() => { badDir = mkdtempSync(path.join(os.tmpdir(), 'token-file-bad-')); });
    after(() => rmSync(badDir, { recursive: true, force: true }));

    const startWith = async (name: string, text: string): Promise<Error> => {
      const file = path.join(badDir, name);
      writeFileSync(file, text);
      try {
        const s = await startTestServer([`--token-auth-file=${file}`]);
        await s.stop();
      } catch (err) {
        return err as Error;
      }
      throw new Error('the server started');
    };

    it('a record of fewer than 3 columns: the flag, the file and the line, no token', async () => {
      const token = secret('short');
      const err = await startWith('short.csv', `${alice},alice,1\n\n${token},only-two\n`);
      expect(err.message).to.equal(`--token-auth-file ${path.join(badDir, 'short.csv')}: line 3: must have at least 3 columns (token, user name, user uid), found 2`);
      expect(err.message).not.to.include(token);
    });

    it('a bare quote: the line and column, no token', async () => {
      const token = secret('quote');
      const err = await startWith('quote.csv', `${token},a,1\n${token}",b,2\n`);
      expect(err.message).to.equal(`--token-auth-file ${path.join(badDir, 'quote.csv')}: parse error on line 2, column ${token.length + 1}: bare " in non-quoted-field`);
      expect(err.message).not.to.include(token);
    });

    it('a missing file', async () => {
      const file = path.join(badDir, 'missing.csv');
      try {
        await startTestServer([`--token-auth-file=${file}`]);
      } catch (err) {
        expect((err as Error).message).to.equal(`--token-auth-file ${file}: ENOENT`);
        return;
      }
      throw new Error('the server started');
    });
  });
});
