/**
 * The audit annotations the webhook plugins record (read by audit once it exists, so checked
 * here on the plugin with a recording context): `mutation.webhook.admission.<domain>/round_<r>_index_<i>`
 * for every mutating call, `patch.webhook...` with the patch, the webhook's own annotations
 * under `<webhook name>/`, and `failed-open...` for a call failing open. The webhook is a real
 * HTTPS server on loopback.
 */
import { expect } from 'chai';
import { AdmissionWebhookServer, allow, hookEntry, startAdmissionWebhookServer } from '../../helpers/admission-webhook-server';
import { MutatingWebhookPlugin, ValidatingWebhookPlugin } from '../../../lib/admission/webhook/index';
import { AdmissionMetrics } from '../../../lib/admission/metrics';
import { PluginDeps } from '../../../lib/admission/plugin-factory';
import { AdmissionAttributes } from '../../../lib/registry/admission-attributes';
import { flavors } from '../../../lib/naming';
import { ResourceDef } from '../../../lib/scheme/types';

const deps = (naming = flavors.orch): PluginDeps => ({
  naming, config: {} as PluginDeps['config'], stores: new Map(), log: { warn: () => undefined, info: () => undefined } as unknown as PluginDeps['log'],
  namespaces: { get: async () => ({ metadata: { name: 'default' } }) }, authorization: {}, metrics: new AdmissionMetrics(),
  pluginConfig: undefined, configFile: '', caPem: '',
});

const configmaps = { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true, subresources: [], strategy: {} } as unknown as ResourceDef;

function attrsRecording(annotations: Record<string, string>): AdmissionAttributes {
  return {
    operation: 'CREATE', resource: configmaps, namespace: 'default', name: 'cm', dryRun: false,
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { a: '1' } },
    ctx: { annotate: (k, v) => { annotations[k] = v; }, warn: () => undefined },
    reinvocation: { reinvoke: false, isReinvoke: false, state: new Map() },
  };
}

describe('webhook audit annotations', function () {
  this.timeout(20_000);
  let hooks: AdmissionWebhookServer;
  before(async () => { hooks = await startAdmissionWebhookServer(); });
  after(async () => { await hooks.stop(); });

  it('records each mutating call, its patch and the webhook\'s annotations (kubernetes flavor: k8s.io)', async () => {
    const plugin = new MutatingWebhookPlugin(deps(flavors.kubernetes));
    plugin.core.source.index.upsert({ metadata: { name: 'a-config' }, webhooks: [hookEntry(hooks, '/patcher'), hookEntry(hooks, '/quiet')] });
    const patch = [{ op: 'add', path: '/data/b', value: '2' }];
    hooks.handlers.set('/patcher', (c) => allow(c, { auditAnnotations: { checked: 'yes' } }, patch));
    const annotations: Record<string, string> = {};
    const attrs = attrsRecording(annotations);
    await plugin.admit(attrs);
    expect(attrs.object!.data).to.deep.equal({ a: '1', b: '2' });
    expect(attrs.reinvocation!.reinvoke).to.equal(true);
    expect(annotations).to.deep.equal({
      'patcher.hooks.test.io/checked': 'yes',
      'patch.webhook.admission.k8s.io/round_0_index_0': JSON.stringify({ configuration: 'a-config', webhook: 'patcher.hooks.test.io', patch, patchType: 'JSONPatch' }),
      'mutation.webhook.admission.k8s.io/round_0_index_0': '{"configuration":"a-config","webhook":"patcher.hooks.test.io","mutated":true}',
      'mutation.webhook.admission.k8s.io/round_0_index_1': '{"configuration":"a-config","webhook":"quiet.hooks.test.io","mutated":false}',
    });
  });

  it('records a call failing open, in both phases', async () => {
    const down = { clientConfig: { url: 'https://127.0.0.1:1/x', caBundle: hooks.caBundle }, failurePolicy: 'Ignore' };
    const mutating = new MutatingWebhookPlugin(deps());
    const validating = new ValidatingWebhookPlugin(deps());
    mutating.core.source.index.upsert({ metadata: { name: 'm' }, webhooks: [hookEntry(hooks, '/m-down', down)] });
    validating.core.source.index.upsert({ metadata: { name: 'v' }, webhooks: [hookEntry(hooks, '/ok'), hookEntry(hooks, '/v-down', down)] });
    const annotations: Record<string, string> = {};
    const attrs = attrsRecording(annotations);
    await mutating.admit(attrs);
    await validating.validate(attrs);
    expect(annotations['failed-open.mutation.webhook.admission.orch.io/round_0_index_0']).to.equal('m-down.hooks.test.io');
    expect(annotations['failed-open.validating.webhook.admission.orch.io/round_0_index_1']).to.equal('v-down.hooks.test.io');
    expect(annotations['mutation.webhook.admission.orch.io/round_0_index_0']).to.equal('{"configuration":"m","webhook":"m-down.hooks.test.io","mutated":false}');
  });
});
