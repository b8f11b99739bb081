/**
 * Bootstrap tokens (--enable-bootstrap-token-auth) over HTTPS: Secrets `bootstrap-token-<id>` of
 * type bootstrap.orch.io/token in orch-system, created through the API and read by the
 * authenticator from the watch cache. Each refusal is checked once the cache holds the Secret
 * (a GET at resourceVersion=0 is served from that cache), so a 401 is the authenticator's answer.
 */
import { expect } from 'chai';
import { HttpResponse, RequestOptions, TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { BootstrapToken, alnum, newBootstrapToken } from '../helpers/bootstrap-token';

const NS = 'orch-system';
const TYPE = 'bootstrap.orch.io/token';
const SSR = '/apis/authentication.orch.io/v1/selfsubjectreviews';
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
const secretsPath = (ns = NS, name = '') => `/api/v1/namespaces/${ns}/secrets${name ? `/${name}` : ''}`;

type Token = BootstrapToken;
const newToken = newBootstrapToken;

const bearer = (token: string): RequestOptions => ({ identity: null, headers: { authorization: `Bearer ${token}` } });

function tokenSecret(tok: Token, stringData: Record<string, string> = {}, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1', kind: 'Secret', metadata: { name: tok.name, namespace: NS }, type: TYPE,
    stringData: { 'token-id': tok.id, 'token-secret': tok.secret, 'usage-bootstrap-authentication': 'true', ...stringData },
    ...over,
  };
}

function expect401(res: HttpResponse): void {
  expect(res.status, res.text).to.equal(401);
  expect(res.body).to.deep.equal(UNAUTHORIZED);
}

