import { expect } from 'chai';
import { AuthorizationAttributes } from '../../../lib/authz/attributes';
import { PolicyIndex } from '../../../lib/authz/rbac/policy-index';
import { RbacAuthorizer } from '../../../lib/authz/rbac/rbac-authorizer';
import { ruleAllows } from '../../../lib/authz/rbac/rule-match';
import { BindingObject, PolicyRule, RoleObject } from '../../../lib/registry/rbac/types';
import { UserInfo } from '../../../lib/meta/user';

const RBAC = 'rbac.authorization.orch.io';
const bob: UserInfo = { name: 'bob', groups: ['devs', 'system:authenticated'] };
const sa: UserInfo = { name: 'system:serviceaccount:team:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'] };

function req(user: UserInfo, verb: string, resource: string, opts: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return {
    user, verb, isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', resource, subresource: '', namespace: '', name: '', ...opts,
  };
}
const path = (user: UserInfo, verb: string, p: string): AuthorizationAttributes =>
  ({ user, verb, isResourceRequest: false, path: p, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' });

const clusterRole = (name: string, rules: PolicyRule[]): RoleObject => ({ kind: 'ClusterRole', metadata: { name }, rules });
const role = (namespace: string, name: string, rules: PolicyRule[]): RoleObject => ({ kind: 'Role', metadata: { namespace, name }, rules });
const binding = (name: string, roleRef: { kind: string; name: string }, subjects: BindingObject['subjects'], namespace?: string): BindingObject =>
  ({ metadata: { name, ...(namespace ? { namespace } : {}) }, roleRef: { apiGroup: RBAC, ...roleRef }, subjects });

describe('RBAC rule matching', () => {
  const rule = (r: Partial<PolicyRule>): PolicyRule => ({ verbs: ['get'], apiGroups: [''], resources: ['pods'], ...r });

  it('matches verb, group and resource exactly, or by *', () => {
    expect(ruleAllows(req(bob, 'get', 'pods'), rule({}))).to.equal(true);
    expect(ruleAllows(req(bob, 'list', 'pods'), rule({}))).to.equal(false);
    expect(ruleAllows(req(bob, 'get', 'pods', { apiGroup: 'apps' }), rule({}))).to.equal(false);
    expect(ruleAllows(req(bob, 'delete', 'deployments', { apiGroup: 'apps' }), rule({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }))).to.equal(true);
  });

  it('names a subresource as resource/subresource; */subresource matches it on any resource; a plain resource rule does not', () => {
    const status = req(bob, 'update', 'pods', { subresource: 'status', name: 'p' });
    expect(ruleAllows(status, rule({ verbs: ['update'] }))).to.equal(false);
    expect(ruleAllows(status, rule({ verbs: ['update'], resources: ['pods/status'] }))).to.equal(true);
    expect(ruleAllows(status, rule({ verbs: ['update'], resources: ['*/status'] }))).to.equal(true);
    expect(ruleAllows(status, rule({ verbs: ['update'], resources: ['*/scale'] }))).to.equal(false);
    expect(ruleAllows(req(bob, 'update', 'pods', { name: 'p' }), rule({ verbs: ['update'], resources: ['*/status'] }))).to.equal(false);
  });

  it('resourceNames restrict to those names, and never match a request without a name (list, create)', () => {
    const named = rule({ verbs: ['get', 'list', 'create'], resourceNames: ['a'] });
    expect(ruleAllows(req(bob, 'get', 'pods', { name: 'a' }), named)).to.equal(true);
    expect(ruleAllows(req(bob, 'get', 'pods', { name: 'b' }), named)).to.equal(false);
    expect(ruleAllows(req(bob, 'list', 'pods'), named)).to.equal(false);
    expect(ruleAllows(req(bob, 'create', 'pods'), named)).to.equal(false);
  });

  it('non-resource URLs match exactly, by *, or by prefix when they end in *; resource rules never match paths', () => {
    const r: PolicyRule = { verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] };
    expect(ruleAllows(path(bob, 'get', '/healthz'), r)).to.equal(true);
    expect(ruleAllows(path(bob, 'get', '/healthz/etcd'), r)).to.equal(false);
    expect(ruleAllows(path(bob, 'get', '/apis/apps/v1'), r)).to.equal(true);
    expect(ruleAllows(path(bob, 'get', '/apis'), r)).to.equal(false);
    expect(ruleAllows(path(bob, 'post', '/healthz'), r)).to.equal(false);
    expect(ruleAllows(path(bob, 'get', '/anything'), { verbs: ['*'], nonResourceURLs: ['*'] })).to.equal(true);
    expect(ruleAllows(path(bob, 'get', '/api'), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] })).to.equal(false);
    expect(ruleAllows(req(bob, 'get', 'pods'), { verbs: ['*'], nonResourceURLs: ['*'] })).to.equal(false);
  });
});

