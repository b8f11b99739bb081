/**
 * kubectl 1.32 against `--emulated-version=1.20` (the machines' kubectl dispatcher has no 1.20
 * binary and runs its own 1.32): `version` names the emulated release, `api-versions` lists
 * release 1.20's versions (the removed ones included, the later ones not), a manifest at a removed
 * version applies, and `get` reads it by the resource's full name and by its short name.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

describe('kubectl with --emulated-version=1.20', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-emulated', ['--flavor=kubernetes', '--emulated-version=1.20']);
  const { ok } = e2e;

  it('version: the server is v1.20.0-orch', async () => {
    expect((await ok(['version'])).stdout).to.contain('Server Version: v1.20.0-orch');
  });

  it('api-versions: release 1.20\'s versions, the removed ones included', async () => {
    const versions = (await ok(['api-versions'])).stdout.trim().split('\n');
    expect(versions).to.include.members(['policy/v1beta1', 'discovery.k8s.io/v1beta1', 'admissionregistration.k8s.io/v1beta1', 'admissionregistration.k8s.io/v1', 'v1']);
    expect(versions).not.to.include.members(['policy/v1']);
    expect(versions).not.to.include('flowcontrol.apiserver.k8s.io/v1');
  });

  it('apply of a manifest at policy/v1beta1, then get by the full name and by pdb', async () => {
    const manifest = e2e.manifest('pdb.yaml', {
      apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', metadata: { name: 'web', namespace: 'default' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    });
    const applied = await ok(['apply', '-f', manifest]);
    expect(applied.stdout).to.contain('poddisruptionbudget.policy/web created');
    expect(applied.stderr, 'policy/v1beta1 is not deprecated yet at 1.20').not.to.contain('deprecated');
    const full = parseTable((await ok(['get', 'poddisruptionbudgets.v1beta1.policy'])).stdout);
    expect(full.rows.map((r) => r.NAME)).to.deep.equal(['web']);
    const read = () => ok(['get', 'pdb', 'web', '-o', 'jsonpath={.apiVersion} {.spec.minAvailable} {.metadata.generation}']);
    expect((await read()).stdout).to.equal('policy/v1beta1 1 1');
    // Applied again: kubectl patches the selector whole (patchStrategy replace, so it says
    // "configured", as against Kubernetes), and the budget does not change.
    await ok(['apply', '-f', manifest]);
    expect((await read()).stdout).to.equal('policy/v1beta1 1 1');
  });
});