describe('bootstrap tokens (--enable-bootstrap-token-auth)', function () {
  this.timeout(120_000);
  let t: TestServer;

  const review = (opts: RequestOptions) => t.post(SSR, { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' }, opts);

  /** Creates the Secret and waits until the watch cache holds it. */
  async function created(body: Record<string, unknown>): Promise<void> {
    const meta = body.metadata as { name: string; namespace: string };
    const res = await t.post(secretsPath(meta.namespace), body);
    expect(res.status, res.text).to.equal(201);
    const rv = res.body.metadata.resourceVersion;
    await eventually(async () => (await t.get(`${secretsPath(meta.namespace, meta.name)}?resourceVersion=0`)).body?.metadata?.resourceVersion === rv);
  }

  before(async () => {
    t = await startTestServer(['--enable-bootstrap-token-auth']);
  });
  after(async () => { await t?.stop(); });

  it('a good token is system:bootstrap:<id> in system:bootstrappers and system:authenticated', async () => {
    const tok = newToken();
    const res = await t.post(secretsPath(), tokenSecret(tok, { description: 'join', expiration: new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z/, 'Z') }));
    expect(res.status, res.text).to.equal(201);
    // The authenticator reads the watch cache: the Secret shows there a moment after the write.
    const ok = await eventually(async () => { const r = await review(bearer(tok.token)); return r.status === 201 && r; });
    expect(ok.body.status.userInfo).to.deep.equal({ username: `system:bootstrap:${tok.id}`, groups: ['system:bootstrappers', 'system:authenticated'] });
    expect((await t.get('/api', bearer(tok.token))).status).to.equal(200);
  });

  it('adds valid auth-extra-groups, sorted and without repeats, before system:authenticated', async () => {
    const tok = newToken();
    await created(tokenSecret(tok, { 'auth-extra-groups': 'system:bootstrappers:worker,system:bootstrappers:edge:zone-a,system:bootstrappers:worker' }));
    const res = await review(bearer(tok.token));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.status.userInfo).to.deep.equal({
      username: `system:bootstrap:${tok.id}`,
      groups: ['system:bootstrappers', 'system:bootstrappers:edge:zone-a', 'system:bootstrappers:worker', 'system:authenticated'],
    });
  });

  describe('refused with 401, as kube-apiserver refuses', () => {
    const refused = async (tok: Token, opts?: RequestOptions) => {
      expect401(await review(opts ?? bearer(tok.token)));
      expect401(await t.get('/healthz', opts ?? bearer(tok.token)));
    };

    it('a wrong secret', async () => {
      const tok = newToken();
      await created(tokenSecret(tok));
      expect((await review(bearer(tok.token))).status).to.equal(201);
      await refused(tok, bearer(`${tok.id}.${alnum(16)}`));
    });

    it('an unknown token id (no such Secret)', async () => {
      await refused(newToken());
    });

    it('an expired token, and one whose expiration Go\'s RFC 3339 parser refuses (counted as expired)', async () => {
      // Secret validation refuses most malformed times; these pass it, but not time.Parse(time.RFC3339).
      for (const expiration of [new Date(Date.now() - 1000).toISOString(), '2999-02-30T00:00:00Z', '2999-01-01T24:00:00Z', '2999-01-01t00:00:00Z']) {
        const tok = newToken();
        await created(tokenSecret(tok, { expiration }));
        await refused(tok);
      }
    });

    it('a token not marked usage-bootstrap-authentication: "true"', async () => {
      for (const usage of ['false', 'True', '']) {
        const tok = newToken();
        await created(tokenSecret(tok, { 'usage-bootstrap-authentication': usage }));
        await refused(tok);
      }
      const tok = newToken();
      const body = tokenSecret(tok);
      delete (body.stringData as Record<string, string>)['usage-bootstrap-authentication'];
      await created(body);
      await refused(tok);
    });

    it('an extra group the authenticator does not take (upper case, underscore, trailing colon)', async () => {
      for (const group of ['system:bootstrappers:Workers', 'system:bootstrappers:a_b', 'system:bootstrappers:a:']) {
        const tok = newToken();
        await created(tokenSecret(tok, { 'auth-extra-groups': `system:bootstrappers:ok,${group}` }));
        await refused(tok);
      }
    });

    it('a Secret of another type, or in another namespace', async () => {
      const opaque = newToken();
      await created(tokenSecret(opaque, {}, { type: 'Opaque' }));
      await refused(opaque);
      const elsewhere = newToken();
      await created({ ...tokenSecret(elsewhere), metadata: { name: elsewhere.name, namespace: 'default' } });
      await refused(elsewhere);
    });

    it('a deleted Secret, and one being deleted (deletionTimestamp with a finalizer)', async () => {
      const gone = newToken();
      await created(tokenSecret(gone));
      expect((await review(bearer(gone.token))).status).to.equal(201);
      expect((await t.del(secretsPath(NS, gone.name))).status).to.equal(200);
      await eventually(async () => (await review(bearer(gone.token))).status === 401);
      await refused(gone);

      const going = newToken();
      await created({ ...tokenSecret(going), metadata: { name: going.name, namespace: NS, finalizers: ['example.com/hold'] } });
      expect((await review(bearer(going.token))).status).to.equal(201);
      const del = await t.del(secretsPath(NS, going.name));
      expect(del.body.metadata.deletionTimestamp, del.text).to.be.a('string');
      await eventually(async () => (await review(bearer(going.token))).status === 401);
      await refused(going);
      const current = (await t.get(secretsPath(NS, going.name))).body;
      expect((await t.put(secretsPath(NS, going.name), { ...current, metadata: { ...current.metadata, finalizers: [] } })).status).to.equal(200);
    });

    it('a token that is not of the bootstrap form is no bootstrap token (401 as unknown)', async () => {
      const tok = newToken();
      await created(tokenSecret(tok));
      await refused(tok, bearer(tok.token.toUpperCase()));
      await refused(tok, bearer(`${tok.token}x`));
    });
  });

  describe('without the flag', () => {
    let plain: TestServer;
    before(async () => { plain = await startTestServer(); });
    after(async () => { await plain?.stop(); });

    it('a good bootstrap token is 401', async () => {
      const tok = newToken();
      const res = await plain.post(secretsPath(), tokenSecret(tok));
      expect(res.status, res.text).to.equal(201);
      const rv = res.body.metadata.resourceVersion;
      await eventually(async () => (await plain.get(`${secretsPath(NS, tok.name)}?resourceVersion=0`)).body?.metadata?.resourceVersion === rv);
      const denied = await plain.post(SSR, { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' }, bearer(tok.token));
      expect(denied.status, denied.text).to.equal(401);
      expect(denied.body).to.deep.equal(UNAUTHORIZED);
    });
  });
});
