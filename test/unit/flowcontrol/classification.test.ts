/**
 * Classification against Kubernetes 1.32's bootstrap configuration: which FlowSchema (and so
 * which priority level) a request lands in, as kube-apiserver would put it, and the flow
 * distinguisher that keeps its users or namespaces apart.
 */
import { expect } from 'chai';
import { Dispatcher } from '../../../lib/flowcontrol/dispatcher';
import { bootstrapConfiguration } from '../../../lib/flowcontrol/bootstrap';
import type { FlowSchema, RequestDigest } from '../../../lib/flowcontrol/types';

const AUTH = 'system:authenticated';

function resource(user: string, groups: string[], verb: string, apiGroup: string, res: string, namespace?: string, subresource?: string): RequestDigest {
  return { user: { name: user, groups }, isResourceRequest: true, verb, apiGroup, resource: res, subresource, namespace, path: '/x' };
}
function nonResource(user: string, groups: string[], verb: string, path: string): RequestDigest {
  return { user: { name: user, groups }, isResourceRequest: false, verb, apiGroup: '', resource: '', path };
}

const TABLE: [string, RequestDigest, string, string, string][] = [
  // what, request, flow schema, priority level, distinguisher
  ['an admin (system:masters)', resource('admin', ['system:masters', AUTH], 'delete', 'apps', 'deployments', 'default'), 'exempt', 'exempt', ''],
  ['anonymous /healthz', nonResource('system:anonymous', ['system:unauthenticated'], 'get', '/healthz'), 'probes', 'exempt', ''],
  ['a /readyz check path', nonResource('u', [AUTH], 'get', '/readyz/etcd'), 'probes', 'exempt', ''],
  ['a node updating its Node status', resource('system:node:n1', ['system:nodes', AUTH], 'patch', '', 'nodes', undefined, 'status'), 'system-node-high', 'node-high', 'system:node:n1'],
  ['a node renewing its Lease', resource('system:node:n1', ['system:nodes', AUTH], 'update', 'coordination.k8s.io', 'leases', 'kube-node-lease'), 'system-node-high', 'node-high', 'system:node:n1'],
  ['a node listing pods', resource('system:node:n1', ['system:nodes', AUTH], 'list', '', 'pods'), 'system-nodes', 'system', 'system:node:n1'],
  ["kube-controller-manager's leader-election lease update", resource('system:kube-controller-manager', [AUTH], 'update', 'coordination.k8s.io', 'leases', 'kube-system'), 'system-leader-election', 'leader-election', 'system:kube-controller-manager'],
  ['kube-controller-manager updating endpoints', resource('system:kube-controller-manager', [AUTH], 'update', '', 'endpoints', 'default'), 'endpoint-controller', 'workload-high', 'system:kube-controller-manager'],
  ['kube-controller-manager listing pods', resource('system:kube-controller-manager', [AUTH], 'list', '', 'pods', 'ns1'), 'kube-controller-manager', 'workload-high', 'ns1'],
  ['kube-scheduler binding a pod', resource('system:kube-scheduler', [AUTH], 'create', '', 'pods', 'ns1', 'binding'), 'kube-scheduler', 'workload-high', 'ns1'],
  ['a kube-system service account taking a configmap lock', resource('system:serviceaccount:kube-system:x', ['system:serviceaccounts', 'system:serviceaccounts:kube-system', AUTH], 'update', '', 'configmaps', 'kube-system'), 'workload-leader-election', 'leader-election', 'system:serviceaccount:kube-system:x'],
  ['a kube-system service account listing pods', resource('system:serviceaccount:kube-system:x', ['system:serviceaccounts', 'system:serviceaccounts:kube-system', AUTH], 'list', '', 'pods', 'default'), 'kube-system-service-accounts', 'workload-high', 'default'],
  ['a service account elsewhere', resource('system:serviceaccount:team:bot', ['system:serviceaccounts', 'system:serviceaccounts:team', AUTH], 'get', '', 'pods', 'team'), 'service-accounts', 'workload-low', 'system:serviceaccount:team:bot'],
  ['an ordinary user', resource('alice', [AUTH], 'list', '', 'configmaps', 'default'), 'global-default', 'global-default', 'alice'],
  ['an ordinary user, cluster-scoped', resource('alice', [AUTH], 'get', '', 'namespaces'), 'global-default', 'global-default', 'alice'],
  ['an ordinary user on /version', nonResource('alice', [AUTH], 'get', '/version'), 'global-default', 'global-default', 'alice'],
  ['a user in no well-known group', resource('bob', ['custom'], 'get', '', 'pods', 'default'), 'catch-all', 'catch-all', 'bob'],
];

