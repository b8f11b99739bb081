/**
 * Dynamic admission webhooks as kubectl (1.32) users meet them, against the server process
 * (--flavor=kubernetes): a mutating webhook's label on what `kubectl apply` created, and
 * `kubectl create` refused by a validating webhook with the webhook's message on stderr.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { AdmissionWebhookServer, allow, deny, startAdmissionWebhookServer } from '../helpers/admission-webhook-server';

const GROUP = 'admissionregistration.k8s.io';

describe('kubectl and admission webhooks', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-admission-webhooks', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;
  let hooks: AdmissionWebhookServer;

  before(async () => {
    hooks = await startAdmissionWebhookServer();
    hooks.handlers.set('/label', (c) => allow(c, {}, [{ op: 'add', path: '/metadata/labels', value: { ...(c.review.request.object.metadata.labels ?? {}), injected: 'by-webhook' } }]));
    hooks.handlers.set('/deny', (c) => (String(c.review.request.name).startsWith('forbidden-')
      ? deny(c, { code: 403, reason: 'Forbidden', message: 'configmaps named forbidden-* are not allowed' }) : allow(c)));
  });
  after(async () => {
    await hooks?.stop();
  });

  const webhook = (name: string, p: string) => ({
    name, clientConfig: { url: hooks.url(p), caBundle: hooks.caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None', admissionReviewVersions: ['v1'],
  });

  /** Applies a configuration and waits until a server-side dry run reaches its webhook. */
  async function install(kind: 'Mutating' | 'Validating', name: string, p: string): Promise<void> {
    const file = e2e.manifest(`${name}.yaml`, { apiVersion: `${GROUP}/v1`, kind: `${kind}WebhookConfiguration`, metadata: { name }, webhooks: [webhook(`${name}.example.com`, p)] });
    await ok(['apply', '-f', file]);
    for (let i = 0; hooks.callsTo(p).length === 0; i++) {
      if (i > 100) throw new Error(`${name} never called`);
      await e2e.kubectl(['create', 'configmap', `probe-${i}`, '--dry-run=server', '-o', 'name']);
      if (hooks.callsTo(p).length === 0) await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('kubectl apply creates the object with the mutating webhook\'s change', async () => {
    await install('Mutating', 'labeler', '/label');
    const file = e2e.manifest('settings.yaml', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', labels: { app: 'demo' } }, data: { mode: 'fast' } });
    expect((await ok(['apply', '-f', file])).stdout).to.contain('configmap/settings created');
    const got = JSON.parse((await ok(['get', 'configmap', 'settings', '-o', 'json'])).stdout);
    expect(got.metadata.labels).to.deep.equal({ app: 'demo', injected: 'by-webhook' });
    expect(got.data).to.deep.equal({ mode: 'fast' });
    const call = hooks.callsTo('/label').find((c) => c.review.request.name === 'settings' && !c.review.request.dryRun)!;
    expect(call.review.apiVersion).to.equal('admission.k8s.io/v1');
    expect(call.review.request.options).to.include({ kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });
  });

  it('kubectl create refused by a validating webhook prints its message', async () => {
    await install('Validating', 'guard', '/deny');
    const refused = await fails(['create', 'configmap', 'forbidden-one', '--from-literal=a=b']);
    expect(refused.stderr.trim()).to.equal(
      'error: failed to create configmap: admission webhook "guard.example.com" denied the request: configmaps named forbidden-* are not allowed');
    expect((await e2e.kubectl(['get', 'configmap', 'forbidden-one'])).code).to.not.equal(0);
    await ok(['create', 'configmap', 'allowed-one', '--from-literal=a=b']);
  });
});
