/**
 * Reading an AuthorizationConfiguration as kube-apiserver 1.32 does: the versions and groups it
 * accepts, the parsed chain (order, webhook settings, compiled matchConditions), and kube's
 * messages for a duplicate webhook name, duplicate expressions and a wrong kind.
 */
import { expect } from 'chai';
import { parseAuthorizationConfig } from '../../../lib/authz/authorization-config';

const webhook = (name: string, extra: Record<string, unknown> = {}) => ({
  type: 'Webhook', name,
  webhook: {
    timeout: '3s', authorizedTTL: '5m', unauthorizedTTL: '30s', subjectAccessReviewVersion: 'v1beta1',
    failurePolicy: 'Deny', connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: '/etc/hosts' }, ...extra,
  },
});
const doc = (apiVersion: string, authorizers: unknown[]) => JSON.stringify({ apiVersion, kind: 'AuthorizationConfiguration', authorizers });

describe('authz: --authorization-config files', () => {
  for (const v of ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1beta1', 'apiserver.config.k8s.io/v1alpha1', 'apiserver.config.orch.io/v1']) {
    it(`reads ${v}`, () => {
      const c = parseAuthorizationConfig(doc(v, [{ type: 'Node', name: 'node' }, { type: 'RBAC', name: 'rbac' }, webhook('a.example.com')]));
      expect(c.authorizers.map((a) => a.type)).to.deep.equal(['Node', 'RBAC', 'Webhook']);
      expect(c.authorizers[2].webhook).to.deep.include({ timeoutMs: 3000, authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000, subjectAccessReviewVersion: 'v1beta1', failurePolicy: 'Deny' });
    });
  }

  it('reads YAML and compiles the matchConditions', () => {
    const c = parseAuthorizationConfig([
      'apiVersion: apiserver.config.k8s.io/v1', 'kind: AuthorizationConfiguration', 'authorizers:',
      '- type: Webhook', '  name: w.example.com', '  webhook:', '    timeout: 1s', '    authorizedTTL: 1m', '    unauthorizedTTL: 1m',
      '    subjectAccessReviewVersion: v1', '    matchConditionSubjectAccessReviewVersion: v1', '    failurePolicy: NoOpinion',
      '    connectionInfo: {type: KubeConfigFile, kubeConfigFile: /etc/hosts}',
      '    matchConditions:', "    - expression: has(request.resourceAttributes)",
    ].join('\n'));
    expect(c.authorizers[0].webhook?.matchConditions.map((m) => m.expression)).to.deep.equal(['has(request.resourceAttributes)']);
  });

  it('lets Webhook repeat but not its names, nor a webhook\'s expressions', () => {
    expect(() => parseAuthorizationConfig(doc('apiserver.config.k8s.io/v1', [webhook('a.example.com'), webhook('a.example.com')])))
      .to.throw('authorizers[1].name: Duplicate value: "a.example.com"');
    expect(() => parseAuthorizationConfig(doc('apiserver.config.k8s.io/v1', [webhook('a.example.com', {
      matchConditionSubjectAccessReviewVersion: 'v1', matchConditions: [{ expression: 'true' }, { expression: 'true' }],
    })]))).to.throw('authorizers[0].webhook.matchConditions[1].expression: Duplicate value: "true"');
  });

  it('refuses another kind or version', () => {
    expect(() => parseAuthorizationConfig(JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v2', kind: 'AuthorizationConfiguration' })))
      .to.throw('failed to load AuthorizationConfiguration from file: no kind "AuthorizationConfiguration" is registered for version "apiserver.config.k8s.io/v2" in scheme');
  });
});
