/**
 * ImagePolicyWebhook against a fake backend: what is reviewed (which pods, containers,
 * annotations), the cache by content, refusals, failures with and without defaultAllow, and the
 * audit annotations.
 */
import { expect } from 'chai';
import { imagePolicyWebhook } from '../../../../lib/admission/imagepolicy/image-policy-webhook';
import { ImagePolicyConfig } from '../../../../lib/admission/imagepolicy/config';
import { AdmissionAttributes } from '../../../../lib/registry/admission-attributes';
import { WebhookPoster } from '../../../../lib/authn/webhook-call';
import { HttpReply } from '../../../../lib/authn/kubeconfig-client';
import { ApiObject, ResourceDef } from '../../../../lib/scheme/types';

const pods = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true } as ResourceDef;
const configMaps = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true } as ResourceDef;
const API_VERSION = 'imagepolicy.orch.io/v1alpha1';

interface Fake { poster: WebhookPoster; sent: any[]; answer: (review: any) => HttpReply | Error }

function fakeBackend(): Fake {
  const fake: Fake = {
    sent: [],
    answer: () => json({ apiVersion: API_VERSION, kind: 'ImageReview', status: { allowed: true } }),
    poster: {
      url: 'https://images.example/policy',
      post: async (body) => {
        const review = JSON.parse(body.toString());
        fake.sent.push(review);
        const a = fake.answer(review);
        if (a instanceof Error) throw a;
        return a;
      },
      close: () => undefined,
    },
  };
  return fake;
}

function json(body: unknown, status = 200): HttpReply {
  return { status, headers: {}, body: Buffer.from(JSON.stringify(body)) };
}

const config = (c: Partial<ImagePolicyConfig> = {}): ImagePolicyConfig => ({
  kubeConfigFile: '/k', allowTtlMs: 300_000, denyTtlMs: 30_000, retryBackoffMs: 1, defaultAllow: false, ...c,
});

function podAttrs(pod: ApiObject, extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes & { audit: Record<string, string> } {
  const audit: Record<string, string> = {};
  return {
    operation: 'CREATE', resource: pods, namespace: 'team', name: String(pod.metadata?.name ?? ''), object: pod, dryRun: false,
    ctx: { namespace: 'team', annotate: (k: string, v: string) => { audit[k] = v; } }, audit, ...extra,
  } as AdmissionAttributes & { audit: Record<string, string> };
}

const pod = (name: string, images: string[], annotations?: Record<string, string>, init: string[] = []): ApiObject => ({
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })), initContainers: init.map((image, i) => ({ name: `i${i}`, image })) },
});

const rejection = (p: Promise<void>) => p.then(() => undefined, (e) => e);

