/**
 * Server warnings as kubectl (1.32) prints them, against a server with --flavor=kubernetes:
 * reading through the deprecated admissionregistration.k8s.io/v1beta1 prints Kubernetes'
 * deprecation warning (v1 prints none), and applying a manifest with an unknown field under
 * `--validate=warn` (server-side field validation Warn) prints the field's warning; with
 * `--validate=strict` the server refuses it.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';

const GROUP = 'admissionregistration.k8s.io';

describe('kubectl prints the server\'s warnings', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-warnings', ['--flavor=kubernetes', `--runtime-config=${GROUP}/v1beta1=true`]);
  const { ok, fails } = e2e;
  const warnings = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('Warning: '));

  it('a deprecated version prints its deprecation warning; v1 prints none', async () => {
    const beta = await ok(['get', `mutatingwebhookconfigurations.v1beta1.${GROUP}`]);
    expect(warnings(beta.stderr)).to.deep.equal([
      `Warning: ${GROUP}/v1beta1 MutatingWebhookConfiguration is deprecated in v1.16+, unavailable in v1.22+; use ${GROUP}/v1 MutatingWebhookConfiguration`,
    ]);
    const validating = await ok(['get', `validatingwebhookconfigurations.v1beta1.${GROUP}`, '-o', 'name']);
    expect(warnings(validating.stderr)).to.deep.equal([
      `Warning: ${GROUP}/v1beta1 ValidatingWebhookConfiguration is deprecated in v1.16+, unavailable in v1.22+; use ${GROUP}/v1 ValidatingWebhookConfiguration`,
    ]);
    expect(warnings((await ok(['get', 'mutatingwebhookconfigurations'])).stderr)).to.deep.equal([]);
  });

  it('apply with an unknown field warns under --validate=warn and is refused under --validate=strict', async () => {
    const file = e2e.manifest('cm.yaml', {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'warned', namespace: 'default' }, data: { a: '1' }, bogus: 'x',
    });
    const strict = await fails(['apply', '--validate=strict', '-f', file]);
    expect(strict.stderr).to.contain('unknown field "bogus"');
    const applied = await ok(['apply', '--validate=warn', '-f', file]);
    expect(applied.stdout).to.contain('configmap/warned created');
    expect(warnings(applied.stderr)).to.deep.equal(['Warning: unknown field "bogus"']);
    const obj = JSON.parse((await ok(['get', 'configmap', 'warned', '-o', 'json'])).stdout);
    expect(obj).to.not.have.property('bogus');
  });
});
