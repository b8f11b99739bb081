import { expect } from 'chai';
import { flavors } from '../../../lib/naming';
import { bootstrapPolicy } from '../../../lib/authz/rbac/bootstrap';
import { missingRules, reconcileBinding, reconcileRole } from '../../../lib/authz/rbac/reconcile';
import { BindingObject, PolicyRule, RoleObject, Subject } from '../../../lib/registry/rbac/types';

const AUTOUPDATE = 'rbac.authorization.orch.io/autoupdate';
const BOOTSTRAP = 'orch.io/bootstrapping';
const RBAC = 'rbac.authorization.orch.io';

const rule = (verbs: string[], resources: string[], more: Partial<PolicyRule> = {}): PolicyRule => ({ verbs, apiGroups: [''], resources, ...more });
const meta = (name: string, extra: Record<string, unknown> = {}) => ({
  name, labels: { [BOOTSTRAP]: 'rbac-defaults' }, annotations: { [AUTOUPDATE]: 'true' }, ...extra,
});
const expectedRole = (rules: PolicyRule[]): RoleObject => ({ metadata: meta('system:thing'), rules });
/** As stored: the server's fields beside the policy's. */
const stored = <T extends RoleObject | BindingObject>(obj: T, change: (o: T) => void = () => {}): T => {
  const copy = structuredClone(obj);
  copy.metadata = { ...copy.metadata, uid: 'u-1', resourceVersion: '42', creationTimestamp: '2024-01-01T00:00:00Z' };
  change(copy);
  return copy;
};