describe('ImagePolicyWebhook', () => {
  it('sends containers then init containers, the policy annotations and the namespace', async () => {
    const b = fakeBackend();
    const plugin = imagePolicyWebhook({ client: b.poster, apiVersion: API_VERSION, domain: 'orch.io', config: config() });
    await plugin.validate!(podAttrs(pod('a', ['nginx:1', 'sidecar'], {
      'mycluster.image-policy.orch.io/ticket-1234': 'break-glass', 'image-policy.orch.io/no-dot': 'x', other: 'y',
    }, ['init:1'])));
    expect(b.sent).to.deep.equal([{
      apiVersion: API_VERSION, kind: 'ImageReview', metadata: { creationTimestamp: null },
      spec: {
        containers: [{ image: 'nginx:1' }, { image: 'sidecar' }, { image: 'init:1' }],
        annotations: { 'mycluster.image-policy.orch.io/ticket-1234': 'break-glass' },
        namespace: 'team',
      },
      status: { allowed: false },
    }]);
  });

  it('uses the k8s.io names in the kubernetes flavor', async () => {
    const b = fakeBackend();
    const plugin = imagePolicyWebhook({ client: b.poster, apiVersion: 'imagepolicy.k8s.io/v1alpha1', domain: 'k8s.io', config: config() });
    b.answer = () => json({ apiVersion: 'imagepolicy.k8s.io/v1alpha1', kind: 'ImageReview', status: { allowed: true } });
    await plugin.validate!(podAttrs(pod('a', ['x'], { 'a.image-policy.k8s.io/x': '1', 'a.image-policy.orch.io/x': '2' })));
    expect(b.sent[0].apiVersion).to.equal('imagepolicy.k8s.io/v1alpha1');
    expect(b.sent[0].spec.annotations).to.deep.equal({ 'a.image-policy.k8s.io/x': '1' });
  });

  it('reviews pod creates and updates and ephemeral containers; not deletes, other subresources or kinds', async () => {
    const b = fakeBackend();
    const plugin = imagePolicyWebhook({ client: b.poster, apiVersion: API_VERSION, domain: 'orch.io', config: config({ allowTtlMs: 0 }) });
    const p = pod('a', ['x']);
    (p.spec as any).ephemeralContainers = [{ name: 'debug', image: 'busybox' }];
    await plugin.validate!(podAttrs(p, { operation: 'DELETE' }));
    await plugin.validate!(podAttrs(p, { subresource: 'status', operation: 'UPDATE' }));
    await plugin.validate!(podAttrs({ metadata: { name: 'c' }, data: {} }, { resource: configMaps }));
    expect(b.sent).to.have.length(0);
    await plugin.validate!(podAttrs(p, { operation: 'UPDATE' }));
    await plugin.validate!(podAttrs(p, { subresource: 'ephemeralcontainers', operation: 'UPDATE' }));
    expect(b.sent.map((r) => r.spec.containers)).to.deep.equal([[{ image: 'x' }], [{ image: 'busybox' }]]);
  });

  it('refuses with the backend\'s reason, or kube\'s sentence without one', async () => {
    const b = fakeBackend();
    const plugin = imagePolicyWebhook({ client: b.poster, apiVersion: API_VERSION, domain: 'orch.io', config: config() });
    b.answer = () => json({ apiVersion: API_VERSION, kind: 'ImageReview', status: { allowed: false, reason: 'latest tag' } });
    const err = await rejection(plugin.validate!(podAttrs(pod('a', ['nginx:latest']))));
    expect(err).to.include({ code: 403, reason: 'Forbidden', message: 'pods "a" is forbidden: image policy webhook backend denied one or more images: latest tag' });
    b.answer = () => json({ status: { allowed: false } });
    const bare = await rejection(plugin.validate!(podAttrs(pod('b', ['other']))));
    expect(bare.message).to.equal('pods "b" is forbidden: one or more images rejected by webhook backend');
  });

  it('caches answers by review content: allowed for allowTTL, denied for denyTTL, and not failures', async () => {
    const b = fakeBackend();
    const plugin = imagePolicyWebhook({ client: b.poster, apiVersion: API_VERSION, domain: 'orch.io', config: config({ denyTtlMs: 0 }) });
    await plugin.validate!(podAttrs(pod('a', ['x'])));
    await plugin.validate!(podAttrs(pod('b', ['x'], { unrelated: 'annotation' })));
    expect(b.sent).to.have.length(1);
    await plugin.validate!(podAttrs(pod('c', ['x'], { 'z.image-policy.orch.io/t': '1' })));
    await plugin.validate!(podAttrs(pod('d', ['x']), { namespace: 'other' }));
    expect(b.sent).to.have.length(3);

    b.answer = () => json({ status: { allowed: false, reason: 'no' } });
    for (const name of ['e', 'f']) await rejection(plugin.validate!(podAttrs(pod(name, ['denied']))));
    expect(b.sent).to.have.length(5); // denyTTL disabled (-1): refusals are asked each time

    b.answer = () => new Error('connect ECONNREFUSED');
    await rejection(plugin.validate!(podAttrs(pod('g', ['y']))));
    b.answer = () => json({ status: { allowed: true } });
    await plugin.validate!(podAttrs(pod('h', ['y'])));
    expect(b.sent).to.have.length(7);
  });

  it('fails closed by default with the failure, never caching it', async () => {
    const b = fakeBackend();
    const plugin = imagePolicyWebhook({ client: b.poster, apiVersion: API_VERSION, domain: 'orch.io', config: config() });
    b.answer = () => json({ message: 'boom' }, 500);
    const err = await rejection(plugin.validate!(podAttrs(pod('a', ['x']))));
    expect(err.code).to.equal(403);
    expect(err.message).to.match(/^pods "a" is forbidden: Post "https:\/\/images.example\/policy": the webhook answered HTTP 500 \(5 attempts\)$/);
    expect(b.sent).to.have.length(5); // kube's 5 attempts on a 500
  });

  it('fails open with defaultAllow: the pod and the audit record say so', async () => {
    const b = fakeBackend();
    const plugin = imagePolicyWebhook({ client: b.poster, apiVersion: API_VERSION, domain: 'orch.io', config: config({ defaultAllow: true }) });
    for (const answer of [() => new Error('down'), () => json({ apiVersion: 'v1', kind: 'Status' }), () => json({ status: { allowed: 'yes' } })]) {
      b.answer = answer;
      const p = pod('a', ['x'], { keep: 'me' });
      const attrs = podAttrs(p);
      await plugin.validate!(attrs);
      expect(p.metadata!.annotations).to.deep.equal({ keep: 'me', 'alpha.image-policy.orch.io/failed-open': 'true' });
      expect(attrs.audit).to.deep.equal({ 'imagepolicywebhook.image-policy.orch.io/failed-open': 'true' });
    }
  });

  it('records the backend\'s audit annotations under its prefix, from the cache too', async () => {
    const b = fakeBackend();
    const plugin = imagePolicyWebhook({ client: b.poster, apiVersion: API_VERSION, domain: 'orch.io', config: config() });
    b.answer = () => json({ status: { allowed: true, auditAnnotations: { 'audit-required': 'true' } } });
    for (const name of ['a', 'b']) {
      const attrs = podAttrs(pod(name, ['x']));
      await plugin.validate!(attrs);
      expect(attrs.audit).to.deep.equal({ 'imagepolicywebhook.image-policy.orch.io/audit-required': 'true' });
    }
    expect(b.sent).to.have.length(1);
  });

  it('answers a pod that is not an object with kube\'s BadRequest', async () => {
    const plugin = imagePolicyWebhook({ client: fakeBackend().poster, apiVersion: API_VERSION, domain: 'orch.io', config: config() });
    const err = await rejection(plugin.validate!(podAttrs(pod('a', []), { object: undefined })));
    expect(err).to.include({ code: 400, message: 'Resource was marked with kind Pod but was unable to be converted' });
  });
});
