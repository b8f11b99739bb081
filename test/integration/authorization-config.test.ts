/**
 * --authorization-config (AuthorizationConfiguration) through HTTP: the chain's order (RBAC, then a
 * Webhook whose CEL matchConditions select resource requests in one namespace, then a second
 * Webhook), a webhook that its conditions skip is never asked, failurePolicy Deny stopping the
 * chain where NoOpinion lets the next authorizer decide, the file reloaded while the server runs
 * (a bad new file keeps the old chain, counted by the reload metrics), and the start refused with
 * kube's message for a bad file or beside --authorization-mode.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { HttpResponse, TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { TokenWebhook, WebhookAnswer, WebhookRequest, startTokenWebhook } from '../helpers/token-webhook';
import { startFailureLine } from '../helpers/server-process';
import { parseExposition } from '../helpers/prom-text';

const V1 = 'authorization.orch.io/v1';
const G = 'rbac.authorization.orch.io';
const b64 = (s: string) => Buffer.from(s).toString('base64');
type Identity = { certPem: string; keyPem: string };

function writeKubeconfig(hook: TokenWebhook): string {
  return hook.writeFile('authz.kubeconfig', {
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: 'authz', cluster: { server: hook.url, 'certificate-authority-data': b64(hook.caPem) } }],
    users: [{ name: 'apiserver', user: { token: 'authz-config-token' } }],
    contexts: [{ name: 'authz', context: { cluster: 'authz', user: 'apiserver' } }],
    'current-context': 'authz',
  });
}

const sar = (status: Record<string, unknown>): WebhookAnswer => ({ json: { apiVersion: V1, kind: 'SubjectAccessReview', status } });
const allowUser = (user: string) => (req: WebhookRequest): WebhookAnswer => sar(req.body?.spec?.user === user
  ? { allowed: true, reason: `${user} is trusted` } : { allowed: false, reason: 'not my call' });

function webhookEntry(name: string, kubeconfig: string, extra: Record<string, unknown> = {}) {
  return {
    type: 'Webhook', name,
    webhook: {
      timeout: '3s', authorizedTTL: '1ms', unauthorizedTTL: '1ms', subjectAccessReviewVersion: 'v1',
      matchConditionSubjectAccessReviewVersion: 'v1', failurePolicy: 'NoOpinion',
      connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig }, ...extra,
    },
  };
}

describe('Structured authorization (--authorization-config)', function () {
  this.timeout(180_000);
  let guard: TokenWebhook;
  let second: TokenWebhook;
  let t: TestServer;
  let file: string;
  let alice: Identity;
  let bob: Identity;
  let carol: Identity;
  const guardConditions = [{ expression: 'has(request.resourceAttributes)' }, { expression: "request.resourceAttributes.namespace == 'hooked'" }];
  const config = (guardExtra: Record<string, unknown> = {}) => ({
    apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthorizationConfiguration',
    authorizers: [
      { type: 'RBAC', name: 'rbac' },
      webhookEntry('guard.example.com', writeKubeconfig(guard), { matchConditions: guardConditions, ...guardExtra }),
      webhookEntry('second.example.com', writeKubeconfig(second)),
    ],
  });
  const get = (p: string, who: Identity): Promise<HttpResponse> => t.get(p, { identity: who });
  const reviewsBy = (hook: TokenWebhook, user: string) => hook.requests.filter((r) => r.body?.spec?.user === user);

  before(async () => {
    guard = await startTokenWebhook({ path: '/authorize' });
    second = await startTokenWebhook({ path: '/authorize' });
    guard.reply = allowUser('alice');
    second.reply = allowUser('carol');
    file = guard.writeFile('authorization-config.json', config());
    t = await startTestServer([`--authorization-config=${file}`, '--authorization-config-reload-interval=100ms', '--log-level=error']);
    alice = t.identity('alice');
    bob = t.identity('bob');
    carol = t.identity('carol');
    for (const ns of ['hooked', 'other']) {
      expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).to.equal(201);
    }
    const binding = { apiVersion: `${G}/v1`, kind: 'RoleBinding', metadata: { name: 'bob-view' },
      roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', apiGroup: G, name: 'bob' }] };
    expect((await t.post(`/apis/${G}/v1/namespaces/hooked/rolebindings`, binding)).status).to.equal(201);
    await eventually(async () => (await get('/api/v1/namespaces/hooked/configmaps', bob)).status === 200);
  });
  beforeEach(() => {
    guard.requests.length = 0;
    second.requests.length = 0;
  });
  after(async () => {
    await t?.stop();
    await guard?.stop();
    await second?.stop();
  });

  it('asks RBAC first: what RBAC allows never reaches a webhook', async () => {
    expect((await get('/api/v1/namespaces/hooked/configmaps', bob)).status).to.equal(200);
    expect(reviewsBy(guard, 'bob')).to.have.length(0);
    expect(reviewsBy(second, 'bob')).to.have.length(0);
  });

  it('asks the guard webhook only where its matchConditions hold, and it allows', async () => {
    const res = await get('/api/v1/namespaces/hooked/configmaps', alice);
    expect(res.status, res.text).to.equal(200);
    const [review] = reviewsBy(guard, 'alice');
    expect(review.body.apiVersion).to.equal(V1);
    expect(review.body.spec.resourceAttributes).to.include({ namespace: 'hooked', verb: 'list', resource: 'configmaps' });
    expect(reviewsBy(second, 'alice')).to.have.length(0);
    const m = parseExposition((await t.get('/metrics')).text);
    expect(m.value('apiserver_authorization_decisions_total', { type: 'Webhook', name: 'guard.example.com', decision: 'allowed' })).to.be.greaterThan(0);
  });

  it('skips the guard where its conditions are false: the next webhook decides (no opinion: 403)', async () => {
    const res = await get('/api/v1/namespaces/other/configmaps', alice);
    expect(res.status, res.text).to.equal(403);
    expect(reviewsBy(guard, 'alice')).to.have.length(0);
    expect(reviewsBy(second, 'alice')).to.have.length(1);
    const nonResource = await get('/custom-path', carol);
    expect(nonResource.status, nonResource.text).to.equal(404); // allowed by the second webhook, then not found
    expect(reviewsBy(guard, 'carol')).to.have.length(0);
  });

  it('reloads the file: failurePolicy Deny on a condition error stops the chain; NoOpinion lets the next decide', async () => {
    // A condition that errs on non-resource requests (no resourceAttributes), under Deny.
    writeFileSync(file, JSON.stringify(config({ failurePolicy: 'Deny', matchConditions: [{ expression: "request.resourceAttributes.namespace == 'hooked'" }] })));
    const denied = await eventually(async () => {
      const r = await get('/custom-path', carol);
      return r.status === 500 ? r : undefined;
    });
    expect(denied.body).to.include({ kind: 'Status', reason: 'InternalError', code: 500 });
    second.requests.length = 0;
    expect((await get('/custom-path', carol)).status).to.equal(500);
    expect(reviewsBy(second, 'carol')).to.have.length(0);
    writeFileSync(file, JSON.stringify(config({ failurePolicy: 'NoOpinion', matchConditions: [{ expression: "request.resourceAttributes.namespace == 'hooked'" }] })));
    await eventually(async () => (await get('/custom-path', carol)).status === 404);
    expect(reviewsBy(second, 'carol').length).to.be.greaterThan(0);
    const m = parseExposition((await t.get('/metrics')).text);
    expect(m.value('apiserver_authorization_match_condition_evaluation_errors_total', { type: 'Webhook', name: 'guard.example.com' })).to.be.greaterThan(0);
    expect(m.value('apiserver_authorization_config_controller_automatic_reloads_total', { status: 'success' })).to.be.greaterThan(1);
  });

  it('keeps the running chain when the new file is invalid, and counts the failure', async () => {
    writeFileSync(file, JSON.stringify(config()));
    await eventually(async () => (await get('/custom-path', carol)).status === 404 && (await get('/api/v1/namespaces/hooked/configmaps', alice)).status === 200);
    const before = parseExposition((await t.get('/metrics')).text).value('apiserver_authorization_config_controller_automatic_reloads_total', { status: 'failure' });
    writeFileSync(file, JSON.stringify({ ...config(), authorizers: [{ type: 'RBAC', name: 'not-rbac' }] }));
    await eventually(async () => parseExposition((await t.get('/metrics')).text)
      .value('apiserver_authorization_config_controller_automatic_reloads_total', { status: 'failure' }) > before);
    expect((await get('/api/v1/namespaces/hooked/configmaps', alice)).status).to.equal(200);
    writeFileSync(file, JSON.stringify(config()));
  });

  describe('refused at start', () => {
    it('beside --authorization-mode, with kube\'s message', async () => {
      const line = await startFailureLine([`--authorization-config=${file}`, '--authorization-mode=RBAC']);
      expect(line).to.contain('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
    });

    const bad: Array<[string, unknown, string]> = [
      ['no authorizers', { authorizers: [] }, 'authorizers: Required value: at least one authorization mode must be defined'],
      ['an unknown type', { authorizers: [{ type: 'Magic', name: 'magic' }] },
        'authorizers[0].type: Unsupported value: "Magic": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"'],
      ['RBAC twice', { authorizers: [{ type: 'RBAC', name: 'rbac' }, { type: 'RBAC', name: 'rbac2' }] }, 'authorizers[1].type: Duplicate value: "RBAC"'],
      ['a misnamed RBAC', { authorizers: [{ type: 'RBAC', name: 'my-rbac' }] }, 'expected name rbac for authorizer RBAC instead of my-rbac'],
      ['a webhook without its settings', { authorizers: [{ type: 'Webhook', name: 'w.example.com', webhook: { connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: 'relative.yaml' }, matchConditions: [{ expression: 'true' }] } }] },
        '[authorizers[0].webhook.timeout: Required value, authorizers[0].webhook.authorizedTTL: Required value, authorizers[0].webhook.unauthorizedTTL: Required value, authorizers[0].webhook.subjectAccessReviewVersion: Required value, authorizers[0].webhook.matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified, authorizers[0].webhook.failurePolicy: Required value, authorizers[0].webhook.connectionInfo.kubeConfigFile: Invalid value: "relative.yaml": must be an absolute path]'],
      ['a condition that is not a bool', { authorizers: [{ type: 'RBAC', name: 'rbac' }, webhookEntry('w.example.com', '/etc/hosts', { matchConditions: [{ expression: "'yes'" }] })] },
        'authorizers[1].webhook.matchConditions[0].expression: Invalid value: "\'yes\'": must evaluate to bool'],
      ['failurePolicy Maybe', { authorizers: [webhookEntry('w.example.com', '/etc/hosts', { failurePolicy: 'Maybe' })] },
        'authorizers[0].webhook.failurePolicy: Unsupported value: "Maybe": supported values: "NoOpinion", "Deny"'],
    ];
    for (const [what, body, message] of bad) {
      it(`a file with ${what}`, async () => {
        const f = guard.writeFile(`bad-${what.replace(/\W+/g, '-')}.json`, { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthorizationConfiguration', ...(body as object) });
        const line = await startFailureLine([`--authorization-config=${f}`]);
        expect(line).to.contain(`--authorization-config: ${message}`);
      });
    }
  });
});
