/**
 * The ABAC policy file and authorizer: parsing as kube-apiserver reads the file (both
 * apiVersion spellings, v1beta1's `*` subject, legacy v0 lines, comments) and refuses bad lines
 * with their number; matching as Kubernetes' ABAC tests decide (subjects, readonly, namespaces,
 * API groups, non-resource paths); RulesFor.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AuthorizationAttributes } from '../../../lib/authz/attributes';
import { AbacAuthorizer } from '../../../lib/authz/abac-authorizer';
import { AbacPolicy, parsePolicyFile, readPolicyFile } from '../../../lib/authz/abac-policy';
import { UserInfo } from '../../../lib/meta/user';

const K8S = 'abac.authorization.kubernetes.io/v1beta1';
const ORCH = 'abac.authorization.orch.io/v1beta1';
const line = (spec: Record<string, unknown>, apiVersion = K8S) => JSON.stringify({ apiVersion, kind: 'Policy', spec });

const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };
const bob: UserInfo = { name: 'bob', groups: ['devs', 'system:authenticated'] };
const carol: UserInfo = { name: 'carol', groups: ['system:authenticated'] };
const anonymous: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

function res(user: UserInfo, verb: string, resource: string, namespace = '', apiGroup = ''): AuthorizationAttributes {
  return { user, verb, isResourceRequest: true, path: '', apiGroup, apiVersion: 'v1', resource, subresource: '', namespace, name: '' };
}
function nonRes(user: UserInfo, verb: string, p: string): AuthorizationAttributes {
  return { user, verb, isResourceRequest: false, path: p, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
}

describe('ABAC policy file', () => {
  it('reads one policy per line, skipping blank lines and # comments, with both apiVersion spellings', () => {
    const policies = parsePolicyFile([
      '# who may do what',
      line({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }),
      '',
      '   # an indented comment',
      `  ${line({ group: 'devs', readonly: true, namespace: 'team', resource: 'pods', apiGroup: '' }, ORCH)}  \r`,
      line({ user: 'carol', nonResourcePath: '/healthz' }),
    ].join('\n'));
    expect(policies).to.deep.equal([
      { user: 'alice', group: '', readonly: false, apiGroup: '*', resource: '*', namespace: '*', nonResourcePath: '', line: 2 },
      { user: '', group: 'devs', readonly: true, apiGroup: '', resource: 'pods', namespace: 'team', nonResourcePath: '', line: 5 },
      { user: 'carol', group: '', readonly: false, apiGroup: '', resource: '', namespace: '', nonResourcePath: '/healthz', line: 6 },
    ]);
  });

  it('turns a * user or group into every authenticated user (v1beta1 conversion)', () => {
    const [byUser, byGroup] = parsePolicyFile([line({ user: '*', nonResourcePath: '*' }), line({ group: '*', nonResourcePath: '*' })].join('\n'));
    expect([byUser.user, byUser.group, byGroup.user, byGroup.group]).to.deep.equal(['', 'system:authenticated', '', 'system:authenticated']);
  });

  it('reads legacy unversioned lines with v0 defaults, and warns about them', () => {
    const warnings: string[] = [];
    const [all, scoped] = parsePolicyFile(['{"readonly": true}', '{"user": "bob", "namespace": "team"}'].join('\n'), (m) => warnings.push(m));
    expect(all).to.deep.equal({ user: '', group: 'system:authenticated', readonly: true, apiGroup: '*', resource: '*', namespace: '*', nonResourcePath: '*', line: 1 });
    expect(scoped).to.deep.equal({ user: 'bob', group: '', readonly: false, apiGroup: '*', resource: '*', namespace: 'team', nonResourcePath: '', line: 2 });
    expect(warnings).to.deep.equal([`2 unversioned (v0) policies: write them as ${K8S} Policy objects`]);
  });

  it('warns about a policy that names no subject (it can match no one)', () => {
    const warnings: string[] = [];
    parsePolicyFile(line({ namespace: '*', resource: '*', apiGroup: '*' }), (m) => warnings.push(m));
    expect(warnings).to.deep.equal(['line 1: the policy names neither user nor group, so it matches no one']);
  });

  const bad: Array<[string, string, RegExp]> = [
    ['not JSON', '{"apiVersion": ', /^line 2: not JSON: /],
    ['a JSON array', '[1]', /^line 2: not a JSON object$/],
    ['an unknown apiVersion', line({ user: 'a' }, 'abac.authorization.example.com/v1beta1'), /^line 2: apiVersion "abac.authorization.example.com\/v1beta1" is not one of abac.authorization.kubernetes.io\/v1beta1, abac.authorization.orch.io\/v1beta1$/],
    ['a kind without apiVersion', '{"kind": "Policy", "spec": {"user": "a"}}', /^line 2: apiVersion "" is not one/],
    ['another kind', JSON.stringify({ apiVersion: K8S, kind: 'Role', spec: {} }), /^line 2: kind "Role" is not Policy$/],
    ['no spec', JSON.stringify({ apiVersion: K8S, kind: 'Policy' }), /^line 2: spec must be an object$/],
    ['a misspelt field', line({ user: 'a', namspace: 'x' }), /^line 2: unknown field "namspace" in spec$/],
    ['a number as user', line({ user: 7 }), /^line 2: spec.user must be a string$/],
    ['readonly as a string', line({ user: 'a', readonly: 'yes' }), /^line 2: spec.readonly must be true or false$/],
    ['an unknown top-level field', JSON.stringify({ apiVersion: K8S, kind: 'Policy', spec: {}, metadata: {} }), /^line 2: unknown field "metadata" in the policy$/],
  ];
  for (const [what, text, message] of bad) {
    it(`refuses ${what}, naming the line`, () => {
      expect(() => parsePolicyFile(`# first\n${text}\n${line({ user: 'x' })}`)).to.throw(message);
    });
  }

  describe('readPolicyFile', () => {
    let dir: string;
    before(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'abac-')); });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('names the flag, the file and the line of the first bad line', () => {
      const file = path.join(dir, 'bad.jsonl');
      writeFileSync(file, `${line({ user: 'a', nonResourcePath: '*' })}\n\n{"oops"\n`);
      expect(() => readPolicyFile(file)).to.throw(`--authorization-policy-file ${file}: line 3: not JSON:`);
    });

    it('names the flag and the file when it cannot be read', () => {
      const file = path.join(dir, 'missing.jsonl');
      expect(() => readPolicyFile(file)).to.throw(`--authorization-policy-file ${file}: ENOENT`);
    });
  });
});

describe('AbacAuthorizer', () => {
  const policies: AbacPolicy[] = parsePolicyFile([
    line({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }),
    line({ user: 'alice', nonResourcePath: '*' }),
    line({ group: 'devs', readonly: true, namespace: 'team', resource: 'pods', apiGroup: '' }),
    line({ user: 'bob', namespace: 'team', resource: 'deployments', apiGroup: 'apps' }),
    line({ user: 'bob', readonly: true, nonResourcePath: '/apis/*' }),
    line({ user: 'carol', namespace: '', resource: 'namespaces', apiGroup: '' }),
    line({ user: '*', readonly: true, nonResourcePath: '/version' }),
    line({ group: 'system:unauthenticated', readonly: true, nonResourcePath: '/healthz' }),
  ].join('\n'));
  const abac = new AbacAuthorizer(policies);

  const table: Array<[string, AuthorizationAttributes, boolean]> = [
    ['alice: any verb on any resource, namespace and group', res(alice, 'delete', 'secrets', 'kube-system'), true],
    ['alice: cluster-scoped resources too (namespace *)', res(alice, 'create', 'clusterroles', '', 'rbac.authorization.k8s.io'), true],
    ['alice: every non-resource path', nonRes(alice, 'post', '/logs/x'), true],
    ['devs (group): read pods in team', res(bob, 'list', 'pods', 'team'), true],
    ['devs: watch pods in team', res(bob, 'watch', 'pods', 'team'), true],
    ['devs: readonly refuses create', res(bob, 'create', 'pods', 'team'), false],
    ['devs: readonly refuses deletecollection', res(bob, 'deletecollection', 'pods', 'team'), false],
    ['devs: pods in another namespace', res(bob, 'get', 'pods', 'other'), false],
    ['devs: pods of another group of the same name', res(bob, 'get', 'pods', 'team', 'example.com'), false],
    ['bob: write deployments in apps', res(bob, 'update', 'deployments', 'team', 'apps'), true],
    ['bob: deployments in the core group are not apps', res(bob, 'get', 'deployments', 'team'), false],
    ['bob: read under /apis/', nonRes(bob, 'get', '/apis/apps/v1'), true],
    ['bob: /apis itself is not under /apis/*', nonRes(bob, 'get', '/apis'), false],
    ['bob: readonly path refuses post', nonRes(bob, 'post', '/apis/x'), false],
    ['carol: namespace "" matches cluster-scoped requests', res(carol, 'create', 'namespaces'), true],
    ['carol: namespace "" does not match a namespaced request', res(carol, 'get', 'namespaces', 'team'), false],
    ['carol: a resource policy grants no path', nonRes(carol, 'get', '/namespaces'), false],
    ['* user: every authenticated user reads /version', nonRes(carol, 'get', '/version'), true],
    ['* user: not the anonymous user', nonRes(anonymous, 'get', '/version'), false],
    ['system:unauthenticated group: anonymous reads /healthz', nonRes(anonymous, 'get', '/healthz'), true],
    ['system:unauthenticated group: not /healthz/etcd (exact path)', nonRes(anonymous, 'get', '/healthz/etcd'), false],
    ['a user with no policy', res({ name: 'dave', groups: ['system:authenticated'] }, 'get', 'pods', 'team'), false],
  ];
  for (const [what, attrs, allowed] of table) {
    it(`${allowed ? 'allows' : 'has no opinion on'} ${what}`, () => {
      expect(abac.authorize(attrs)).to.deep.equal(allowed
        ? { decision: 'allow', reason: '' }
        : { decision: 'no-opinion', reason: 'No policy matched.' });
    });
  }

  it('matches a prefix path without a slash before the * (Kubernetes trims the stars)', () => {
    const a = new AbacAuthorizer(parsePolicyFile(line({ user: 'x', nonResourcePath: '/foo*' })));
    const x = { name: 'x', groups: [] };
    expect(a.authorize(nonRes(x, 'get', '/foobar')).decision).to.equal('allow');
    expect(a.authorize(nonRes(x, 'get', '/fo')).decision).to.equal('no-opinion');
  });

  it('needs both user and group to match when a policy names both', () => {
    const a = new AbacAuthorizer(parsePolicyFile(line({ user: 'bob', group: 'ops', nonResourcePath: '*' })));
    expect(a.authorize(nonRes(bob, 'get', '/x')).decision).to.equal('no-opinion');
    expect(a.authorize(nonRes({ name: 'bob', groups: ['ops'] }, 'get', '/x')).decision).to.equal('allow');
  });

  describe('rulesFor', () => {
    it('lists the rules of the policies of the user whose namespace is * or the one asked', () => {
      expect(abac.rulesFor(bob, 'team')).to.deep.equal({
        rules: [
          { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] },
          { verbs: ['*'], apiGroups: ['apps'], resources: ['deployments'] },
        ],
        incomplete: false, errors: [],
      });
      expect(abac.rulesFor(bob, 'other').rules).to.deep.equal([]);
    });

    it('lists path policies (namespace "") only for the cluster scope, as Kubernetes does', () => {
      expect(abac.rulesFor(alice, 'anywhere').rules).to.deep.equal([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
      expect(abac.rulesFor(bob, '').rules).to.deep.equal([
        { verbs: ['get', 'list', 'watch'], nonResourceURLs: ['/apis/*'] },
        { verbs: ['get', 'list', 'watch'], nonResourceURLs: ['/version'] },
      ]);
    });

    it('gives the anonymous user only what names system:unauthenticated', () => {
      expect(abac.rulesFor(anonymous, '').rules).to.deep.equal([
        { verbs: ['get', 'list', 'watch'], nonResourceURLs: ['/healthz'] },
      ]);
    });
  });
});
