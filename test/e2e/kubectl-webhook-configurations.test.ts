/**
 * kubectl (1.32) with the webhook configuration kinds, against a server with --flavor=kubernetes
 * (admissionregistration.k8s.io): api-resources, `apply -f` of v1 manifests (client-side, then
 * server-side), `get` with kubectl's NAME WEBHOOKS AGE columns, `get -o json` with v1's
 * defaults, `describe`, reading through v1beta1 by its full resource name, a refused manifest as
 * kubectl prints it, and delete.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

const GROUP = 'admissionregistration.k8s.io';

const webhook = (name: string) => ({
  name, clientConfig: { service: { namespace: 'default', name: 'hooks', path: '/admit' } },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  sideEffects: 'None', admissionReviewVersions: ['v1'],
});

describe('kubectl with the webhook configuration kinds', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-webhook-configurations', ['--flavor=kubernetes', `--runtime-config=${GROUP}/v1beta1=true`]);
  const { ok, fails } = e2e;
  const json = async (args: string[]) => JSON.parse((await ok([...args, '-o', 'json'])).stdout);

  it('api-resources lists both kinds, cluster-scoped, at v1', async () => {
    const table = parseTable((await ok(['api-resources', `--api-group=${GROUP}`])).stdout);
    expect(table.rows.map((r) => [r.NAME, r.APIVERSION, r.NAMESPACED, r.KIND])).to.have.deep.members([
      ['mutatingwebhookconfigurations', `${GROUP}/v1`, 'false', 'MutatingWebhookConfiguration'],
      ['validatingwebhookconfigurations', `${GROUP}/v1`, 'false', 'ValidatingWebhookConfiguration'],
      // The group's policy kinds (test/e2e/kubectl-validating-admission-policies.test.ts).
      ['validatingadmissionpolicies', `${GROUP}/v1`, 'false', 'ValidatingAdmissionPolicy'],
      ['validatingadmissionpolicybindings', `${GROUP}/v1`, 'false', 'ValidatingAdmissionPolicyBinding'],
    ]);
  });

  it('apply a v1 manifest, get with the columns, describe, read at v1beta1, delete', async () => {
    const file = e2e.manifest('mutating.yaml', {
      apiVersion: `${GROUP}/v1`, kind: 'MutatingWebhookConfiguration', metadata: { name: 'inject' },
      webhooks: [webhook('inject.example.com'), webhook('label.example.com')],
    });
    expect((await ok(['apply', '-f', file])).stdout).to.contain('mutatingwebhookconfiguration.admissionregistration.k8s.io/inject created');
    const table = parseTable((await ok(['get', 'mutatingwebhookconfigurations'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'WEBHOOKS', 'AGE']);
    expect(table.rows.find((r) => r.NAME === 'inject')).to.deep.include({ WEBHOOKS: '2' });

    const obj = await json(['get', 'mutatingwebhookconfiguration', 'inject']);
    expect(obj.apiVersion).to.equal(`${GROUP}/v1`);
    expect(obj.webhooks[0]).to.include({ failurePolicy: 'Fail', matchPolicy: 'Equivalent', timeoutSeconds: 10, reinvocationPolicy: 'Never' });
    expect(obj.webhooks[0].clientConfig.service.port).to.equal(443);

    // Applying again with a webhook dropped: the strategic merge removes it by name.
    const fewer = e2e.manifest('mutating-2.yaml', {
      apiVersion: `${GROUP}/v1`, kind: 'MutatingWebhookConfiguration', metadata: { name: 'inject' }, webhooks: [webhook('inject.example.com')],
    });
    expect((await ok(['apply', '-f', fewer])).stdout).to.contain('configured');
    expect((await json(['get', 'mutatingwebhookconfiguration', 'inject'])).webhooks.map((h: { name: string }) => h.name)).to.deep.equal(['inject.example.com']);

    const described = (await ok(['describe', 'mutatingwebhookconfiguration', 'inject'])).stdout;
    expect(described).to.match(/Name:\s+inject/).and.contain('inject.example.com');

    const beta = await json(['get', `mutatingwebhookconfigurations.v1beta1.${GROUP}`, 'inject']);
    expect(beta.apiVersion).to.equal(`${GROUP}/v1beta1`);

    expect((await ok(['delete', 'mutatingwebhookconfiguration', 'inject'])).stdout).to.contain('deleted');
    expect((await fails(['get', 'mutatingwebhookconfiguration', 'inject'])).stderr).to.contain('NotFound');
  });

  it('server-side apply of a validating configuration; an invalid one is refused with the field and message', async () => {
    const file = e2e.manifest('validating.yaml', {
      apiVersion: `${GROUP}/v1`, kind: 'ValidatingWebhookConfiguration', metadata: { name: 'policy' }, webhooks: [webhook('policy.example.com')],
    });
    await ok(['apply', '--server-side', '-f', file]);
    expect(parseTable((await ok(['get', 'validatingwebhookconfigurations', 'policy'])).stdout).rows[0]).to.deep.include({ NAME: 'policy', WEBHOOKS: '1' });
    const bad = e2e.manifest('bad.yaml', {
      apiVersion: `${GROUP}/v1`, kind: 'ValidatingWebhookConfiguration', metadata: { name: 'bad' }, webhooks: [{ ...webhook('policy.example.com'), timeoutSeconds: 60 }],
    });
    const res = await fails(['apply', '-f', bad]);
    expect(res.stderr).to.contain('webhooks[0].timeoutSeconds: Invalid value: 60: the timeout value must be between 1 and 30 seconds');
    await ok(['delete', '-f', file]);
  });
});
