/**
 * The audit policy's matching, as Kubernetes' policy checker: the first rule that matches decides,
 * each field narrows (users, userGroups, verbs, resources, namespaces, nonResourceURLs), and the
 * omitStages / omitManagedFields of the policy and the chosen rule combine.
 */
import { expect } from 'chai';
import { AuditAttributes, AuditPolicyEvaluator } from '../../../lib/audit/policy-evaluator';
import type { AuditPolicy, AuditPolicyRule } from '../../../lib/audit/types';

const alice = { name: 'alice', groups: ['devs', 'system:authenticated'] };

/** A resource request: `resource` may be `pods/log` (resource and subresource). */
function res(resource: string, o: Partial<AuditAttributes> = {}): AuditAttributes {
  const [r, sub] = resource.split('/');
  return {
    user: alice, verb: 'get', isResourceRequest: true, path: '/api/v1/x', apiGroup: '', resource: r, subresource: sub,
    namespace: 'default', name: 'n1', ...o,
  };
}

function nonRes(p: string, o: Partial<AuditAttributes> = {}): AuditAttributes {
  return { user: alice, verb: 'get', isResourceRequest: false, path: p, apiGroup: '', resource: '', namespace: '', name: '', ...o };
}

/** The level `rule` (followed by nothing) gives `attrs`: the rule's level when it matches, else None. */
function levelOf(rule: Omit<AuditPolicyRule, 'level'>, attrs: AuditAttributes): string {
  return new AuditPolicyEvaluator({ rules: [{ level: 'Metadata', ...rule }] }).evaluate(attrs).level;
}

/** [what, rule, request, matches] */
type Row = [string, Omit<AuditPolicyRule, 'level'>, AuditAttributes, boolean];

function table(rows: Row[]): void {
  for (const [what, rule, attrs, matches] of rows) {
    it(`${matches ? 'matches' : 'does not match'}: ${what}`, () => {
      expect(levelOf(rule, attrs)).to.equal(matches ? 'Metadata' : 'None');
    });
  }
}

