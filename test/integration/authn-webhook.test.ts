import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { HttpResponse, TestServer, startTestServer } from '../helpers/server-harness';
import { TokenWebhook, WebhookAnswer, review, startTokenWebhook } from '../helpers/token-webhook';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const bearer = (token: string) => ({ identity: null, headers: { authorization: `Bearer ${token}` } });
const unauthorized = (message: string) => ({
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Unauthorized', code: 401,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every token any test sends: the webhook must never see one outside a request body. */
const TOKENS = new Set<string>();
const tok = (name: string) => { const t = `${name}-${Math.random().toString(36).slice(2)}`; TOKENS.add(t); return t; };

function expectNoTokenOutsideBodies(hook: TokenWebhook): void {
  for (const r of hook.requests) {
    const outside = `${r.method} ${r.url} ${JSON.stringify(r.headers)}`;
    for (const t of TOKENS) expect(outside).not.to.include(t);
  }
}

function expect401(res: HttpResponse, message = 'Unauthorized'): void {
  expect(res.status, res.text).to.equal(401);
  expect(res.body).to.deep.equal(unauthorized(message));
}

describe('webhook token authentication', function () {
  this.timeout(120_000);

  describe('v1beta1 to a webhook requiring a client certificate (orch flavor)', () => {
    const V1BETA1 = 'authentication.orch.io/v1beta1';
    const AUDS = ['https://orch.example/api', 'second-aud'];
    let hook: TokenWebhook;
    let t: TestServer;
    const users = new Map<string, WebhookAnswer>();
    const alice = tok('alice');
    const hang = tok('hang');
    let hanging: Promise<{ res: HttpResponse; ms: number }>;

    before(async () => {
      hook = await startTokenWebhook({ requireClientCert: true });
      hook.reply = (req) => users.get(req.body?.spec?.token) ?? review(V1BETA1, { authenticated: false });
      const client = hook.clientCertificate('orch-apiserver');
      const config = hook.writeFile('webhook.kubeconfig', {
        apiVersion: 'v1', kind: 'Config',
        clusters: [{ name: 'hook', cluster: { server: hook.url, 'certificate-authority-data': b64(hook.caPem) } }],
        users: [{ name: 'apiserver', user: { 'client-certificate-data': b64(client.certPem), 'client-key-data': b64(client.keyPem) } }],
        contexts: [{ name: 'other', context: { cluster: 'hook' } }, { name: 'webhook', context: { cluster: 'hook', user: 'apiserver' } }],
        'current-context': 'webhook',
      });
      t = await startTestServer([
        `--authentication-token-webhook-config-file=${config}`, '--authentication-token-webhook-cache-ttl=2s', `--api-audiences=${AUDS.join(',')}`,
      ]);
      users.set(alice, review(V1BETA1, {
        authenticated: true, user: { username: 'alice', uid: 'alice-uid', groups: ['devs', 'ops'], extra: { 'example.org/team': ['blue', 'green'] } },
      }));
      // Started now, answered last: the webhook never replies, so the server must give up (30 s)
      // while every other test of this group runs against it.
      users.set(hang, 'hang');
      const started = Date.now();
      hanging = t.get('/api', bearer(hang)).then((res) => ({ res, ms: Date.now() - started }));
    });
    after(async () => {
      await t?.stop();
      await hook?.stop();
    });

    it('authenticates the user the webhook names: name, uid, groups and extra', async () => {
      expect((await t.get('/api', bearer(alice))).status).to.equal(200);
      expect((await t.get('/api', { identity: null })).status).to.equal(403);
      const ssr = await t.post('/apis/authentication.orch.io/v1/selfsubjectreviews', { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' }, bearer(alice));
      expect(ssr.status, ssr.text).to.equal(201);
      expect(ssr.body.status.userInfo).to.deep.equal({
        username: 'alice', uid: 'alice-uid', groups: ['devs', 'ops', 'system:authenticated'], extra: { 'example.org/team': ['blue', 'green'] },
      });
      // the second request (the review) was answered from the cache
      const calls = hook.requests.filter((r) => r.body?.spec?.token === alice);
      expect(calls).to.have.length(1);
      expect(calls[0].method).to.equal('POST');
      expect(calls[0].url).to.equal('/authenticate');
      expect(calls[0].headers['content-type']).to.equal('application/json');
      expect(calls[0].headers.authorization).to.equal(undefined);
      expect(calls[0].clientCn).to.equal('orch-apiserver');
      expect(calls[0].body).to.deep.include({ apiVersion: V1BETA1, kind: 'TokenReview', spec: { token: alice, audiences: AUDS } });
    });

    it('answers 401 with the webhook\'s status.error, asking again each time as kube does', async () => {
      const revoked = tok('revoked');
      users.set(revoked, review(V1BETA1, { authenticated: false, error: 'token revoked by the identity service' }));
      const before = hook.requests.length;
      expect401(await t.get('/api', bearer(revoked)), 'token revoked by the identity service');
      expect401(await t.get('/api', bearer(revoked)), 'token revoked by the identity service');
      expect(hook.requests.length - before).to.equal(2);
    });

    it('answers 401 Unauthorized to a plain refusal, and remembers it for the TTL', async () => {
      const unknown = tok('unknown');
      const before = hook.requests.length;
      expect401(await t.get('/api', bearer(unknown)));
      expect401(await t.get('/api', bearer(unknown)));
      expect(hook.requests.length - before).to.equal(1);
    });

    it('answers 401 to a token the webhook says is for other audiences', async () => {
      const elsewhere = tok('elsewhere');
      users.set(elsewhere, review(V1BETA1, { authenticated: true, user: { username: 'eve' }, audiences: ['https://elsewhere.example'] }));
      expect401(await t.get('/api', bearer(elsewhere)));
    });

    it('caches an accepted token for the TTL (2s), then asks again', async () => {
      const cached = tok('cached');
      users.set(cached, review(V1BETA1, { authenticated: true, user: { username: 'carol' } }));
      const calls = () => hook.requests.filter((r) => r.body?.spec?.token === cached).length;
      expect((await t.get('/api', bearer(cached))).status).to.equal(200);
      expect((await t.get('/api', bearer(cached))).status).to.equal(200);
      expect(calls()).to.equal(1);
      await sleep(2300);
      expect((await t.get('/api', bearer(cached))).status).to.equal(200);
      expect(calls()).to.equal(2);
    });

    it('makes one call for concurrent requests with one new token', async () => {
      const burst = tok('burst');
      users.set(burst, review(V1BETA1, { authenticated: true, user: { username: 'dave' } }, 300));
      const results = await Promise.all(Array.from({ length: 8 }, () => t.get('/api', bearer(burst))));
      expect(results.map((r) => r.status)).to.deep.equal(Array(8).fill(200));
      expect(hook.requests.filter((r) => r.body?.spec?.token === burst)).to.have.length(1);
    });

    it('answers 401 when the webhook fails (500 retried, garbage, another version) and keeps serving', async () => {
      const boom = tok('boom');
      const garbage = tok('garbage');
      const v1 = tok('v1-reply');
      users.set(boom, { status: 500, json: { message: 'internal' } });
      users.set(garbage, { raw: 'this is not json' });
      users.set(v1, review('authentication.orch.io/v1', { authenticated: true, user: { username: 'mallory' } }));
      expect401(await t.get('/api', bearer(boom)));
      // kube retries a 500 (5 attempts with backoff), and does not remember a failure
      expect(hook.requests.filter((r) => r.body?.spec?.token === boom)).to.have.length(5);
      expect401(await t.get('/api', bearer(garbage)));
      expect401(await t.get('/api', bearer(garbage)));
      expect(hook.requests.filter((r) => r.body?.spec?.token === garbage)).to.have.length(2);
      expect401(await t.get('/api', bearer(v1)));
      expect((await t.get('/api')).status).to.equal(200);
      expect((await t.get('/api', bearer(alice))).status).to.equal(200);
    });

    it('answers 401 when the webhook does not answer within 30 s, having served everything else meanwhile', async () => {
      const { res, ms } = await hanging;
      expect401(res);
      expect(ms).to.be.within(29_000, 40_000);
      expect(hook.requests.filter((r) => r.body?.spec?.token === hang)).to.have.length(1);
      expect((await t.get('/api', bearer(alice))).status).to.equal(200);
    });

    it('the webhook never saw a token outside a request body', () => {
      expect(hook.requests.length).to.be.greaterThan(10);
      expectNoTokenOutsideBodies(hook);
    });
  });

  describe('v1 with a token credential and a relative CA file (kubernetes flavor)', () => {
    const V1 = 'authentication.k8s.io/v1';
    const WEBHOOK_CREDENTIAL = 'apiserver-to-webhook-credential';
    let hook: TokenWebhook;
    let t: TestServer;
    const bob = tok('bob');

    before(async () => {
      hook = await startTokenWebhook({ path: '/reviews/tokens' });
      hook.reply = (req) => {
        const spec = req.body?.spec ?? {};
        if (spec.token !== bob) return review(V1, { authenticated: false });
        return review(V1, { authenticated: true, user: { username: 'bob', groups: ['qa'] }, ...(spec.audiences?.includes('custom-aud') ? { audiences: ['custom-aud'] } : {}) });
      };
      writeFileSync(path.join(hook.dir, 'hook-ca.crt'), hook.caPem);
      // YAML, no contexts: its one cluster and one user; the CA path is relative to the file.
      const config = hook.writeFile('webhook.yaml', [
        'apiVersion: v1', 'kind: Config', 'clusters:', '- name: hook', '  cluster:', `    server: ${hook.url}`, '    certificate-authority: hook-ca.crt',
        'users:', '- name: apiserver', '  user:', `    token: ${WEBHOOK_CREDENTIAL}`, '',
      ].join('\n'));
      t = await startTestServer([
        `--authentication-token-webhook-config-file=${config}`, '--authentication-token-webhook-version=v1', '--flavor=kubernetes',
      ]);
    });
    after(async () => {
      await t?.stop();
      await hook?.stop();
    });

    it('sends a v1 review with the server\'s audiences, presenting its own credential', async () => {
      expect((await t.get('/api', bearer(bob))).status).to.equal(200);
      const ssr = await t.post('/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, bearer(bob));
      expect(ssr.status, ssr.text).to.equal(201);
      expect(ssr.body.status.userInfo).to.deep.equal({ username: 'bob', groups: ['qa', 'system:authenticated'] });
      const [call] = hook.requests;
      expect(call.url).to.equal('/reviews/tokens');
      expect(call.headers.authorization).to.equal(`Bearer ${WEBHOOK_CREDENTIAL}`);
      expect(call.clientCn).to.equal(undefined);
      expect(call.body).to.deep.include({ apiVersion: V1, kind: 'TokenReview', spec: { token: bob, audiences: ['https://kubernetes.default.svc.cluster.local'] } });
    });

    it('passes a TokenReview\'s audiences to the webhook and answers the ones it confirms', async () => {
      const res = await t.post('/apis/authentication.k8s.io/v1/tokenreviews', {
        apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: bob, audiences: ['custom-aud', 'other-aud'] },
      });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.status).to.deep.include({ authenticated: true, audiences: ['custom-aud'] });
      expect(res.body.status.user).to.deep.equal({ username: 'bob', groups: ['qa', 'system:authenticated'] });
      expect(hook.requests.at(-1)!.body.spec).to.deep.equal({ token: bob, audiences: ['custom-aud', 'other-aud'] });
    });

    it('answers 401 when the webhook is unreachable, and keeps serving', async () => {
      const late = tok('late');
      expectNoTokenOutsideBodies(hook);
      await hook.stop();
      expect401(await t.get('/api', bearer(late)));
      expect((await t.get('/api')).status).to.equal(200);
      // bob's answer is still cached
      expect((await t.get('/api', bearer(bob))).status).to.equal(200);
    });
  });
});
