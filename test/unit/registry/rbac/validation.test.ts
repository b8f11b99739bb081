/**
 * The RBAC kinds' validation as kube-apiserver's pkg/apis/rbac/validation answers it: each rule
 * of ValidatePolicyRule, ValidateRoleBindingSubject, the roleRef checks and the immutable roleRef,
 * the aggregation rule's selectors, and the bindings' defaults. Field paths, reasons and messages
 * are compared exactly, since clients show them.
 */
import { expect } from 'chai';
import { FieldError } from '../../../../lib/meta/field-errors';
import { validatePolicyRule, validateRules } from '../../../../lib/registry/rbac/rule-validation';
import { validateSubject } from '../../../../lib/registry/rbac/subject-validation';
import { BindingRules, defaultBinding, validateBinding, validateBindingUpdate } from '../../../../lib/registry/rbac/binding-validation';
import { hasInvalidLabelValues, validateAggregationRule } from '../../../../lib/registry/rbac/cluster-roles/aggregation-rule';
import { BindingObject, PolicyRule } from '../../../../lib/registry/rbac/types';

const G = 'rbac.authorization.k8s.io';
const brief = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${e.message}`);
const types = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);

describe('RBAC validation', () => {
  describe('validatePolicyRule', () => {
    const resourceRule: PolicyRule = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };

    it('accepts a resource rule and a cluster non-resource rule', () => {
      expect(validatePolicyRule(resourceRule, true, 'rules[0]')).to.deep.equal([]);
      expect(validatePolicyRule({ verbs: ['get'], nonResourceURLs: ['/healthz', '/api/*'] }, false, 'rules[0]')).to.deep.equal([]);
      // "*" groups, resources and verbs, resource names and subresources are all plain strings to validation.
      expect(validatePolicyRule({ verbs: ['*'], apiGroups: ['*'], resources: ['*', 'pods/log'], resourceNames: ['a'] }, true, 'r')).to.deep.equal([]);
    });

    it('requires verbs', () => {
      expect(brief(validatePolicyRule({ ...resourceRule, verbs: [] }, false, 'rules[2]')))
        .to.deep.equal(['rules[2].verbs: Required value: verbs must contain at least one value']);
      expect(types(validatePolicyRule({ apiGroups: [''], resources: ['pods'] } as PolicyRule, false, 'rules[0]')))
        .to.deep.equal(['FieldValueRequired rules[0].verbs']);
    });

    it('refuses non-resource URLs in a namespaced rule, printing the list as Go does', () => {
      expect(brief(validatePolicyRule({ verbs: ['get'], nonResourceURLs: ['/healthz', '/x'] }, true, 'rules[0]')))
        .to.deep.equal(['rules[0].nonResourceURLs: Invalid value: []string{"/healthz", "/x"}: namespaced rules cannot apply to non-resource URLs']);
    });

    it('refuses a rule mixing resources and non-resource URLs (and stops there)', () => {
      for (const mix of [{ apiGroups: [''] }, { resources: ['pods'] }, { resourceNames: ['a'] }]) {
        expect(brief(validatePolicyRule({ verbs: ['get'], nonResourceURLs: ['/x'], ...mix }, false, 'rules[1]')))
          .to.deep.equal(['rules[1].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs']);
      }
      expect(validatePolicyRule({ verbs: [], nonResourceURLs: ['/x'], resources: ['pods'] }, true, 'r')).to.have.length(3);
    });

    it('requires apiGroups and resources in a resource rule', () => {
      expect(brief(validatePolicyRule({ verbs: ['get'] }, true, 'rules[0]'))).to.deep.equal([
        'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
        'rules[0].resources: Required value: resource rules must supply at least one resource',
      ]);
      // An empty apiGroups list is not the core group: [""] is.
      expect(types(validatePolicyRule({ verbs: ['get'], apiGroups: [], resources: ['pods'] }, true, 'r'))).to.deep.equal(['FieldValueRequired r.apiGroups']);
    });

    it('allows resourceNames with several resources (a check Kubernetes dropped)', () => {
      expect(validatePolicyRule({ verbs: ['get'], apiGroups: [''], resources: ['pods', 'secrets'], resourceNames: ['a'] }, true, 'r')).to.deep.equal([]);
    });

    it('validateRules indexes each rule, a null rule counting as an empty one', () => {
      const errs = validateRules([resourceRule, null as unknown as PolicyRule], true);
      expect(types(errs)).to.deep.equal(['FieldValueRequired rules[1].verbs', 'FieldValueRequired rules[1].apiGroups', 'FieldValueRequired rules[1].resources']);
      expect(validateRules(null, false)).to.deep.equal([]);
    });
  });

  describe('validateSubject', () => {
    it('accepts users, groups and service accounts with their API groups', () => {
      expect(validateSubject({ kind: 'User', apiGroup: G, name: 'alice@example.com' }, true, G, 's')).to.deep.equal([]);
      expect(validateSubject({ kind: 'Group', apiGroup: G, name: 'system:authenticated' }, false, G, 's')).to.deep.equal([]);
      expect(validateSubject({ kind: 'ServiceAccount', name: 'builder' }, true, G, 's')).to.deep.equal([]);
      expect(validateSubject({ kind: 'ServiceAccount', name: 'builder', namespace: 'ci' }, false, G, 's')).to.deep.equal([]);
    });

    it('requires a name', () => {
      expect(brief(validateSubject({ kind: 'User', apiGroup: G, name: '' }, true, G, 'subjects[0]')))
        .to.deep.equal(['subjects[0].name: Required value']);
      expect(brief(validateSubject({ kind: 'ServiceAccount' }, true, G, 'subjects[0]'))).to.deep.equal(['subjects[0].name: Required value']);
    });

    it('refuses an unknown kind', () => {
      expect(brief(validateSubject({ kind: 'Robot', name: 'r2' }, true, G, 'subjects[1]')))
        .to.deep.equal(['subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"']);
      expect(types(validateSubject(null, true, G, 'subjects[0]'))).to.deep.equal(['FieldValueRequired subjects[0].name', 'FieldValueNotSupported subjects[0].kind']);
    });

    it('wants the RBAC group for users and groups, none for service accounts', () => {
      expect(brief(validateSubject({ kind: 'User', apiGroup: 'example.com', name: 'a' }, true, G, 's')))
        .to.deep.equal([`s.apiGroup: Unsupported value: "example.com": supported values: "${G}"`]);
      expect(brief(validateSubject({ kind: 'Group', name: 'a' }, true, G, 's')))
        .to.deep.equal([`s.apiGroup: Unsupported value: "": supported values: "${G}"`]);
      expect(brief(validateSubject({ kind: 'ServiceAccount', apiGroup: G, name: 'a' }, true, G, 's')))
        .to.deep.equal([`s.apiGroup: Unsupported value: "${G}": supported values: ""`]);
    });

    it('checks a service account name as a DNS subdomain and wants its namespace in a cluster binding', () => {
      const errs = validateSubject({ kind: 'ServiceAccount', name: 'Bad_Name' }, false, G, 'subjects[0]');
      expect(types(errs)).to.deep.equal(['FieldValueInvalid subjects[0].name', 'FieldValueRequired subjects[0].namespace']);
      expect(errs[0].message).to.match(/^Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of/);
      // User names are anything at all.
      expect(validateSubject({ kind: 'User', apiGroup: G, name: 'Bad_Name/with:chars' }, false, G, 's')).to.deep.equal([]);
    });
  });

  describe('bindings', () => {
    const rb: BindingRules = { namespaced: true, roleKinds: ['Role', 'ClusterRole'], rbacGroup: G };
    const crb: BindingRules = { namespaced: false, roleKinds: ['ClusterRole'], rbacGroup: G };
    const binding = (roleRef: Record<string, string>, subjects: unknown[] = []): BindingObject =>
      ({ metadata: { name: 'b' }, roleRef, subjects } as unknown as BindingObject);

    it('accepts a Role or ClusterRole reference of the RBAC group', () => {
      expect(validateBinding(binding({ apiGroup: G, kind: 'Role', name: 'r' }), rb)).to.deep.equal([]);
      expect(validateBinding(binding({ apiGroup: G, kind: 'ClusterRole', name: 'system:node' }), crb)).to.deep.equal([]);
    });

    it('refuses another API group, a Role in a ClusterRoleBinding, a missing or non-path-segment name', () => {
      expect(brief(validateBinding(binding({ apiGroup: 'rbac.authorization.orch.io', kind: 'Role', name: 'r' }), rb)))
        .to.deep.equal([`roleRef.apiGroup: Unsupported value: "rbac.authorization.orch.io": supported values: "${G}"`]);
      expect(brief(validateBinding(binding({ apiGroup: G, kind: 'Role', name: 'r' }), crb)))
        .to.deep.equal(['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"']);
      expect(brief(validateBinding(binding({ apiGroup: G, kind: 'Pod', name: 'r' }), rb)))
        .to.deep.equal(['roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"']);
      expect(brief(validateBinding(binding({ apiGroup: G, kind: 'Role', name: '' }), rb))).to.deep.equal(['roleRef.name: Required value']);
      expect(brief(validateBinding(binding({ apiGroup: G, kind: 'Role', name: 'a/b' }), rb))).to.deep.equal(['roleRef.name: Invalid value: "a/b": may not contain \'/\'']);
      expect(brief(validateBinding(binding({ apiGroup: G, kind: 'Role', name: '..' }), rb))).to.deep.equal(['roleRef.name: Invalid value: "..": may not be \'..\'']);
    });

    it('validates each subject under subjects[i]', () => {
      const errs = validateBinding(binding({ apiGroup: G, kind: 'ClusterRole', name: 'view' }, [{ kind: 'User', apiGroup: G, name: 'a' }, { kind: 'ServiceAccount', name: 'sa' }]), crb);
      expect(brief(errs)).to.deep.equal(['subjects[1].namespace: Required value']);
    });

    it('refuses any change of roleRef, printing the new one as Go does', () => {
      const old = binding({ apiGroup: G, kind: 'ClusterRole', name: 'view' });
      for (const change of [{ name: 'edit' }, { kind: 'Role' }]) {
        const next = binding({ apiGroup: G, kind: 'ClusterRole', name: 'view', ...change });
        const errs = validateBindingUpdate(next, old, rb);
        expect(errs.at(-1)).to.deep.equal({
          type: 'FieldValueInvalid', field: 'roleRef',
          message: `Invalid value: rbac.RoleRef{APIGroup:"${G}", Kind:"${next.roleRef.kind}", Name:"${next.roleRef.name}"}: cannot change roleRef`,
        });
      }
      // Subjects may change.
      expect(validateBindingUpdate(binding({ apiGroup: G, kind: 'ClusterRole', name: 'view' }, [{ kind: 'Group', apiGroup: G, name: 'devs' }]), old, rb)).to.deep.equal([]);
    });

    it('defaults roleRef.apiGroup and User/Group subjects to the RBAC group, in Go field order', () => {
      const b = { metadata: { name: 'b' }, roleRef: { kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'u' }, { name: 'g', kind: 'Group', apiGroup: '' }, { kind: 'ServiceAccount', name: 'sa' }, { kind: 'User', apiGroup: 'x', name: 'v' }] } as unknown as BindingObject;
      defaultBinding(b, G);
      expect(JSON.stringify(b.roleRef)).to.equal(`{"apiGroup":"${G}","kind":"Role","name":"r"}`);
      expect(b.subjects).to.deep.equal([
        { kind: 'User', apiGroup: G, name: 'u' }, { kind: 'Group', apiGroup: G, name: 'g' }, { kind: 'ServiceAccount', name: 'sa' }, { kind: 'User', apiGroup: 'x', name: 'v' },
      ]);
      expect(Object.keys(b.subjects![1])).to.deep.equal(['kind', 'apiGroup', 'name']);
    });

    it('a binding without roleRef gets an apiGroup and is refused for kind and name', () => {
      const b = { metadata: { name: 'b' } } as unknown as BindingObject;
      defaultBinding(b, G);
      expect(b.roleRef).to.deep.equal({ apiGroup: G });
      expect(brief(validateBinding(b, rb))).to.deep.equal(['roleRef.kind: Unsupported value: "": supported values: "Role", "ClusterRole"', 'roleRef.name: Required value']);
    });
  });

  describe('validateAggregationRule', () => {
    const P = 'aggregationRule.clusterRoleSelectors';

    it('accepts selectors by labels and by expressions; absent rule is fine', () => {
      expect(validateAggregationRule({ clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-view': 'true' } }] }, false)).to.deep.equal([]);
      expect(validateAggregationRule({ clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['x'] }, { key: 'b', operator: 'DoesNotExist' }] }] }, false)).to.deep.equal([]);
      expect(validateAggregationRule(undefined, false)).to.deep.equal([]);
    });

    it('needs at least one selector when present', () => {
      for (const rule of [{}, { clusterRoleSelectors: [] }]) {
        expect(brief(validateAggregationRule(rule, false))).to.deep.equal([`${P}: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil`]);
      }
    });

    it('reports a bad selector field by field, then as an invalid label selector', () => {
      expect(brief(validateAggregationRule({ clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Has' }] }] }, false))).to.deep.equal([
        `${P}[0].matchExpressions[0].operator: Invalid value: "Has": not a valid selector operator`,
        `${P}[0]: Invalid value: "null": invalid label selector.`,
      ]);
      expect(brief(validateAggregationRule({ clusterRoleSelectors: [{}, { matchExpressions: [{ key: 'a', operator: 'In' }] }] }, false))).to.deep.equal([
        `${P}[1].matchExpressions[0].values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`,
        `${P}[1]: Invalid value: "null": invalid label selector.`,
      ]);
      expect(brief(validateAggregationRule({ clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }] }, false))[0])
        .to.equal(`${P}[0].matchExpressions[0].values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`);
      const badKey = validateAggregationRule({ clusterRoleSelectors: [{ matchLabels: { '-bad': 'x' } }] }, false);
      expect(types(badKey)).to.deep.equal([`FieldValueInvalid ${P}[0].matchLabels`, `FieldValueInvalid ${P}[0]`]);
    });

    it('checks expression values as label values unless the stored role already had bad ones', () => {
      const rule = { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['not valid!'] }] }] };
      expect(types(validateAggregationRule(rule, false))).to.deep.equal([`FieldValueInvalid ${P}[0].matchExpressions[0].values[0]`, `FieldValueInvalid ${P}[0]`]);
      expect(hasInvalidLabelValues(rule)).to.equal(true);
      expect(hasInvalidLabelValues({ clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] })).to.equal(false);
      // The conversion to a selector still fails, as in Kubernetes.
      expect(types(validateAggregationRule(rule, true))).to.deep.equal([`FieldValueInvalid ${P}[0]`]);
    });
  });
});
