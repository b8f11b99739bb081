/**
 * kubectl (1.32) with ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1): `kubectl apply`
 * of a policy and its binding, `get` printing NAME VALIDATIONS PARAMKIND AGE and NAME POLICYNAME
 * PARAMREF AGE, and a `kubectl create configmap` the policy denies failing with Kubernetes' message
 * while one it accepts is created.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

describe('kubectl with ValidatingAdmissionPolicy', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-vap', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;

  it('applies a policy and a binding; a denied create configmap shows the policy\'s message', async () => {
    const policy = e2e.manifest('policy.yaml', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'small-configmaps' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
        validations: [{ expression: '!has(object.data) || size(object.data) <= 1', messageExpression: '"at most one key, got " + string(size(object.data))' }],
      },
    });
    const binding = e2e.manifest('binding.yaml', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'small-configmaps-binding' },
      spec: { policyName: 'small-configmaps', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'default' } } } },
    });
    expect((await ok(['apply', '-f', policy])).stdout).to.contain('validatingadmissionpolicy.admissionregistration.k8s.io/small-configmaps created');
    expect((await ok(['apply', '-f', binding])).stdout).to.contain('validatingadmissionpolicybinding.admissionregistration.k8s.io/small-configmaps-binding created');
    const policies = parseTable((await ok(['get', 'validatingadmissionpolicies'])).stdout);
    expect(policies.columns).to.deep.equal(['NAME', 'VALIDATIONS', 'PARAMKIND', 'AGE']);
    expect(policies.rows[0]).to.deep.include({ NAME: 'small-configmaps', VALIDATIONS: '1', PARAMKIND: '<unset>' });
    const bindings = parseTable((await ok(['get', 'validatingadmissionpolicybindings'])).stdout);
    expect(bindings.columns).to.deep.equal(['NAME', 'POLICYNAME', 'PARAMREF', 'AGE']);
    expect(bindings.rows[0]).to.deep.include({ NAME: 'small-configmaps-binding', POLICYNAME: 'small-configmaps', PARAMREF: '<unset>' });

    // The plugin follows the policy and binding through its caches: the first refusal may take a moment.
    const deadline = Date.now() + 15_000;
    let refused = await e2e.kubectl(['create', 'configmap', 'big', '--from-literal=a=1', '--from-literal=b=2']);
    while (refused.code === 0 && Date.now() < deadline) {
      await ok(['delete', 'configmap', 'big']);
      await new Promise((r) => setTimeout(r, 200));
      refused = await e2e.kubectl(['create', 'configmap', 'big', '--from-literal=a=1', '--from-literal=b=2']);
    }
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr).to.contain(`configmaps "big" is forbidden: ValidatingAdmissionPolicy 'small-configmaps' with binding 'small-configmaps-binding' denied request: at most one key, got 2`);
    await fails(['get', 'configmap', 'big']);
    expect((await ok(['create', 'configmap', 'small', '--from-literal=a=1'])).stdout).to.contain('configmap/small created');
  });
});
