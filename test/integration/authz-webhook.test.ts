/**
 * The Webhook authorization mode over HTTPS, with a SubjectAccessReview webhook the test serves
 * (its own CA, a bearer token in the kubeconfig): the exact reviews it receives in v1beta1 (orch
 * flavor) and v1 (kubernetes flavor) for resource, subresource and non-resource requests, and for
 * anonymous and certificate users; with `--authorization-mode=Webhook,RBAC` a webhook deny is 403
 * (with the webhook's reason) even where RBAC allows, its no opinion leaves the decision to RBAC,
 * its allow needs no RBAC; answers cached for the authorized TTL and the (shorter) unauthorized
 * TTL; a webhook that is down is a 500 InternalError unless RBAC allows, logged without secrets.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { TokenWebhook, WebhookAnswer, WebhookRequest, startTokenWebhook } from '../helpers/token-webhook';
import { LogCapture, captureLog } from '../helpers/log-capture';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WEBHOOK_TOKEN = `authz-webhook-token-${Math.random().toString(36).slice(2)}`;

type Identity = { certPem: string; keyPem: string } | null;

/** A kubeconfig naming the webhook, trusting its CA, sending a bearer token. */
function writeKubeconfig(hook: TokenWebhook): string {
  return hook.writeFile('authz.kubeconfig', {
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: 'authz', cluster: { server: hook.url, 'certificate-authority-data': b64(hook.caPem) } }],
    users: [{ name: 'apiserver', user: { token: WEBHOOK_TOKEN } }],
    contexts: [{ name: 'authz', context: { cluster: 'authz', user: 'apiserver' } }],
    'current-context': 'authz',
  });
}

const sarReply = (apiVersion: string, status: Record<string, unknown>): WebhookAnswer => ({ json: { apiVersion, kind: 'SubjectAccessReview', status } });

function forbidden(message: string, details: Record<string, unknown>) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 };
}