describe('AuditPolicyEvaluator', () => {
  describe('rule order', () => {
    const policy: AuditPolicy = {
      rules: [
        { level: 'None', users: ['system:kube-proxy'] },
        { level: 'RequestResponse', resources: [{ group: '', resources: ['secrets'] }] },
        { level: 'Request', verbs: ['create', 'update'] },
        // Never reached for secrets: the second rule already decided.
        { level: 'Metadata', resources: [{ group: '', resources: ['secrets', 'configmaps'] }] },
      ],
    };
    const ev = new AuditPolicyEvaluator(policy);

    it('the first matching rule decides, even when a later one matches too', () => {
      expect(ev.evaluate(res('secrets', { verb: 'create' })).level).to.equal('RequestResponse');
      expect(ev.evaluate(res('configmaps', { verb: 'create' })).level).to.equal('Request');
      expect(ev.evaluate(res('configmaps', { verb: 'get' })).level).to.equal('Metadata');
      expect(ev.evaluate(res('secrets', { user: { name: 'system:kube-proxy', groups: [] } })).level).to.equal('None');
    });

    it('a request no rule matches is not audited (None)', () => {
      expect(ev.evaluate(res('pods', { verb: 'get' })).level).to.equal('None');
      expect(ev.evaluate(nonRes('/healthz')).level).to.equal('None');
    });
  });

  describe('users, userGroups, verbs', () => {
    table([
      ['users: the requestor by name', { users: ['bob', 'alice'] }, res('pods'), true],
      ['users: another user', { users: ['bob'] }, res('pods'), false],
      ['users: an anonymous request (no user) never matches a users rule', { users: ['alice'] }, res('pods', { user: undefined }), false],
      ['userGroups: any of the requestor\'s groups', { userGroups: ['ops', 'devs'] }, res('pods'), true],
      ['userGroups: none of them', { userGroups: ['ops'] }, res('pods'), false],
      ['userGroups: no user', { userGroups: ['system:unauthenticated'] }, res('pods', { user: undefined }), false],
      ['verbs: listed', { verbs: ['get', 'list'] }, res('pods', { verb: 'list' }), true],
      ['verbs: not listed', { verbs: ['get', 'list'] }, res('pods', { verb: 'watch' }), false],
      ['verbs apply to non-resource requests too', { verbs: ['post'] }, nonRes('/logs', { verb: 'get' }), false],
      ['every field must match: users yes, verbs no', { users: ['alice'], verbs: ['delete'] }, res('pods'), false],
      ['a rule with no selectors matches everything', {}, nonRes('/version'), true],
    ]);
  });

  describe('resources', () => {
    table([
      ['group "" is the core group', { resources: [{ group: '', resources: ['pods'] }] }, res('pods'), true],
      ['group "" does not select another group\'s resource of that name', { resources: [{ group: '', resources: ['deployments'] }] }, res('deployments', { apiGroup: 'apps' }), false],
      ['a missing group is the core group', { resources: [{ resources: ['pods'] }] }, res('pods'), true],
      ['a named group', { resources: [{ group: 'apps', resources: ['deployments'] }] }, res('deployments', { apiGroup: 'apps' }), true],
      ['group "*" is any group', { resources: [{ group: '*', resources: ['deployments'] }] }, res('deployments', { apiGroup: 'apps' }), true],
      ['a group with no resources: all of its resources', { resources: [{ group: 'apps' }] }, res('replicasets/scale', { apiGroup: 'apps' }), true],
      ['resources "*": any resource of the group', { resources: [{ group: '', resources: ['*'] }] }, res('configmaps'), true],
      ['resources "*": subresources too', { resources: [{ group: '', resources: ['*'] }] }, res('pods/log'), true],
      ['resources "*" keeps to its group', { resources: [{ group: '', resources: ['*'] }] }, res('deployments', { apiGroup: 'apps' }), false],
      ['"pods/*": the resource itself', { resources: [{ group: '', resources: ['pods/*'] }] }, res('pods'), true],
      ['"pods/*": any of its subresources', { resources: [{ group: '', resources: ['pods/*'] }] }, res('pods/exec'), true],
      ['"pods/*": not another resource', { resources: [{ group: '', resources: ['pods/*'] }] }, res('services'), false],
      ['"*/status": that subresource of any resource', { resources: [{ group: '', resources: ['*/status'] }] }, res('pods/status'), true],
      ['"*/status": not the resource itself', { resources: [{ group: '', resources: ['*/status'] }] }, res('pods'), false],
      ['"*/status": not another subresource', { resources: [{ group: '', resources: ['*/status'] }] }, res('pods/log'), false],
      ['"pods/log": that subresource', { resources: [{ group: '', resources: ['pods/log'] }] }, res('pods/log'), true],
      ['"pods/log": not the pods themselves', { resources: [{ group: '', resources: ['pods/log'] }] }, res('pods'), false],
      ['"pods/log": not another subresource', { resources: [{ group: '', resources: ['pods/log'] }] }, res('pods/exec'), false],
      ['"pods": not its subresources', { resources: [{ group: '', resources: ['pods'] }] }, res('pods/log'), false],
      ['resourceNames: a listed name', { resources: [{ group: '', resources: ['configmaps'], resourceNames: ['cfg', 'n1'] }] }, res('configmaps'), true],
      ['resourceNames: another name', { resources: [{ group: '', resources: ['configmaps'], resourceNames: ['cfg'] }] }, res('configmaps', { name: 'other' }), false],
      ['resourceNames: a list (no name)', { resources: [{ group: '', resources: ['configmaps'], resourceNames: ['cfg'] }] }, res('configmaps', { name: '' }), false],
      ['resourceNames of one entry do not limit another entry', {
        resources: [{ group: '', resources: ['configmaps'], resourceNames: ['cfg'] }, { group: '', resources: ['configmaps/*'] }],
      }, res('configmaps', { name: 'other' }), true],
    ]);
  });

  describe('namespaces', () => {
    table([
      ['a listed namespace', { namespaces: ['kube-system', 'default'] }, res('pods'), true],
      ['another namespace', { namespaces: ['kube-system'] }, res('pods'), false],
      ['"" selects cluster-scoped requests', { namespaces: [''] }, res('nodes', { namespace: '' }), true],
      ['"" does not select namespaced requests', { namespaces: [''] }, res('pods'), false],
      ['namespaces and resources together: both must match', { namespaces: ['default'], resources: [{ group: '', resources: ['secrets'] }] }, res('pods'), false],
      ['namespaces never match a non-resource request', { namespaces: [''] }, nonRes('/metrics'), false],
    ]);
  });

  describe('nonResourceURLs', () => {
    table([
      ['an exact path', { nonResourceURLs: ['/healthz'] }, nonRes('/healthz'), true],
      ['an exact path is not a prefix', { nonResourceURLs: ['/healthz'] }, nonRes('/healthz/etcd'), false],
      ['a trailing * is a prefix: the path itself', { nonResourceURLs: ['/healthz*'] }, nonRes('/healthz'), true],
      ['a trailing * is a prefix: below it', { nonResourceURLs: ['/healthz*'] }, nonRes('/healthz/etcd'), true],
      ['a trailing * is a plain string prefix', { nonResourceURLs: ['/healthz*'] }, nonRes('/healthzfoo'), true],
      ['a trailing * does not match elsewhere', { nonResourceURLs: ['/healthz*'] }, nonRes('/readyz'), false],
      ['a trailing * matches at the start of the path only', { nonResourceURLs: ['/healthz*'] }, nonRes('/debug/healthz'), false],
      ['"/logs/*" does not match "/logs"', { nonResourceURLs: ['/logs/*'] }, nonRes('/logs'), false],
      ['"*" is every non-resource URL', { nonResourceURLs: ['*'] }, nonRes('/openid/v1/jwks'), true],
      ['any of the list', { nonResourceURLs: ['/version', '/metrics'] }, nonRes('/metrics'), true],
    ]);
  });

  describe('resource rules and non-resource rules never cross', () => {
    table([
      ['resources "*" of group "*" against a non-resource request', { resources: [{ group: '*', resources: ['*'] }] }, nonRes('/api'), false],
      ['resources of the core group against a non-resource request', { resources: [{ group: '' }] }, nonRes('/api/v1'), false],
      ['nonResourceURLs "*" against a resource request', { nonResourceURLs: ['*'] }, res('pods'), false],
      ['nonResourceURLs naming the resource request\'s path', { nonResourceURLs: ['/api/*'] }, res('pods', { path: '/api/v1/namespaces/default/pods/n1' }), false],
    ]);
  });

  describe('omitStages and omitManagedFields', () => {
    it('the policy\'s omitStages are joined to the matching rule\'s', () => {
      const ev = new AuditPolicyEvaluator({
        omitStages: ['RequestReceived'],
        rules: [{ level: 'Request', namespaces: ['a'], omitStages: ['ResponseStarted'] }, { level: 'Metadata', namespaces: ['b'] }],
      });
      expect([...ev.evaluate(res('pods', { namespace: 'a' })).omitStages].sort()).to.deep.equal(['RequestReceived', 'ResponseStarted']);
      expect([...ev.evaluate(res('pods', { namespace: 'b' })).omitStages]).to.deep.equal(['RequestReceived']);
      expect([...ev.evaluate(res('pods', { namespace: 'c' })).omitStages]).to.deep.equal(['RequestReceived']);
    });

    it('a rule\'s omitStages do not leak into other rules', () => {
      const ev = new AuditPolicyEvaluator({ rules: [{ level: 'Request', namespaces: ['a'], omitStages: ['RequestReceived'] }, { level: 'Metadata' }] });
      expect(ev.evaluate(res('pods', { namespace: 'a' })).omitStages.has('RequestReceived')).to.equal(true);
      expect(ev.evaluate(res('pods', { namespace: 'b' })).omitStages.size).to.equal(0);
    });

    it('a rule\'s omitManagedFields overrides the policy\'s, which applies when the rule says nothing', () => {
      const policy = (dflt: boolean | undefined): AuditPolicy => ({
        omitManagedFields: dflt,
        rules: [
          { level: 'RequestResponse', namespaces: ['keep'], omitManagedFields: false },
          { level: 'RequestResponse', namespaces: ['omit'], omitManagedFields: true },
          { level: 'RequestResponse' },
        ],
      });
      const omf = (p: AuditPolicy, ns: string) => new AuditPolicyEvaluator(p).evaluate(res('pods', { namespace: ns })).omitManagedFields;
      expect(omf(policy(true), 'keep')).to.equal(false);
      expect(omf(policy(true), 'other')).to.equal(true);
      expect(omf(policy(false), 'omit')).to.equal(true);
      expect(omf(policy(false), 'other')).to.equal(false);
      expect(omf(policy(undefined), 'other')).to.equal(false);
    });
  });
});