describe('bootstrap reconcile: roles', () => {
  const pods = rule(['get', 'list', 'watch'], ['pods']);
  const secrets = rule(['get'], ['secrets']);
  const expected = expectedRole([pods, secrets]);

  it('creates a missing role as the policy has it', () => {
    const r = reconcileRole(undefined, expected, AUTOUPDATE);
    expect(r.operation).to.equal('create');
    expect(r.protected).to.equal(false);
    expect(r.object).to.deep.equal(expected);
    expect(r.object).to.not.equal(expected);
  });

  it('leaves an up-to-date role alone', () => {
    const r = reconcileRole(stored(expected), expected, AUTOUPDATE);
    expect(r.operation).to.equal('none');
    expect(r.missing).to.deep.equal([]);
  });

  it('adds a removed rule back and keeps the rules a user added (union, never removal)', () => {
    const userRule = rule(['delete'], ['configmaps']);
    const existing = stored(expected, (o) => { o.rules = [userRule, secrets]; });
    const r = reconcileRole(existing, expected, AUTOUPDATE);
    expect(r.operation).to.equal('update');
    expect(r.missing).to.deep.equal([pods]);
    expect(r.object.rules).to.deep.equal([userRule, secrets, pods]);
    expect(r.object.metadata?.resourceVersion).to.equal('42');
    expect(existing.rules).to.deep.equal([userRule, secrets]);
  });

  it('adds back a rule that lost a verb, whole; a rule covered by broader ones is not missing', () => {
    const lostWatch = stored(expected, (o) => { o.rules = [rule(['get', 'list'], ['pods']), secrets]; });
    const r = reconcileRole(lostWatch, expected, AUTOUPDATE);
    expect(r.missing).to.deep.equal([pods]);
    expect(r.object.rules).to.have.length(3);

    const broader = stored(expected, (o) => { o.rules = [rule(['*'], ['pods', 'secrets'])]; });
    expect(reconcileRole(broader, expected, AUTOUPDATE).operation).to.equal('none');
    const split = stored(expected, (o) => { o.rules = [rule(['get'], ['pods', 'secrets']), rule(['list', 'watch'], ['pods'])]; });
    expect(reconcileRole(split, expected, AUTOUPDATE).operation).to.equal('none');
  });

  it('adds missing bootstrap labels and annotations without overwriting a value the owner set', () => {
    const existing = stored(expected, (o) => {
      o.metadata!.labels = { team: 'a', [BOOTSTRAP]: 'custom' };
      delete o.metadata!.annotations;
    });
    const r = reconcileRole(existing, expected, AUTOUPDATE);
    expect(r.operation).to.equal('update');
    expect(r.object.metadata?.labels).to.deep.equal({ team: 'a', [BOOTSTRAP]: 'custom' });
    expect(r.object.metadata?.annotations).to.deep.equal({ [AUTOUPDATE]: 'true' });
  });

  it('protects a role annotated autoupdate=false, however much it lacks', () => {
    const existing = stored(expected, (o) => { o.rules = []; o.metadata!.annotations = { [AUTOUPDATE]: 'false' }; });
    const r = reconcileRole(existing, expected, AUTOUPDATE);
    expect(r.protected).to.equal(true);
    expect(r.operation).to.equal('update');
    expect(r.missing).to.deep.equal([pods, secrets]);
    // Any other value (or none) does not protect.
    const other = stored(expected, (o) => { o.rules = []; o.metadata!.annotations = { [AUTOUPDATE]: 'False' }; });
    expect(reconcileRole(other, expected, AUTOUPDATE).protected).to.equal(false);
  });

  it('a deleted protected role is created again (there is nothing to protect)', () => {
    expect(reconcileRole(undefined, expected, AUTOUPDATE)).to.include({ operation: 'create', protected: false });
  });

  describe('aggregated roles', () => {
    const sel = (k: string) => ({ matchLabels: { [k]: 'true' } });
    const admin: RoleObject = { metadata: meta('admin'), aggregationRule: { clusterRoleSelectors: [sel(`${RBAC}/aggregate-to-admin`)] } };
    const gathered = [rule(['get'], ['pods']), rule(['create'], ['roles'], { apiGroups: [RBAC] })];

    it('leaves the rules the aggregation controller gathered as they are', () => {
      const existing = stored(admin, (o) => { o.rules = gathered; });
      const r = reconcileRole(existing, admin, AUTOUPDATE);
      expect(r.operation).to.equal('none');
      expect(r.object.rules).to.deep.equal(gathered);
    });

    it('adds a missing selector after those the owner added, whatever order the maps come in', () => {
      const mine = { matchLabels: { b: '1', a: '2' } };
      const existing = stored(admin, (o) => { o.rules = gathered; o.aggregationRule = { clusterRoleSelectors: [mine] }; });
      const r = reconcileRole(existing, admin, AUTOUPDATE);
      expect(r.operation).to.equal('update');
      expect(r.object.aggregationRule).to.deep.equal({ clusterRoleSelectors: [mine, sel(`${RBAC}/aggregate-to-admin`)] });
      expect(r.object.rules).to.deep.equal(gathered);

      const reordered = stored(admin, (o) => {
        o.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { a: '2', b: '1' } }, sel(`${RBAC}/aggregate-to-admin`)] };
      });
      const withMine: RoleObject = { ...admin, aggregationRule: { clusterRoleSelectors: [mine, sel(`${RBAC}/aggregate-to-admin`)] } };
      expect(reconcileRole(reordered, withMine, AUTOUPDATE).operation).to.equal('none');
    });

    it('turns an aggregated role the policy does not aggregate back into a plain one, keeping its rules', () => {
      const existing = stored(expected, (o) => { o.aggregationRule = { clusterRoleSelectors: [sel('x')] }; });
      const r = reconcileRole(existing, expected, AUTOUPDATE);
      expect(r.operation).to.equal('update');
      expect(r.object).to.not.have.property('aggregationRule');
      expect(r.object.rules).to.deep.equal(expected.rules);
    });
  });
});