describe('RbacAuthorizer over the PolicyIndex', () => {
  let index: PolicyIndex;
  let rbac: RbacAuthorizer;
  beforeEach(() => {
    index = new PolicyIndex(RBAC);
    rbac = new RbacAuthorizer(index);
    index.upsertClusterRole(clusterRole('pod-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]));
    index.upsertRole(role('team', 'cm-writer', [{ verbs: ['create'], apiGroups: [''], resources: ['configmaps'] }]));
  });

  it('a ClusterRoleBinding to a group grants in every namespace and at the cluster scope', () => {
    index.upsertBinding(binding('devs-read', { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'Group', apiGroup: RBAC, name: 'devs' }]));
    const r = rbac.authorize(req(bob, 'list', 'pods', { namespace: 'x' }));
    expect(r.decision).to.equal('allow');
    expect(r.reason).to.equal('RBAC: allowed by ClusterRoleBinding "devs-read" of ClusterRole "pod-reader" to Group "devs"');
    expect(rbac.authorize(req(bob, 'list', 'pods')).decision).to.equal('allow');
    expect(rbac.authorize(req(bob, 'delete', 'pods', { namespace: 'x', name: 'p' })).decision).to.equal('no-opinion');
  });

  it('a RoleBinding grants only in its namespace, to a Role of that namespace or a ClusterRole', () => {
    index.upsertBinding(binding('b1', { kind: 'Role', name: 'cm-writer' }, [{ kind: 'User', apiGroup: RBAC, name: 'bob' }], 'team'));
    index.upsertBinding(binding('b2', { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'User', apiGroup: RBAC, name: 'bob' }], 'team'));
    expect(rbac.authorize(req(bob, 'create', 'configmaps', { namespace: 'team' })).decision).to.equal('allow');
    expect(rbac.authorize(req(bob, 'create', 'configmaps', { namespace: 'other' })).decision).to.equal('no-opinion');
    expect(rbac.authorize(req(bob, 'get', 'pods', { namespace: 'team', name: 'p' })).reason)
      .to.equal('RBAC: allowed by RoleBinding "b2/team" of ClusterRole "pod-reader" to User "bob"');
    expect(rbac.authorize(req(bob, 'list', 'pods')).decision).to.equal('no-opinion');
  });

  it('service-account subjects match the account user name, the namespace defaulting to the binding\'s', () => {
    index.upsertBinding(binding('b', { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'ServiceAccount', name: 'builder' }], 'team'));
    expect(rbac.authorize(req(sa, 'get', 'pods', { namespace: 'team', name: 'p' })).reason)
      .to.equal('RBAC: allowed by RoleBinding "b/team" of ClusterRole "pod-reader" to ServiceAccount "builder/team"');
    index.upsertBinding(binding('other-ns', { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'ServiceAccount', name: 'builder', namespace: 'elsewhere' }]));
    expect(rbac.authorize(req(sa, 'list', 'pods')).decision).to.equal('no-opinion');
  });

  it('follows changes: removed subjects, removed bindings, changed role rules', () => {
    const b = binding('devs-read', { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'Group', apiGroup: RBAC, name: 'devs' }]);
    index.upsertBinding(b);
    expect(rbac.authorize(req(bob, 'list', 'pods')).decision).to.equal('allow');
    index.upsertBinding({ ...b, subjects: [{ kind: 'User', apiGroup: RBAC, name: 'carol' }] });
    expect(rbac.authorize(req(bob, 'list', 'pods')).decision).to.equal('no-opinion');
    index.upsertBinding(b);
    index.upsertClusterRole(clusterRole('pod-reader', [{ verbs: ['watch'], apiGroups: [''], resources: ['pods'] }]));
    expect(rbac.authorize(req(bob, 'list', 'pods')).decision).to.equal('no-opinion');
    expect(rbac.authorize(req(bob, 'watch', 'pods')).decision).to.equal('allow');
    index.removeBinding(b);
    expect(rbac.authorize(req(bob, 'watch', 'pods')).decision).to.equal('no-opinion');
  });

  it('a binding to a missing role gives no opinion with Kubernetes\' reason', () => {
    index.upsertBinding(binding('dangling', { kind: 'ClusterRole', name: 'ghost' }, [{ kind: 'User', apiGroup: RBAC, name: 'bob' }]));
    index.upsertBinding(binding('dangling-role', { kind: 'Role', name: 'ghost-role' }, [{ kind: 'User', apiGroup: RBAC, name: 'bob' }], 'team'));
    const r = rbac.authorize(req(bob, 'get', 'secrets', { namespace: 'team', name: 's' }));
    expect(r).to.deep.equal({ decision: 'no-opinion', reason: `RBAC: [clusterrole.${RBAC} "ghost" not found, role.${RBAC} "ghost-role" not found]` });
  });

  it('rulesFor lists the cluster-wide and the namespace\'s rules of the user', () => {
    index.upsertBinding(binding('devs-read', { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'Group', apiGroup: RBAC, name: 'devs' }]));
    index.upsertBinding(binding('b1', { kind: 'Role', name: 'cm-writer' }, [{ kind: 'User', apiGroup: RBAC, name: 'bob' }], 'team'));
    expect(rbac.rulesFor(bob, 'team').rules).to.deep.equal([
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }, { verbs: ['create'], apiGroups: [''], resources: ['configmaps'] },
    ]);
    expect(rbac.rulesFor(bob, 'other').rules).to.have.length(1);
  });
});