describe('Webhook authorization', function () {
  this.timeout(120_000);

  describe('v1beta1, orch flavor, --authorization-mode=Webhook,RBAC', () => {
    const V1BETA1 = 'authorization.orch.io/v1beta1';
    const G = 'rbac.authorization.orch.io';
    let hook: TokenWebhook;
    let t: TestServer;
    let alice: Identity;
    let bob: Identity;
    let carol: Identity;
    let log: LogCapture;

    /** The webhook's policy: alice may do anything, the `frozen` namespace is read-only for all, others are RBAC's. */
    const policy = (req: WebhookRequest): WebhookAnswer => {
      const spec = req.body?.spec ?? {};
      const attrs = spec.resourceAttributes;
      if (attrs?.namespace === 'frozen' && !['get', 'list', 'watch'].includes(attrs.verb)) {
        return sarReply(V1BETA1, { allowed: false, denied: true, reason: 'namespace frozen is read-only' });
      }
      if (attrs?.namespace === 'frozen' && spec.user === 'bob' && attrs.resource === 'secrets') {
        return sarReply(V1BETA1, { allowed: false, denied: true, reason: 'no secrets for bob' });
      }
      if (spec.user === 'alice') return sarReply(V1BETA1, { allowed: true, reason: 'alice is trusted' });
      return sarReply(V1BETA1, { allowed: false, reason: 'not my call' });
    };
    const reviewsOf = (user: string) => hook.requests.filter((r) => r.body?.spec?.user === user);

    before(async () => {
      hook = await startTokenWebhook({ path: '/authorize' });
      hook.reply = policy;
      t = await startTestServer([
        '--authorization-mode=Webhook,RBAC', `--authorization-webhook-config-file=${writeKubeconfig(hook)}`,
        '--authorization-webhook-cache-authorized-ttl=1h', '--authorization-webhook-cache-unauthorized-ttl=1500ms', '--log-level=warn',
      ]);
      alice = t.identity('alice', ['devs']);
      bob = t.identity('bob');
      carol = t.identity('carol');
      // RBAC (asked after the webhook) lets bob read and write configmaps and secrets in team and frozen.
      const must = async (r: Promise<HttpResponse>) => {
        const res = await r;
        if (res.status >= 300) throw new Error(`setup: ${res.status} ${res.text}`);
      };
      for (const ns of ['team', 'frozen']) await must(t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
      await must(t.post(`/apis/${G}/v1/clusterroles`, {
        apiVersion: `${G}/v1`, kind: 'ClusterRole', metadata: { name: 'cm-secret-editor' },
        rules: [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['*'] }],
      }));
      for (const ns of ['team', 'frozen']) {
        await must(t.post(`/apis/${G}/v1/namespaces/${ns}/rolebindings`, {
          apiVersion: `${G}/v1`, kind: 'RoleBinding', metadata: { name: 'bob' },
          roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'cm-secret-editor' }, subjects: [{ kind: 'User', apiGroup: G, name: 'bob' }],
        }));
      }
      await must(t.post('/api/v1/namespaces/frozen/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' } }));
      // The RBAC index follows the watch caches: wait until bob's binding counts.
      await eventually(async () => (await t.get('/api/v1/namespaces/team/configmaps', { identity: bob })).status === 200);
      hook.requests.length = 0;
      log = captureLog();
    });
    after(async () => {
      log?.stop();
      await t?.stop();
      await hook?.stop();
    });

    it('sends the exact v1beta1 review of a resource request, with the kubeconfig\'s token, and the admin is never reviewed', async () => {
      const res = await t.get('/api/v1/namespaces/team/configmaps/settings', { identity: alice });
      expect(res.status, res.text).to.equal(404); // allowed by the webhook: the handler answers
      expect(hook.requests).to.have.length(1);
      const [r] = hook.requests;
      expect([r.method, r.url, r.headers['content-type'], r.headers.authorization]).to.deep.equal(['POST', '/authorize', 'application/json', `Bearer ${WEBHOOK_TOKEN}`]);
      expect(r.body).to.deep.equal({
        kind: 'SubjectAccessReview', apiVersion: V1BETA1, metadata: { creationTimestamp: null },
        spec: {
          resourceAttributes: { namespace: 'team', verb: 'get', version: 'v1', resource: 'configmaps', name: 'settings' },
          user: 'alice', group: ['devs', 'system:authenticated'],
        },
        status: { allowed: false },
      });
      expect((await t.get('/api/v1/namespaces/team/secrets')).status).to.equal(200);
      expect(hook.requests).to.have.length(1);
    });

    it('sends non-resource requests as path and verb; an anonymous caller as system:anonymous', async () => {
      const res = await t.get('/version', { identity: null });
      expect(res.status).to.be.oneOf([200, 403]); // the webhook has no opinion: RBAC's bootstrap policy decides
      expect(hook.requests.at(-1)!.body).to.deep.equal({
        kind: 'SubjectAccessReview', apiVersion: V1BETA1, metadata: { creationTimestamp: null },
        spec: { nonResourceAttributes: { path: '/version', verb: 'get' }, user: 'system:anonymous', group: ['system:unauthenticated'] },
        status: { allowed: false },
      });
    });

    it('an allow needs nothing from RBAC', async () => {
      const res = await t.post('/api/v1/namespaces/team/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'by-alice' } }, { identity: alice });
      expect(res.status, res.text).to.equal(201);
    });

    it('a deny is 403 with the webhook\'s reason, even where RBAC would allow', async () => {
      const res = await t.del('/api/v1/namespaces/frozen/configmaps/cfg', undefined, { identity: bob });
      expect(res.status, res.text).to.equal(403);
      expect(res.body).to.deep.equal(forbidden(
        'configmaps "cfg" is forbidden: User "bob" cannot delete resource "configmaps" in API group "" in the namespace "frozen": namespace frozen is read-only',
        { name: 'cfg', kind: 'configmaps' },
      ));
      const list = await t.get('/api/v1/namespaces/frozen/secrets', { identity: bob });
      expect(list.body.message).to.equal('secrets is forbidden: User "bob" cannot list resource "secrets" in API group "" in the namespace "frozen": no secrets for bob');
      // alice too: the deny comes before her allow in the webhook's policy
      expect((await t.del('/api/v1/namespaces/frozen/configmaps/cfg', undefined, { identity: alice })).status).to.equal(403);
      expect((await t.get('/api/v1/namespaces/frozen/configmaps/cfg')).status).to.equal(200);
    });

    it('no opinion leaves the decision to RBAC: allowed where bound, 403 with the webhook\'s reason elsewhere', async () => {
      expect((await t.get('/api/v1/namespaces/frozen/configmaps/cfg', { identity: bob })).status).to.equal(200);
      const res = await t.get('/api/v1/namespaces/team/pods', { identity: bob });
      expect(res.status).to.equal(403);
      expect(res.body.message).to.equal('pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "team": not my call');
    });

    it('caches allowed answers for the authorized TTL and the others for the shorter unauthorized TTL', async () => {
      const path = '/api/v1/namespaces/team/configmaps/cache-probe';
      expect((await t.get(path, { identity: alice })).status).to.equal(404);
      expect((await t.get(path, { identity: carol })).status).to.equal(403);
      expect(reviewsOf('alice').filter((r) => r.body.spec.resourceAttributes?.name === 'cache-probe')).to.have.length(1);
      expect(reviewsOf('carol')).to.have.length(1);
      // Within both TTLs: no call.
      expect((await t.get(path, { identity: alice })).status).to.equal(404);
      expect((await t.get(path, { identity: carol })).status).to.equal(403);
      expect(reviewsOf('alice').filter((r) => r.body.spec.resourceAttributes?.name === 'cache-probe')).to.have.length(1);
      expect(reviewsOf('carol')).to.have.length(1);
      // Past the unauthorized TTL only: carol's answer is asked again, alice's is still kept.
      await sleep(1700);
      expect((await t.get(path, { identity: alice })).status).to.equal(404);
      expect((await t.get(path, { identity: carol })).status).to.equal(403);
      expect(reviewsOf('alice').filter((r) => r.body.spec.resourceAttributes?.name === 'cache-probe')).to.have.length(1);
      expect(reviewsOf('carol')).to.have.length(2);
      // Another verb or name is another review.
      expect((await t.get('/api/v1/namespaces/team/configmaps/other-probe', { identity: alice })).status).to.equal(404);
      expect(reviewsOf('alice').filter((r) => r.body.spec.resourceAttributes?.name === 'other-probe')).to.have.length(1);
    });

    it('a webhook that answers badly is a 500 InternalError unless RBAC allows', async () => {
      hook.reply = () => ({ status: 200, raw: 'not json' });
      try {
        const res = await t.get('/api/v1/namespaces/team/pods/x', { identity: bob });
        expect(res.status, res.text).to.equal(500);
        expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'InternalError', code: 500 });
        // RBAC allows bob's configmaps: the webhook's failure does not matter then
        expect((await t.get('/api/v1/namespaces/team/configmaps/missing', { identity: bob })).status).to.equal(404);
      } finally {
        hook.reply = policy;
      }
    });

    it('a webhook that is down: 500 unless RBAC allows; the failure is logged with the URL, never the token', async () => {
      await hook.stop();
      const res = await t.get('/api/v1/namespaces/team/pods', { identity: carol });
      expect(res.status, res.text).to.equal(500);
      expect(res.body.reason).to.equal('InternalError');
      expect(res.text).not.to.include(WEBHOOK_TOKEN);
      expect((await t.get('/api/v1/namespaces/team/secrets', { identity: bob })).status).to.equal(200);
      // cached answers still count while it is down
      expect((await t.get('/api/v1/namespaces/team/configmaps/cache-probe', { identity: alice })).status).to.equal(404);
      const warnings = log.records().filter((r) => r.level === 'warn' && String(r.message).startsWith('authorization webhook '));
      expect(warnings.length).to.be.greaterThan(0);
      expect(String(warnings.at(-1)!.message)).to.include(hook.url).and.to.include('the call failed');
      for (const line of log.lines) expect(line).not.to.include(WEBHOOK_TOKEN);
    });
  });

  describe('v1, kubernetes flavor', () => {
    const V1 = 'authorization.k8s.io/v1';
    let hook: TokenWebhook;
    let t: TestServer;

    before(async () => {
      hook = await startTokenWebhook({ path: '/v1/authorize' });
      hook.reply = (req) => sarReply(V1, req.body?.spec?.user === 'dora' ? { allowed: true } : { allowed: false, reason: 'nope' });
      t = await startTestServer([
        '--flavor=kubernetes', '--authorization-mode=Webhook', `--authorization-webhook-config-file=${writeKubeconfig(hook)}`,
        '--authorization-webhook-version=v1',
      ]);
    });
    after(async () => {
      await t?.stop();
      await hook?.stop();
    });

    it('sends the exact v1 review (`groups`) of a subresource request in a named group', async () => {
      const res = await t.get('/apis/apps/v1/namespaces/team/deployments/web/status', { identity: t.identity('dora', ['ops', 'devs']) });
      expect(res.status).not.to.equal(403);
      expect(hook.requests.map((r) => r.body)).to.deep.equal([{
        kind: 'SubjectAccessReview', apiVersion: V1, metadata: { creationTimestamp: null },
        spec: {
          resourceAttributes: { namespace: 'team', verb: 'get', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'status', name: 'web' },
          user: 'dora', groups: ['ops', 'devs', 'system:authenticated'],
        },
        status: { allowed: false },
      }]);
    });

    it('sends a non-resource request as path and lower-case verb; Webhook alone: no opinion is 403 with the reason', async () => {
      const res = await t.request('POST', '/logs/x', { identity: t.identity('eve') });
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.equal(forbidden('forbidden: User "eve" cannot post path "/logs/x": nope', {}));
      expect(hook.requests.at(-1)!.body.spec).to.deep.equal({
        nonResourceAttributes: { path: '/logs/x', verb: 'post' }, user: 'eve', groups: ['system:authenticated'],
      });
    });

    it('a reply in the other version is a failed call: 500', async () => {
      hook.reply = () => sarReply('authorization.k8s.io/v1beta1', { allowed: true });
      const res = await t.get('/api/v1/namespaces', { identity: t.identity('frank') });
      expect(res.status, res.text).to.equal(500);
      expect(res.body.reason).to.equal('InternalError');
    });
  });
});