describe('flowcontrol classification (Kubernetes 1.32 bootstrap configuration)', () => {
  const d = new Dispatcher({ serverConcurrencyLimit: 600 });
  d.configure(bootstrapConfiguration());
  for (const [what, req, fs, pl, distinguisher] of TABLE) {
    it(`${what} -> ${fs} (${pl})`, () => {
      const c = d.classify(req);
      expect([c.flowSchema.metadata.name, c.level.name, c.distinguisher]).to.deep.equal([fs, pl, distinguisher]);
      // Cached: the same answer the second time.
      expect(d.classify(req).flowSchema.metadata.name).to.equal(fs);
    });
  }

  it('answers from its cache only for the same user name, groups and request shape', () => {
    const x = new Dispatcher({ serverConcurrencyLimit: 600 });
    x.configure(bootstrapConfiguration());
    const name = (r: RequestDigest) => x.classify(r).flowSchema.metadata.name;
    const asAdmin = resource('admin', ['system:masters', AUTH], 'get', '', 'pods', 'default');
    expect(name(asAdmin)).to.equal('exempt');
    // The same name without system:masters, with its groups in another order, or with one more.
    expect(name(resource('admin', [AUTH], 'get', '', 'pods', 'default'))).to.equal('global-default');
    expect(name(resource('admin', [AUTH, 'system:masters'], 'get', '', 'pods', 'default'))).to.equal('exempt');
    expect(name(resource('admin', ['custom'], 'get', '', 'pods', 'default'))).to.equal('catch-all');
    expect(name(resource('admin', ['custom', AUTH], 'get', '', 'pods', 'default'))).to.equal('global-default');
    // The same user and groups, another shape: a node's status against its pods, or another namespace.
    const node = (verb: string, res: string, sub?: string) => resource('system:node:n1', ['system:nodes', AUTH], verb, '', res, undefined, sub);
    expect(name(node('patch', 'nodes', 'status'))).to.equal('system-node-high');
    expect(name(node('list', 'pods'))).to.equal('system-nodes');
    expect(name(nonResource('system:node:n1', ['system:nodes', AUTH], 'get', '/healthz'))).to.equal('probes');
    const kcm = (ns: string) => x.classify(resource('system:kube-controller-manager', [AUTH], 'list', '', 'pods', ns)).distinguisher;
    expect([kcm('ns1'), kcm('ns2')]).to.deep.equal(['ns1', 'ns2']);
    // Past the cache's size it starts again, and answers alike.
    for (let i = 0; i < 10_050; i++) x.classify(resource(`u${i}`, [AUTH], 'get', '', 'pods', 'default'));
    expect(name(asAdmin)).to.equal('exempt');
    expect(name(node('list', 'pods'))).to.equal('system-nodes');
  });

  const custom = (name: string, level: string, precedence: number, rule: FlowSchema['spec']['rules']): FlowSchema =>
    ({ metadata: { name, uid: `uid-${name}` }, spec: { priorityLevelConfiguration: { name: level }, matchingPrecedence: precedence, distinguisherMethod: { type: 'ByUser' }, rules: rule } });

  it('takes the lowest matchingPrecedence, then the name, and skips a FlowSchema whose level is missing (dangling)', () => {
    const boot = bootstrapConfiguration();
    const rule = [{ subjects: [{ kind: 'User', user: { name: 'carol' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['pods', 'pods/log'], namespaces: ['*'] }] }];
    const x = new Dispatcher({ serverConcurrencyLimit: 600 });
    x.configure({
      flowSchemas: [...boot.flowSchemas, custom('b-carol', 'workload-low', 50, rule), custom('a-carol', 'workload-high', 50, rule), custom('dangling', 'nowhere', 10, rule)],
      priorityLevels: boot.priorityLevels,
    });
    const c = x.classify(resource('carol', [AUTH], 'get', '', 'pods', 'default'));
    expect([c.flowSchema.metadata.name, c.level.name]).to.deep.equal(['a-carol', 'workload-high']);
    // `pods/log` is the subresource form; plain `configmaps` is not in the rule.
    expect(x.classify(resource('carol', [AUTH], 'get', '', 'pods', 'default', 'log')).flowSchema.metadata.name).to.equal('a-carol');
    expect(x.classify(resource('carol', [AUTH], 'get', '', 'pods', 'default', 'status')).flowSchema.metadata.name).to.equal('global-default');
    // clusterScope absent: a cluster-scoped request does not match.
    expect(x.classify(resource('carol', [AUTH], 'list', '', 'pods')).flowSchema.metadata.name).to.equal('global-default');
  });

  it('matches non-resource URL prefixes as kube: `/apis/*` and `/metrics` both match below them', () => {
    const boot = bootstrapConfiguration();
    const x = new Dispatcher({ serverConcurrencyLimit: 600 });
    x.configure({
      flowSchemas: [...boot.flowSchemas, custom('apis', 'workload-low', 50, [{ subjects: [{ kind: 'Group', group: { name: '*' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/apis/*', '/metrics'] }] }])],
      priorityLevels: boot.priorityLevels,
    });
    expect(x.classify(nonResource('u', [AUTH], 'get', '/apis/apps')).flowSchema.metadata.name).to.equal('apis');
    expect(x.classify(nonResource('u', [AUTH], 'get', '/metrics/slis')).flowSchema.metadata.name).to.equal('apis');
    expect(x.classify(nonResource('u', [AUTH], 'get', '/metricsx')).flowSchema.metadata.name).to.equal('global-default');
    expect(x.classify(nonResource('u', [AUTH], 'post', '/apis/apps')).flowSchema.metadata.name).to.equal('global-default');
  });

  it('supplies the mandatory exempt and catch-all FlowSchemas and levels when the configuration lacks them', () => {
    const x = new Dispatcher({ serverConcurrencyLimit: 600 });
    x.configure({ flowSchemas: [], priorityLevels: [] });
    expect(x.classify(resource('admin', ['system:masters'], 'get', '', 'pods', 'a')).level.name).to.equal('exempt');
    expect(x.classify(resource('alice', [AUTH], 'get', '', 'pods', 'a')).level.name).to.equal('catch-all');
    // catch-all alone holds all of the server's seats.
    expect(x.level('catch-all')!.limits.nominalCL).to.equal(600);
  });
});

describe('flowcontrol classification in the orch flavor', () => {
  it('matches the bootstrap objects\' kube group names against the served group\'s kube spelling', () => {
    const d = new Dispatcher({ serverConcurrencyLimit: 600 });
    d.configure(bootstrapConfiguration());
    const lease = (alias?: string): RequestDigest => ({
      user: { name: 'system:kube-controller-manager', groups: ['system:authenticated'] }, isResourceRequest: true, verb: 'update',
      apiGroup: 'coordination.orch.io', apiGroupAlias: alias, resource: 'leases', namespace: 'kube-system', path: '/x',
    });
    expect(d.classify(lease('coordination.k8s.io')).flowSchema.metadata.name).to.equal('system-leader-election');
    expect(d.classify(lease()).flowSchema.metadata.name).to.equal('kube-controller-manager');
  });
});
