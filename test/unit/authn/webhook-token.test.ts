import { expect } from 'chai';
import { AuthResult } from '../../../lib/authn/authenticator';
import { HttpReply } from '../../../lib/authn/kubeconfig-client';
import { WebhookPoster, WebhookTokenAuthenticator, WebhookTokenOptions } from '../../../lib/authn/webhook-token';

const V1 = 'authentication.orch.io/v1';
const V1BETA1 = 'authentication.orch.io/v1beta1';
const TOKEN = 'the-user-token-0123456789';
const API_AUDS = ['https://orch.default.svc.cluster.local'];

type Answer = Partial<HttpReply> & { json?: unknown } | Error;

/** A poster that records each body and answers from `answer`. */
class FakePoster implements WebhookPoster {
  readonly url = 'https://hook.example/authenticate';
  bodies: any[] = [];
  timeouts: number[] = [];
  answer: (n: number, body: any) => Answer | Promise<Answer> = () => new Error('no answer set');
  closed = false;

  async post(body: Buffer, timeoutMs: number): Promise<HttpReply> {
    const parsed = JSON.parse(body.toString('utf8'));
    this.bodies.push(parsed);
    this.timeouts.push(timeoutMs);
    const a = await this.answer(this.bodies.length, parsed);
    if (a instanceof Error) throw a;
    const text = a.json !== undefined ? JSON.stringify(a.json) : a.body ?? Buffer.alloc(0);
    return { status: a.status ?? 200, headers: a.headers ?? {}, body: Buffer.isBuffer(text) ? text : Buffer.from(text) };
  }

  close(): void { this.closed = true; }
}

const reply = (status: Record<string, unknown>, apiVersion = V1BETA1) => ({ json: { apiVersion, kind: 'TokenReview', status } });
const alice = { username: 'alice', uid: 'u-1', groups: ['devs', 'ops'], extra: { 'example.org/team': ['blue'], scopes: ['a', 'b'] } };
const connReset = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
const fastBackoff = { initialMs: 5, factor: 1.5, jitter: 0.2, steps: 5 };

function make(poster: FakePoster, opts: Partial<WebhookTokenOptions> = {}): WebhookTokenAuthenticator {
  return new WebhookTokenAuthenticator({
    client: poster, apiVersion: V1BETA1, implicitAudiences: API_AUDS, cacheTtlMs: 60_000, backoff: fastBackoff, ...opts,
  });
}
const auth = async (a: WebhookTokenAuthenticator, token = TOKEN, auds: readonly string[] = API_AUDS): Promise<AuthResult> => a.authenticateToken(token, auds);
function expectInvalid(r: AuthResult): { reason: string; clientMessage?: string } {
  if (r.kind !== 'invalid') throw new Error(`expected invalid, got ${JSON.stringify(r)}`);
  expect(r.reason).not.to.include(TOKEN);
  return r;
}

