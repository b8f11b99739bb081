/**
 * The Webhook authorizer with a fake HTTPS client: the SubjectAccessReview text kube sends
 * (both versions), how replies decide, the cache (synchronous hits, the two TTLs, failures never
 * kept, one call for concurrent identical reviews), failed calls as no opinion with an error,
 * retries of transient failures, and RulesFor.
 */
import { expect } from 'chai';
import { HttpReply } from '../../../lib/authn/kubeconfig-client';
import { WebhookPoster } from '../../../lib/authn/webhook-token';
import { AuthorizationAttributes } from '../../../lib/authz/attributes';
import { AuthorizationResult } from '../../../lib/authz/authorizer';
import { WebhookAuthorizer, WebhookAuthorizerOptions } from '../../../lib/authz/webhook-authorizer';

const V1 = 'authorization.orch.io/v1';
const V1BETA1 = 'authorization.orch.io/v1beta1';

type Answer = Partial<HttpReply> & { json?: unknown } | Error;

class FakePoster implements WebhookPoster {
  readonly url = 'https://authz.example/authorize';
  texts: string[] = [];
  answer: (n: number, body: any) => Answer | Promise<Answer> = () => new Error('no answer set');
  closed = false;

  async post(body: Buffer): Promise<HttpReply> {
    const text = body.toString('utf8');
    this.texts.push(text);
    const a = await this.answer(this.texts.length, JSON.parse(text));
    if (a instanceof Error) throw a;
    const out = a.json !== undefined ? JSON.stringify(a.json) : a.body ?? Buffer.alloc(0);
    return { status: a.status ?? 200, headers: a.headers ?? {}, body: Buffer.isBuffer(out) ? out : Buffer.from(out) };
  }

  close(): void { this.closed = true; }
}

