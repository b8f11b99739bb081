/**
 * ImagePolicyWebhook through HTTPS against the real server and a backend the test serves itself
 * (HTTPS on loopback, its own CA): what the backend is sent, allowed and refused pods, the cache
 * by content for allowTTL / denyTTL, retries at retryBackoff, defaultAllow with the backend down,
 * and configurations refused at start.
 */
import { expect } from 'chai';
import { freeLoopbackPort as closedPort } from '../helpers/free-port';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { TestServer, startTestServer } from '../helpers/server-harness';
import { TokenWebhook, WebhookAnswer, WebhookRequest, startTokenWebhook } from '../helpers/token-webhook';

const API_VERSION = 'imagepolicy.orch.io/v1alpha1';
const TOKEN = 'image-policy-backend-token';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const answer = (status: Record<string, unknown>): WebhookAnswer => ({ json: { apiVersion: API_VERSION, kind: 'ImageReview', status } });

function pod(name: string, images: string[], annotations?: Record<string, string>): Record<string, unknown> {
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, ...(annotations ? { annotations } : {}) },
    spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) },
  };
}

/** A kubeconfig for the backend at `server`, trusting `caPem`, with a bearer token. */
function kubeconfig(hook: TokenWebhook, name: string, server: string): string {
  return hook.writeFile(name, {
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: 'images', cluster: { server, 'certificate-authority-data': b64(hook.caPem) } }],
    users: [{ name: 'apiserver', user: { token: TOKEN } }],
    contexts: [{ name: 'images', context: { cluster: 'images', user: 'apiserver' } }],
    'current-context': 'images',
  });
}

/** An AdmissionConfiguration (YAML) whose ImagePolicyWebhook entry is a file beside it (relative path). */
function admissionConfig(hook: TokenWebhook, name: string, imagePolicy: Record<string, unknown>): string {
  hook.writeFile(`${name}.imagepolicy.json`, { imagePolicy });
  const file = path.join(hook.dir, `${name}.admission.yaml`);
  writeFileSync(file, [
    'apiVersion: apiserver.config.orch.io/v1',
    'kind: AdmissionConfiguration',
    'plugins:',
    '- name: ImagePolicyWebhook',
    `  path: ${name}.imagepolicy.json`,
    '',
  ].join('\n'));
  return file;
}


const FLAGS = (config: string) => [
  '--enable-admission-plugins=ImagePolicyWebhook', `--admission-control-config-file=${config}`,
  // Not about service accounts: pods need no `default` account to exist first.
  '--disable-admission-plugins=ServiceAccount',
];