describe('bootstrap reconcile: bindings', () => {
  const group = (name: string): Subject => ({ kind: 'Group', apiGroup: RBAC, name });
  const expected: BindingObject = {
    metadata: meta('system:discovery'),
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'system:discovery' },
    subjects: [group('system:authenticated')],
  };

  it('creates a missing binding', () => {
    expect(reconcileBinding(undefined, expected, AUTOUPDATE)).to.deep.include({ operation: 'create', protected: false, object: expected });
  });

  it('adds a missing subject after the ones a user added, which stay', () => {
    const alice: Subject = { kind: 'User', apiGroup: RBAC, name: 'alice' };
    const existing = stored(expected, (o) => { o.subjects = [alice]; });
    const r = reconcileBinding(existing, expected, AUTOUPDATE);
    expect(r.operation).to.equal('update');
    expect(r.object.subjects).to.deep.equal([alice, group('system:authenticated')]);
    expect(r.missing).to.deep.equal([group('system:authenticated')]);
  });

  it('counts a subject present when only defaults differ (no apiGroup vs "", no namespace)', () => {
    const sa: Subject = { kind: 'ServiceAccount', name: 'kube-dns', namespace: 'orch-system' };
    const withSa: BindingObject = { ...expected, subjects: [sa] };
    const existing = stored(withSa, (o) => { o.subjects = [{ ...sa, apiGroup: '' }]; });
    expect(reconcileBinding(existing, withSa, AUTOUPDATE).operation).to.equal('none');
    const otherNs = stored(withSa, (o) => { o.subjects = [{ ...sa, namespace: 'default' }]; });
    expect(reconcileBinding(otherNs, withSa, AUTOUPDATE).missing).to.deep.equal([sa]);
  });

  it('recreates a binding whose roleRef differs, from the policy alone', () => {
    const existing = stored(expected, (o) => {
      o.roleRef = { apiGroup: RBAC, kind: 'ClusterRole', name: 'cluster-admin' };
      o.subjects = [group('everyone')];
    });
    const r = reconcileBinding(existing, expected, AUTOUPDATE);
    expect(r.operation).to.equal('recreate');
    expect(r.object).to.deep.equal(expected);
  });

  it('protects a binding annotated autoupdate=false, even from a roleRef change', () => {
    const existing = stored(expected, (o) => {
      o.roleRef = { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' };
      o.subjects = [];
      o.metadata!.annotations = { [AUTOUPDATE]: 'false' };
    });
    expect(reconcileBinding(existing, expected, AUTOUPDATE)).to.include({ protected: true, operation: 'recreate' });
    const noSubjects = stored(expected, (o) => { o.subjects = []; o.metadata!.annotations = { [AUTOUPDATE]: 'false' }; });
    expect(reconcileBinding(noSubjects, expected, AUTOUPDATE)).to.include({ protected: true, operation: 'update' });
  });

  it('a binding the policy lists without subjects gains none and loses none', () => {
    const empty: BindingObject = { ...expected, subjects: undefined };
    const existing = stored(empty, (o) => { o.subjects = [group('system:nodes')]; });
    const r = reconcileBinding(existing, empty, AUTOUPDATE);
    expect(r.operation).to.equal('none');
    expect(r.object.subjects).to.deep.equal([group('system:nodes')]);
  });
});

describe('bootstrap reconcile: missing rules', () => {
  it('a policy rule is missing when any of its atomic rules is not covered, and is then added whole', () => {
    const named = rule(['get'], ['configmaps'], { resourceNames: ['a', 'b'] });
    expect(missingRules([named], [rule(['get'], ['configmaps'], { resourceNames: ['a'] })])).to.deep.equal([]);
    const wanted = rule(['get'], ['configmaps'], { resourceNames: ['a', 'c'] });
    expect(missingRules([named], [wanted])).to.deep.equal([wanted]);
    expect(missingRules([rule(['get'], ['*/scale'], { apiGroups: ['*'] })], [rule(['get'], ['deployments/scale'], { apiGroups: ['apps'] })])).to.deep.equal([]);
    const url = { verbs: ['get'], nonResourceURLs: ['/api', '/apis/apps'] };
    expect(missingRules([{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }], [url])).to.deep.equal([url]);
    expect(missingRules([{ verbs: ['*'], nonResourceURLs: ['*'] }], [url])).to.deep.equal([]);
  });
});