describe('WebhookTokenAuthenticator', () => {
  let poster: FakePoster;
  beforeEach(() => { poster = new FakePoster(); });

  describe('the TokenReview sent', () => {
    it('carries the version asked, the token and the audiences in the body', async () => {
      poster.answer = () => reply({ authenticated: true, user: alice }, V1);
      await auth(make(poster, { apiVersion: V1 }), TOKEN, ['aud-1', 'aud-2']);
      expect(poster.bodies).to.deep.equal([{
        apiVersion: V1, kind: 'TokenReview', metadata: { creationTimestamp: null },
        spec: { token: TOKEN, audiences: ['aud-1', 'aud-2'] }, status: { user: {} },
      }]);
      expect(poster.timeouts[0]).to.be.within(29_000, 30_000);
    });

    it('leaves spec.audiences out when none are asked', async () => {
      poster.answer = () => reply({ authenticated: true, user: alice });
      const r = await auth(make(poster), TOKEN, []);
      expect(poster.bodies[0].apiVersion).to.equal(V1BETA1);
      expect(poster.bodies[0].spec).to.deep.equal({ token: TOKEN });
      expect(r).to.deep.equal({ kind: 'user', user: { name: 'alice', uid: 'u-1', groups: ['devs', 'ops'], extra: alice.extra } });
    });
  });

  describe('an authenticated review', () => {
    it('gives the user exactly, with the audiences the reply shares with the request', async () => {
      poster.answer = () => reply({ authenticated: true, user: alice, audiences: ['aud-2', 'other'] });
      const r = await auth(make(poster), TOKEN, ['aud-1', 'aud-2']);
      expect(r).to.deep.equal({ kind: 'user', user: { name: 'alice', uid: 'u-1', groups: ['devs', 'ops'], extra: alice.extra }, audiences: ['aud-2'] });
    });

    it('counts a reply without audiences as valid for the API server\'s own', async () => {
      poster.answer = () => reply({ authenticated: true, user: { username: 'bob' } });
      expect(await auth(make(poster), TOKEN, [...API_AUDS, 'x'])).to.deep.equal({ kind: 'user', user: { name: 'bob', groups: [] }, audiences: API_AUDS });
      const other = expectInvalid(await auth(make(poster), TOKEN, ['someone-else']));
      expect(other.reason).to.equal('token webhook: the token is not valid for the audiences ["someone-else"]');
      expect(other.clientMessage).to.equal(undefined);
    });

    it('refuses a token whose audiences are none of those asked', async () => {
      poster.answer = () => reply({ authenticated: true, user: alice, audiences: ['elsewhere'] });
      expectInvalid(await auth(make(poster), TOKEN, ['aud-1']));
    });

    it('refuses a review without a user name, or with badly typed user fields, as a failed call', async () => {
      const bad = [{}, { username: '' }, { username: 'a', groups: 'g' }, { username: 'a', extra: { k: 'v' } }, { username: 'a', uid: 7 }];
      const a = make(poster);
      for (const user of bad) {
        poster.answer = () => reply({ authenticated: true, user });
        expect(expectInvalid(await auth(a)).reason).to.match(/^token webhook https:\/\/hook\.example\/authenticate: status\.user/);
      }
      expect(poster.bodies).to.have.length(bad.length); // none cached
    });

    it('hands every caller its own copy of the user', async () => {
      poster.answer = () => reply({ authenticated: true, user: alice });
      const a = make(poster);
      const first = await auth(a);
      if (first.kind !== 'user') throw new Error('not a user');
      first.user.groups.push('system:masters');
      first.user.extra!.scopes.push('all');
      const second = await auth(a);
      expect(second).to.deep.equal({ kind: 'user', user: { name: 'alice', uid: 'u-1', groups: ['devs', 'ops'], extra: alice.extra }, audiences: API_AUDS });
      expect(poster.bodies).to.have.length(1);
    });
  });

  describe('a refusal', () => {
    it('is a generic invalid answer, remembered for the TTL', async () => {
      poster.answer = () => reply({ authenticated: false });
      const a = make(poster);
      const r = expectInvalid(await auth(a));
      expect(r).to.deep.equal({ kind: 'invalid', reason: 'token webhook: the webhook did not authenticate the token' });
      expectInvalid(await auth(a));
      expect(poster.bodies).to.have.length(1);
    });

    it('with status.error tells the client that error and, as in kube, is asked again next time', async () => {
      poster.answer = () => reply({ authenticated: false, error: 'token expired at noon' });
      const a = make(poster);
      const r = expectInvalid(await auth(a));
      expect(r.clientMessage).to.equal('token expired at noon');
      expect(r.reason).to.equal('token webhook did not authenticate the token: token expired at noon');
      await auth(a);
      expect(poster.bodies).to.have.length(2);
    });
  });

  describe('a failed call', () => {
    const failures: Array<[string, Answer, RegExp]> = [
      ['a 403', { status: 403, json: { kind: 'Status' } }, /answered HTTP 403$/],
      ['a 400', { status: 400 }, /answered HTTP 400$/],
      ['a body that is not JSON', { body: Buffer.from('<html>') }, /the reply is not JSON$/],
      ['a JSON array', { json: [1] }, /not a JSON object$/],
      ['another apiVersion', reply({ authenticated: true, user: alice }, V1), /the reply is "authentication.orch.io\/v1" "TokenReview", not a authentication.orch.io\/v1beta1 TokenReview$/],
      ['another kind', { json: { apiVersion: V1BETA1, kind: 'SubjectAccessReview', status: { authenticated: true, user: alice } } }, /"SubjectAccessReview"/],
      ['no apiVersion', { json: { status: { authenticated: true, user: alice } } }, /the reply is "" ""/],
      ['a status that is not an object', { json: { apiVersion: V1BETA1, kind: 'TokenReview', status: 'yes' } }, /status is not an object$/],
      ['a TLS error', Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), /the call failed: self-signed certificate$/],
      ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), /ECONNREFUSED/],
    ];
    for (const [what, answer, reason] of failures) {
      it(`${what}: invalid, not retried, not cached`, async () => {
        poster.answer = () => answer;
        const a = make(poster);
        const r = expectInvalid(await auth(a));
        expect(r.reason).to.match(/^token webhook https:\/\/hook\.example\/authenticate: /);
        expect(r.reason).to.match(reason);
        expect(r.clientMessage).to.equal(undefined);
        await auth(a);
        expect(poster.bodies).to.have.length(2);
      });
    }

    for (const [what, answer] of [
      ['500', { status: 500 }], ['504', { status: 504 }], ['429', { status: 429 }],
      ['503 with Retry-After', { status: 503, headers: { 'retry-after': '1' } }], ['a reset connection', connReset()],
    ] as Array<[string, Answer]>) {
      it(`${what}: retried with backoff, then the answer of the retry`, async () => {
        poster.answer = (n) => (n < 3 ? answer : reply({ authenticated: true, user: alice }));
        const r = await auth(make(poster));
        expect(r.kind).to.equal('user');
        expect(poster.bodies).to.have.length(3);
      });
    }

    it('gives up after 5 attempts with the last failure', async () => {
      poster.answer = () => ({ status: 500 });
      const r = expectInvalid(await auth(make(poster)));
      expect(r.reason).to.equal('token webhook https://hook.example/authenticate: the webhook answered HTTP 500 (5 attempts)');
      expect(poster.bodies).to.have.length(5);
    });

    it('does not retry a 503 without Retry-After', async () => {
      poster.answer = () => ({ status: 503 });
      expectInvalid(await auth(make(poster)));
      expect(poster.bodies).to.have.length(1);
    });

    it('keeps every attempt and the waits between them within the timeout', async () => {
      poster.answer = () => ({ status: 500 });
      const started = Date.now();
      const r = expectInvalid(await auth(make(poster, { timeoutMs: 400, backoff: { initialMs: 150, factor: 2, jitter: 0, steps: 5 } })));
      expect(Date.now() - started).to.be.below(400);
      expect(poster.bodies).to.have.length(2); // waits of 150 then 300 ms: the second would end past the deadline
      expect(r.reason).to.match(/HTTP 500 \(2 attempts\)$/);
      expect(poster.timeouts[0]).to.be.within(390, 400);
      expect(poster.timeouts[1]).to.be.within(200, 251);
    });

    it('says a call timed out', async () => {
      poster.answer = () => Object.assign(new Error('no reply within 30 ms'), { code: 'ETIMEDOUT' });
      const r = expectInvalid(await auth(make(poster, { timeoutMs: 30 })));
      expect(r.reason).to.equal('token webhook https://hook.example/authenticate: timed out after 30 ms');
    });
  });

  describe('the cache', () => {
    it('keys answers by token and audiences', async () => {
      poster.answer = (_n, body) => reply({ authenticated: true, user: { username: body.spec.token }, audiences: body.spec.audiences });
      const a = make(poster);
      await auth(a, 't1', ['x']);
      await auth(a, 't1', ['x']);
      await auth(a, 't1', ['y']);
      await auth(a, 't1', ['x', 'y']);
      await auth(a, 't2', ['x']);
      // the token and audiences must not run together: ["t", "1x"] is not ["t1", "x"]
      await auth(a, 't', ['1x']);
      expect(poster.bodies.map((b) => [b.spec.token, ...b.spec.audiences])).to.deep.equal([['t1', 'x'], ['t1', 'y'], ['t1', 'x', 'y'], ['t2', 'x'], ['t', '1x']]);
    });

    it('asks again once the TTL has passed', async () => {
      poster.answer = () => reply({ authenticated: false });
      const a = make(poster, { cacheTtlMs: 80 });
      await auth(a);
      await auth(a);
      expect(poster.bodies).to.have.length(1);
      await new Promise((r) => setTimeout(r, 120));
      await auth(a);
      expect(poster.bodies).to.have.length(2);
    });

    it('remembers nothing with a TTL of 0', async () => {
      poster.answer = () => reply({ authenticated: true, user: alice });
      const a = make(poster, { cacheTtlMs: 0 });
      await auth(a);
      await auth(a);
      expect(poster.bodies).to.have.length(2);
    });

    it('shares one call among concurrent requests for one token', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => { release = r; });
      poster.answer = async () => { await gate; return reply({ authenticated: true, user: alice }); };
      const a = make(poster);
      const pending = Array.from({ length: 10 }, () => auth(a));
      const otherToken = auth(a, 'another-token');
      await new Promise((r) => setTimeout(r, 20));
      release();
      const results = await Promise.all([...pending, otherToken]);
      expect(results.every((r) => r.kind === 'user')).to.equal(true);
      expect(poster.bodies).to.have.length(2);
    });

    it('shares a failed call too, without keeping it', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => { release = r; });
      poster.answer = async (n) => { if (n === 1) await gate; return n === 1 ? { status: 401 } : reply({ authenticated: true, user: alice }); };
      const a = make(poster);
      const pending = Array.from({ length: 5 }, () => auth(a));
      await new Promise((r) => setTimeout(r, 20));
      release();
      expect((await Promise.all(pending)).map((r) => r.kind)).to.deep.equal(['invalid', 'invalid', 'invalid', 'invalid', 'invalid']);
      expect((await auth(a)).kind).to.equal('user');
      expect(poster.bodies).to.have.length(2);
    });
  });

  it('close() closes the client', () => {
    make(poster).close();
    expect(poster.closed).to.equal(true);
  });
});
