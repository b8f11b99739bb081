/**
 * Dynamic admission webhooks and their configuration: credentials for webhook calls from the
 * WebhookAdmissionConfiguration's kubeConfigFile (a token for a URL's host:port, a client
 * certificate for `*.<namespace>.svc:<port>`), a relative kubeConfigFile refused at start, and
 * changes to webhook configurations (update, delete) in effect within two seconds.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { TestServer, WITHOUT_NAMESPACE_DEFAULTS, startTestServer } from '../helpers/server-harness';
import { AdmissionWebhookServer, WebhookConfigs, deny, hookEntry, startAdmissionWebhookServer } from '../helpers/admission-webhook-server';
import { MutatingWebhookPlugin, ValidatingWebhookPlugin } from '../../lib/admission/webhook/index';

const NS = 'configured';
const TOKEN = `webhook-token-${Math.random().toString(36).slice(2)}`;
const b64 = (s: string) => Buffer.from(s).toString('base64');

function admissionConfig(hooks: AdmissionWebhookServer, kubeConfigFile: string): string {
  const webhookConfig = { apiVersion: 'apiserver.config.orch.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile };
  return hooks.writeFile('admission.json', JSON.stringify({
    apiVersion: 'apiserver.config.orch.io/v1', kind: 'AdmissionConfiguration',
    plugins: [
      { name: 'ValidatingAdmissionWebhook', configuration: webhookConfig },
      { name: 'MutatingAdmissionWebhook', configuration: webhookConfig },
    ],
  }));
}

describe('Admission webhooks: credentials and configuration changes', function () {
  this.timeout(120_000);
  let t: TestServer;
  let hooks: AdmissionWebhookServer;
  let configs: WebhookConfigs;
  let n = 0;
  const base = `/api/v1/namespaces/${NS}/configmaps`;
  const cm = () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${++n}` }, data: { a: '1' } });

  before(async () => {
    hooks = await startAdmissionWebhookServer({ serviceNames: ['hooks.webhooks.svc'], requireClientCert: true });
    const client = hooks.clientCertificate('apiserver-client');
    const kubeconfig = hooks.writeFile('webhooks.kubeconfig', JSON.stringify({
      apiVersion: 'v1', kind: 'Config',
      users: [
        { name: `127.0.0.1:${hooks.port}`, user: { token: TOKEN } },
        { name: `*.webhooks.svc:${hooks.port}`, user: { 'client-certificate-data': b64(client.certPem), 'client-key-data': b64(client.keyPem) } },
        { name: '*', user: { token: 'fallback-token' } },
      ],
    }));
    t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS, `--admission-control-config-file=${admissionConfig(hooks, kubeconfig)}`]);
    configs = new WebhookConfigs(t);
    for (const p of t.server.admission.plugins) {
      if (p instanceof ValidatingWebhookPlugin || p instanceof MutatingWebhookPlugin) p.setServiceResolver(async (_ns, _name, port) => ({ host: '127.0.0.1', port }));
    }
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  afterEach(async () => {
    await configs.clear();
    hooks.calls.length = 0;
    hooks.handlers.clear();
  });
  after(async () => {
    await t?.stop();
    await hooks?.stop();
  });

  it('sends the token of the user named after the URL\'s host:port', async () => {
    await configs.create('validating', 'by-url', [hookEntry(hooks, '/url')]);
    expect((await t.post(base, cm())).status).to.equal(201);
    const [c] = hooks.callsTo('/url');
    expect(c.headers.authorization).to.equal(`Bearer ${TOKEN}`);
  });

  it('presents the client certificate of the user matching *.<namespace>.svc:<port> to a service', async () => {
    const service = { namespace: 'webhooks', name: 'hooks', path: '/svc', port: hooks.port };
    await configs.create('mutating', 'by-service', [hookEntry(hooks, '/svc', { clientConfig: { service, caBundle: hooks.caBundle } })]);
    expect((await t.post(base, cm())).status).to.equal(201);
    const [c] = hooks.callsTo('/svc');
    expect(c.clientCn).to.equal('apiserver-client');
    expect(c.headers.authorization).to.equal(undefined);
  });

  it('applies configuration changes within two seconds', async () => {
    await configs.create('validating', 'changing', [hookEntry(hooks, '/changing')]);
    hooks.handlers.set('/now-deny', (c) => deny(c, { message: 'changed' }));
    expect((await t.post(base, cm())).status).to.equal(201);
    const group = t.server.naming.group('admissionregistration');
    const current = (await t.get(`/apis/${group}/v1/validatingwebhookconfigurations/changing`)).body;
    current.webhooks[0].clientConfig.url = hooks.url('/now-deny');
    expect((await t.put(`/apis/${group}/v1/validatingwebhookconfigurations/changing`, current)).status).to.equal(200);
    const changedAt = Date.now();
    let res = await t.post(base, cm());
    while (res.status === 201 && Date.now() - changedAt < 2000) res = await t.post(base, cm());
    expect(res.status).to.equal(400);
    expect(res.body.message).to.equal('admission webhook "changing.hooks.test.io" denied the request: changed');
    expect((await t.del(`/apis/${group}/v1/validatingwebhookconfigurations/changing`)).status).to.equal(200);
    const deletedAt = Date.now();
    res = await t.post(base, cm());
    while (res.status !== 201 && Date.now() - deletedAt < 2000) res = await t.post(base, cm());
    expect(res.status).to.equal(201);
  });

  it('refuses to start with a relative kubeConfigFile', async () => {
    const file = path.join(path.dirname(hooks.writeFile('x', '')), 'relative-admission.json');
    writeFileSync(file, JSON.stringify({
      apiVersion: 'apiserver.config.orch.io/v1', kind: 'AdmissionConfiguration',
      plugins: [{ name: 'ValidatingAdmissionWebhook', configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile: 'hooks.kubeconfig' } }],
    }));
    let failure: Error | undefined;
    try {
      const s = await startTestServer([`--admission-control-config-file=${file}`]);
      await s.stop();
    } catch (err) {
      failure = err as Error;
    }
    expect(failure?.message).to.equal('couldn\'t init admission plugin "ValidatingAdmissionWebhook": kubeConfigFile: Invalid value: "hooks.kubeconfig": must be an absolute file path');
  });
});