describe('bootstrap policy data', () => {
  for (const naming of Object.values(flavors)) {
    describe(`${naming.flavor} flavor`, () => {
      const policy = bootstrapPolicy(naming);
      const all = [...policy.clusterRoles, ...policy.clusterRoleBindings, ...policy.roles, ...policy.roleBindings];

      it('marks every object with the bootstrap label and autoupdate=true', () => {
        for (const o of all) {
          expect(o.metadata?.labels?.[`${naming.labelDomain}/bootstrapping`], o.metadata?.name).to.equal('rbac-defaults');
          expect(o.metadata?.annotations, o.metadata?.name).to.deep.equal({ [`rbac.authorization.${naming.labelDomain}/autoupdate`]: 'true' });
        }
      });

      it('names each object once per kind and namespace, and every binding a role of the policy', () => {
        const key = (o: RoleObject | BindingObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name}`;
        for (const list of [policy.clusterRoles, policy.clusterRoleBindings, policy.roles, policy.roleBindings]) {
          expect(new Set(list.map(key)).size).to.equal(list.length);
        }
        const clusterRoles = new Set(policy.clusterRoles.map((r) => r.metadata?.name));
        for (const b of policy.clusterRoleBindings) {
          expect(b.roleRef).to.deep.include({ apiGroup: naming.group('rbac.authorization'), kind: 'ClusterRole' });
          expect(clusterRoles.has(b.roleRef.name), b.roleRef.name).to.equal(true);
        }
        const roles = new Set(policy.roles.map(key));
        for (const b of policy.roleBindings) {
          expect(b.roleRef.kind).to.equal('Role');
          expect(roles.has(`${b.metadata?.namespace}/${b.roleRef.name}`), key(b)).to.equal(true);
        }
        expect(new Set(policy.roles.map((r) => r.metadata?.namespace))).to.deep.equal(new Set([naming.systemNamespace, naming.publicNamespace]));
      });

      it('spells every group, signer and subject in the flavor\'s names', () => {
        const other = naming.flavor === 'orch' ? flavors.kubernetes : flavors.orch;
        const text = JSON.stringify(all);
        expect(text).to.not.include(`.${other.domain}"`);
        expect(text).to.not.include(`"${other.labelDomain}/`);
        expect(text).to.not.include(other.systemNamespace);
        expect(text).to.include(`"${naming.labelDomain}/kube-apiserver-client-kubelet"`);
      });

      it('binds each controller role to its service account in the system namespace', () => {
        const gc = policy.clusterRoleBindings.find((b) => b.metadata?.name === 'system:controller:generic-garbage-collector');
        expect(gc?.subjects).to.deep.equal([{ kind: 'ServiceAccount', name: 'generic-garbage-collector', namespace: naming.systemNamespace }]);
        for (const name of ['namespace-controller', 'service-account-controller', 'root-ca-cert-publisher', 'ephemeral-volume-controller',
          'clusterrole-aggregation-controller', 'legacy-service-account-token-cleaner']) {
          expect(clusterRoleNames(policy.clusterRoles)).to.include(`system:controller:${name}`);
        }
      });

      it('keeps every list in a rule sorted, as Kubernetes stores them', () => {
        for (const r of [...policy.clusterRoles, ...policy.roles]) {
          for (const pr of r.rules ?? []) {
            for (const list of [pr.verbs, pr.apiGroups, pr.resources, pr.resourceNames, pr.nonResourceURLs]) {
              if (list) expect(list, r.metadata?.name).to.deep.equal([...list].sort());
            }
          }
        }
      });
    });
  }
});

function clusterRoleNames(roles: RoleObject[]): string[] {
  return roles.map((r) => r.metadata?.name ?? '');
}