const sar = (status: Record<string, unknown>, apiVersion = V1BETA1): Answer => ({ json: { apiVersion, kind: 'SubjectAccessReview', status } });
const fastBackoff = { initialMs: 5, factor: 1.5, jitter: 0.2, steps: 5 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const user = { name: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { 'z.example/b': ['2'], 'a.example/a': ['1', '0'] } };
const getPod: AuthorizationAttributes = {
  user, verb: 'get', isResourceRequest: true, path: '/api/v1/namespaces/team/pods/web/log', httpMethod: 'GET',
  apiGroup: '', apiVersion: 'v1', resource: 'pods', subresource: 'log', namespace: 'team', name: 'web',
};
const listDeployments: AuthorizationAttributes = {
  user: { name: 'bob', groups: [] }, verb: 'list', isResourceRequest: true, path: '/apis/apps/v1/deployments', httpMethod: 'GET',
  apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments', subresource: '', namespace: '', name: '',
};
const healthz: AuthorizationAttributes = {
  user: { name: 'system:anonymous', groups: ['system:unauthenticated'] }, verb: 'get', isResourceRequest: false, path: '/healthz', httpMethod: 'GET',
  apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '',
};

function make(poster: FakePoster, opts: Partial<WebhookAuthorizerOptions> = {}): WebhookAuthorizer {
  return new WebhookAuthorizer({ client: poster, apiVersion: V1BETA1, authorizedTtlMs: 60_000, unauthorizedTtlMs: 60_000, backoff: fastBackoff, ...opts });
}
const decide = async (w: WebhookAuthorizer, a: AuthorizationAttributes = getPod): Promise<AuthorizationResult> => w.authorize(a);

describe('WebhookAuthorizer', () => {
  let poster: FakePoster;
  beforeEach(() => { poster = new FakePoster(); });

  describe('the SubjectAccessReview sent', () => {
    it('v1beta1: Go\'s field order, `group`, extra keys sorted, empty attributes left out', async () => {
      poster.answer = () => sar({ allowed: true });
      const w = make(poster);
      await decide(w, getPod);
      await decide(w, listDeployments);
      expect(poster.texts).to.deep.equal([
        '{"kind":"SubjectAccessReview","apiVersion":"authorization.orch.io/v1beta1","metadata":{"creationTimestamp":null},'
        + '"spec":{"resourceAttributes":{"namespace":"team","verb":"get","version":"v1","resource":"pods","subresource":"log","name":"web"},'
        + '"user":"alice","group":["devs","system:authenticated"],"extra":{"a.example/a":["1","0"],"z.example/b":["2"]},"uid":"u-1"},'
        + '"status":{"allowed":false}}',
        '{"kind":"SubjectAccessReview","apiVersion":"authorization.orch.io/v1beta1","metadata":{"creationTimestamp":null},'
        + '"spec":{"resourceAttributes":{"verb":"list","group":"apps","version":"v1","resource":"deployments"},"user":"bob"},'
        + '"status":{"allowed":false}}',
      ]);
    });

    it('v1: `groups`; a non-resource request sends path and verb', async () => {
      poster.answer = () => sar({ allowed: true }, V1);
      await decide(make(poster, { apiVersion: V1 }), healthz);
      expect(poster.texts).to.deep.equal([
        '{"kind":"SubjectAccessReview","apiVersion":"authorization.orch.io/v1","metadata":{"creationTimestamp":null},'
        + '"spec":{"nonResourceAttributes":{"path":"/healthz","verb":"get"},"user":"system:anonymous","groups":["system:unauthenticated"]},'
        + '"status":{"allowed":false}}',
      ]);
    });
  });

  describe('the decision', () => {
    const cases: Array<[string, Record<string, unknown>, AuthorizationResult]> = [
      ['allowed', { allowed: true, reason: 'ok by policy 7' }, { decision: 'allow', reason: 'ok by policy 7' }],
      ['denied', { allowed: false, denied: true, reason: 'frozen namespace' }, { decision: 'deny', reason: 'frozen namespace' }],
      ['neither: no opinion, reason kept', { allowed: false, reason: 'not mine' }, { decision: 'no-opinion', reason: 'not mine' }],
      ['an empty status: no opinion', {}, { decision: 'no-opinion', reason: '' }],
      ['both: deny with an error', { allowed: true, denied: true }, { decision: 'deny', reason: '', error: 'webhook subject access review returned both allow and deny response' }],
    ];
    for (const [what, status, expected] of cases) {
      it(what, async () => {
        poster.answer = () => sar(status);
        expect(await decide(make(poster))).to.deep.equal(expected);
      });
    }

    it('a reply without status is no opinion', async () => {
      poster.answer = () => ({ json: { apiVersion: V1BETA1, kind: 'SubjectAccessReview' } });
      expect(await decide(make(poster))).to.deep.equal({ decision: 'no-opinion', reason: '' });
    });
  });

  describe('failed calls: no opinion with an error, logged, not cached', () => {
    const failures: Array<[string, () => Answer, RegExp]> = [
      ['unreachable', () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), /the call failed: connect ECONNREFUSED/],
      ['HTTP 403', () => ({ status: 403, json: {} }), /the webhook answered HTTP 403$/],
      ['not JSON', () => ({ body: Buffer.from('<html>') }), /the reply is not JSON$/],
      ['another version', () => sar({ allowed: true }, V1), /the reply is "authorization.orch.io\/v1" "SubjectAccessReview", not a authorization.orch.io\/v1beta1 SubjectAccessReview$/],
      ['another kind', () => ({ json: { apiVersion: V1BETA1, kind: 'TokenReview', status: { allowed: true } } }), /not a authorization.orch.io\/v1beta1 SubjectAccessReview$/],
      ['allowed as a string', () => sar({ allowed: 'true' }), /status.allowed is not true or false$/],
      ['reason as a number', () => sar({ allowed: false, reason: 3 }), /status.reason is not a string$/],
      ['a timeout', () => Object.assign(new Error('no reply'), { code: 'ETIMEDOUT' }), /timed out after 30000 ms$/],
    ];
    for (const [what, answer, message] of failures) {
      it(what, async () => {
        const logged: string[] = [];
        poster.answer = answer;
        const w = make(poster, { log: (m) => logged.push(m) });
        const r = await decide(w);
        expect(r.decision).to.equal('no-opinion');
        expect(r.reason).to.equal('');
        expect(r.error).to.match(/^authorization webhook https:\/\/authz.example\/authorize: /).and.to.match(message);
        expect(logged).to.deep.equal([r.error]);
        await decide(w);
        expect(poster.texts).to.have.length(2);
      });
    }

    it('retries 500, 429, 504 and reset connections with backoff, then decides', async () => {
      const answers: Answer[] = [{ status: 500 }, { status: 429 }, { status: 504 }, Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), sar({ allowed: true })];
      poster.answer = (n) => answers[n - 1];
      expect(await decide(make(poster))).to.deep.equal({ decision: 'allow', reason: '' });
      expect(poster.texts).to.have.length(5);
    });

    it('gives up after five attempts, saying so', async () => {
      poster.answer = () => ({ status: 500 });
      const r = await decide(make(poster));
      expect(r.error).to.match(/the webhook answered HTTP 500 \(5 attempts\)$/);
      expect(poster.texts).to.have.length(5);
    });

    it('does not retry 503 without Retry-After, but does with it', async () => {
      poster.answer = () => ({ status: 503 });
      await decide(make(poster));
      expect(poster.texts).to.have.length(1);
      poster.answer = (n) => (n === 2 ? { status: 503, headers: { 'retry-after': '1' } } : sar({ allowed: true }));
      expect((await decide(make(poster))).decision).to.equal('allow');
      expect(poster.texts).to.have.length(3);
    });
  });

  describe('the cache', () => {
    it('answers a repeated request synchronously, without calling', async () => {
      poster.answer = () => sar({ allowed: true });
      const w = make(poster);
      const first = w.authorize(getPod);
      expect(first).to.be.instanceOf(Promise);
      await first;
      const second = w.authorize(getPod);
      expect(second).to.deep.equal({ decision: 'allow', reason: '' });
      expect(poster.texts).to.have.length(1);
    });

    it('keys by the whole review: another user, group, verb or name is another call', async () => {
      poster.answer = () => sar({ allowed: true });
      const w = make(poster);
      await decide(w, getPod);
      await decide(w, { ...getPod, user: { ...user, groups: ['devs'] } });
      await decide(w, { ...getPod, verb: 'delete' });
      await decide(w, { ...getPod, name: 'db' });
      await decide(w, { ...getPod, user: { ...user, name: 'mallory' } });
      expect(poster.texts).to.have.length(5);
    });

    it('keeps allowed answers for the authorized TTL and others for the unauthorized TTL', async () => {
      poster.answer = (_n, body) => sar(body.spec.resourceAttributes.verb === 'get' ? { allowed: true } : { denied: true, reason: 'no' });
      const w = make(poster, { authorizedTtlMs: 400, unauthorizedTtlMs: 100 });
      const del = { ...getPod, verb: 'delete' };
      await decide(w, getPod);
      await decide(w, del);
      expect(w.authorize(getPod)).to.deep.equal({ decision: 'allow', reason: '' });
      expect(w.authorize(del)).to.deep.equal({ decision: 'deny', reason: 'no' });
      expect(poster.texts).to.have.length(2);
      await sleep(200);
      expect(w.authorize(getPod)).not.to.be.instanceOf(Promise);
      expect(await decide(w, del)).to.deep.equal({ decision: 'deny', reason: 'no' });
      expect(poster.texts).to.have.length(3);
      await sleep(300);
      await decide(w, getPod);
      expect(poster.texts).to.have.length(4);
    });

    it('keeps nothing with TTLs of 0', async () => {
      poster.answer = () => sar({ allowed: true });
      const w = make(poster, { authorizedTtlMs: 0, unauthorizedTtlMs: 0 });
      await decide(w);
      await decide(w);
      expect(poster.texts).to.have.length(2);
    });

    it('does not keep answers about huge requests (kube\'s 10,000-byte bound)', async () => {
      poster.answer = () => sar({ allowed: true });
      const w = make(poster);
      const huge = { ...getPod, name: 'x'.repeat(10_000) };
      await decide(w, huge);
      await decide(w, huge);
      expect(poster.texts).to.have.length(2);
    });

    it('makes one call for concurrent identical requests', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => { release = r; });
      poster.answer = async () => { await gate; return sar({ allowed: true }); };
      const w = make(poster);
      const all = Promise.all([decide(w), decide(w), decide(w)]);
      await sleep(10);
      release();
      expect((await all).map((r) => r.decision)).to.deep.equal(['allow', 'allow', 'allow']);
      expect(poster.texts).to.have.length(1);
    });
  });

  it('cannot list rules: incomplete, with kube\'s evaluation error', () => {
    expect(make(poster).rulesFor()).to.deep.equal({ rules: [], incomplete: true, errors: ['webhook authorizer does not support user rule resolution'] });
  });

  it('close() closes the client', () => {
    make(poster).close();
    expect(poster.closed).to.equal(true);
  });
});