describe('ImagePolicyWebhook admission', function () {
  this.timeout(120_000);
  let hook: TokenWebhook;
  let t: TestServer;
  let reviews: (images: string) => WebhookRequest[];

  before(async () => {
    hook = await startTokenWebhook({ path: '/imagepolicy' });
    hook.reply = (req) => answer(String(req.body?.spec?.containers?.[0]?.image).startsWith('bad/')
      ? { allowed: false, reason: `${req.body.spec.containers[0].image} is not signed` } : { allowed: true });
    const config = admissionConfig(hook, 'main', {
      kubeConfigFile: kubeconfig(hook, 'main.kubeconfig', hook.url), allowTTL: 2, denyTTL: 2, retryBackoff: 300, defaultAllow: false,
    });
    t = await startTestServer(FLAGS(config));
    reviews = (image) => hook.requests.filter((r) => r.body?.spec?.containers?.some((c: { image?: string }) => c.image === image));
  });
  after(async () => {
    await t?.stop();
    await hook?.stop();
  });

  it('sends an ImageReview of the images, policy annotations and namespace, with the kubeconfig\'s token', async () => {
    const res = await t.post('/api/v1/namespaces/default/pods', {
      ...pod('allowed', ['good/app:1', 'good/sidecar:2'], { 'ticket.image-policy.orch.io/break-glass': 'INC-1', 'team.example/owner': 'x' }),
    });
    expect(res.status, res.text).to.equal(201);
    const [sent] = reviews('good/app:1');
    expect(sent.method).to.equal('POST');
    expect(sent.headers.authorization).to.equal(`Bearer ${TOKEN}`);
    expect(sent.body).to.deep.equal({
      apiVersion: API_VERSION, kind: 'ImageReview', metadata: { creationTimestamp: null },
      spec: {
        containers: [{ image: 'good/app:1' }, { image: 'good/sidecar:2' }],
        annotations: { 'ticket.image-policy.orch.io/break-glass': 'INC-1' },
        namespace: 'default',
      },
      status: { allowed: false },
    });
    expect(sent.text).not.to.include(TOKEN);
  });

  it('refuses a pod the backend denies with kube\'s message, and stores nothing', async () => {
    const res = await t.post('/api/v1/namespaces/default/pods', pod('denied', ['bad/miner:1']));
    expect(res.status, res.text).to.equal(403);
    expect(res.body).to.deep.include({
      kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'pods "denied" is forbidden: image policy webhook backend denied one or more images: bad/miner:1 is not signed',
    });
    expect(res.body.details).to.deep.include({ name: 'denied', kind: 'pods' });
    expect((await t.get('/api/v1/namespaces/default/pods/denied')).status).to.equal(404);
  });

  it('reviews a dry run and an update that changes an image', async () => {
    const dry = await t.post('/api/v1/namespaces/default/pods?dryRun=All', pod('dry', ['bad/dry:1']));
    expect(dry.status, dry.text).to.equal(403);
    expect(reviews('bad/dry:1')).to.have.length(1);

    expect((await t.post('/api/v1/namespaces/default/pods', pod('updated', ['good/update:1']))).status).to.equal(201);
    const current = (await t.get('/api/v1/namespaces/default/pods/updated')).body;
    current.spec.containers[0].image = 'bad/update:2';
    const res = await t.put('/api/v1/namespaces/default/pods/updated', current);
    expect(res.status, res.text).to.equal(403);
    expect(res.body.message).to.equal('pods "updated" is forbidden: image policy webhook backend denied one or more images: bad/update:2 is not signed');
    expect((await t.get('/api/v1/namespaces/default/pods/updated')).body.spec.containers[0].image).to.equal('good/update:1');
  });

  it('does not review other kinds or the status subresource', async () => {
    const before = hook.requests.length;
    expect((await t.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'not-a-pod' }, data: { image: 'bad/x' } })).status).to.equal(201);
    expect((await t.post('/api/v1/namespaces/default/pods', pod('status-target', ['good/status:1']))).status).to.equal(201);
    const current = (await t.get('/api/v1/namespaces/default/pods/status-target')).body;
    const res = await t.put('/api/v1/namespaces/default/pods/status-target/status', { ...current, status: { ...current.status, message: 'x' } });
    expect(res.status, res.text).to.equal(200);
    expect(hook.requests.length - before).to.equal(1);
  });

  it('answers from the cache within allowTTL and denyTTL, and asks again after', async () => {
    expect((await t.post('/api/v1/namespaces/default/pods', pod('cached-1', ['good/cached:1']))).status).to.equal(201);
    expect((await t.post('/api/v1/namespaces/default/pods', pod('cached-2', ['good/cached:1']))).status).to.equal(201);
    expect((await t.post('/api/v1/namespaces/default/pods', pod('refused-1', ['bad/cached:1']))).status).to.equal(403);
    expect((await t.post('/api/v1/namespaces/default/pods', pod('refused-2', ['bad/cached:1']))).status).to.equal(403);
    expect(reviews('good/cached:1')).to.have.length(1);
    expect(reviews('bad/cached:1')).to.have.length(1);
    // Another policy annotation is another review.
    const annotated = pod('cached-3', ['good/cached:1'], { 'x.image-policy.orch.io/reason': 'other' });
    expect((await t.post('/api/v1/namespaces/default/pods', annotated)).status).to.equal(201);
    expect(reviews('good/cached:1')).to.have.length(2);

    await sleep(2_200); // both TTLs are 2 s
    expect((await t.post('/api/v1/namespaces/default/pods', pod('cached-4', ['good/cached:1']))).status).to.equal(201);
    expect((await t.post('/api/v1/namespaces/default/pods', pod('refused-3', ['bad/cached:1']))).status).to.equal(403);
    expect(reviews('good/cached:1')).to.have.length(3);
    expect(reviews('bad/cached:1')).to.have.length(2);
  });

  it('retries a failing backend after retryBackoff, growing, and fails closed after five attempts', async () => {
    const previous = hook.reply;
    let failures = 0;
    hook.reply = (req) => {
      if (req.body?.spec?.containers?.[0]?.image === 'good/retry:1' && failures++ < 1) return { status: 500, json: { message: 'busy' } };
      if (req.body?.spec?.containers?.[0]?.image === 'good/down:1') return { status: 500, json: { message: 'down' } };
      return previous(req);
    };
    try {
      expect((await t.post('/api/v1/namespaces/default/pods', pod('retried', ['good/retry:1']))).status).to.equal(201);
      const calls = reviews('good/retry:1');
      expect(calls).to.have.length(2);

      const started = Date.now();
      const res = await t.post('/api/v1/namespaces/default/pods', pod('down', ['good/down:1']));
      const elapsed = Date.now() - started;
      expect(res.status, res.text).to.equal(403);
      expect(res.body.message).to.equal(`pods "down" is forbidden: Post "${hook.url}": the webhook answered HTTP 500 (5 attempts)`);
      expect(reviews('good/down:1')).to.have.length(5);
      // Four waits of at least 300, 450, 675 and 1012 ms (x1.5 each time): behaviour, not speed.
      expect(elapsed).to.be.at.least(300 + 450 + 675 + 1012);
      expect((await t.get('/api/v1/namespaces/default/pods/down')).status).to.equal(404);
    } finally {
      hook.reply = previous;
    }
  });

  describe('with the backend down', () => {
    let open: TestServer;
    let closed: TestServer;

    before(async () => {
      const down = `https://127.0.0.1:${await closedPort()}/imagepolicy`;
      const settings = { kubeConfigFile: kubeconfig(hook, 'down.kubeconfig', down), retryBackoff: 10 };
      open = await startTestServer(FLAGS(admissionConfig(hook, 'open', { ...settings, defaultAllow: true })), { etcd: t.etcd });
      closed = await startTestServer(FLAGS(admissionConfig(hook, 'closed', { ...settings, defaultAllow: false })), { etcd: t.etcd });
    });
    after(async () => {
      await open?.stop();
      await closed?.stop();
    });

    it('defaultAllow true admits the pod and marks it failed-open', async () => {
      const res = await open.post('/api/v1/namespaces/default/pods', pod('failed-open', ['any/image:1'], { keep: 'me' }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.metadata.annotations).to.deep.equal({ keep: 'me', 'alpha.image-policy.orch.io/failed-open': 'true' });
      const stored = await open.get('/api/v1/namespaces/default/pods/failed-open');
      expect(stored.body.metadata.annotations['alpha.image-policy.orch.io/failed-open']).to.equal('true');
    });

    it('defaultAllow false refuses the pod with the failure and stores nothing', async () => {
      const res = await closed.post('/api/v1/namespaces/default/pods', pod('failed-closed', ['any/image:1']));
      expect(res.status, res.text).to.equal(403);
      expect(res.body.message).to.match(/^pods "failed-closed" is forbidden: Post "https:\/\/127\.0\.0\.1:\d+\/imagepolicy": the call failed: connect ECONNREFUSED/);
      expect(res.text).not.to.include(TOKEN);
      expect((await closed.get('/api/v1/namespaces/default/pods/failed-closed')).status).to.equal(404);
    });
  });

  describe('bad configuration stops the start with one line', () => {
    const refusal = async (flags: string[]): Promise<string> => {
      const err = await startTestServer(flags, { etcd: t.etcd }).then(async (s) => { await s.stop(); return undefined; }, (e: Error) => e);
      expect(err, 'the server started').to.be.instanceOf(Error);
      expect(err!.message.split('\n')).to.have.length(1);
      return err!.message;
    };

    it('a TTL or backoff out of range, with kube\'s message', async () => {
      const file = kubeconfig(hook, 'ok.kubeconfig', hook.url);
      expect(await refusal(FLAGS(admissionConfig(hook, 'ttl', { kubeConfigFile: file, allowTTL: 3600 }))))
        .to.equal('couldn\'t init admission plugin "ImagePolicyWebhook": valid value is between 1s and 30m0s, got 1h0m0s');
      expect(await refusal(FLAGS(admissionConfig(hook, 'backoff', { kubeConfigFile: file, retryBackoff: 600_000 }))))
        .to.equal('couldn\'t init admission plugin "ImagePolicyWebhook": valid value is between 1ns and 5m0s, got 10m0s');
    });

    it('a missing configuration or kubeconfig file, or a backend that is not https', async () => {
      expect(await refusal(['--enable-admission-plugins=ImagePolicyWebhook']))
        .to.equal('couldn\'t init admission plugin "ImagePolicyWebhook": no config specified');
      const missing = path.join(hook.dir, 'missing.kubeconfig');
      expect(await refusal(FLAGS(admissionConfig(hook, 'missing', { kubeConfigFile: missing }))))
        .to.equal(`couldn't init admission plugin "ImagePolicyWebhook": imagePolicy.kubeConfigFile ${missing}: ENOENT`);
      const http = kubeconfig(hook, 'http.kubeconfig', hook.url.replace('https:', 'http:'));
      expect(await refusal(FLAGS(admissionConfig(hook, 'http', { kubeConfigFile: http }))))
        .to.match(/^couldn't init admission plugin "ImagePolicyWebhook": imagePolicy.kubeConfigFile .*: cluster "images": server must be an https URL$/);
    });
  });
});
