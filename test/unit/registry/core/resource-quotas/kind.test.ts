/**
 * The ResourceQuota kind's own pieces: one row per rule of Kubernetes' ValidateResourceQuota /
 * ValidateResourceQuotaUpdate (field path, reason and message as kube-apiserver 1.32 answers),
 * kubectl's REQUEST and LIMIT cells, and its protobuf bytes against protoc's.
 */
import { expect } from 'chai';
import { validateResourceQuotaSpec, validateResourceQuotaStatus, validateResourceQuotaUpdate } from '../../../../../lib/registry/core/resource-quotas/validation';
import { quotaCells } from '../../../../../lib/registry/core/resource-quotas/table';
import { encodeMessage, decodeMessage } from '../../../../../lib/scheme/protobuf/message-codec';
import { requireProtoc, protocEncode } from '../../../../helpers/protoc';

type Spec = Parameters<typeof validateResourceQuotaSpec>[0];
const brief = (errs: Array<{ field: string; type: string; message: string }>) => errs.map((e) => [e.field, e.type, e.message]);
const OP_MSG = "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity";

/** [what, spec, the one error Kubernetes answers]. */
const ROWS: Array<[string, Spec, [string, string, string]]> = [
  ['a name that is not a qualified name', { hard: { 'bad name': '1' } },
    ['spec.hard[bad name]', 'FieldValueInvalid', 'Invalid value: "bad name": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')']],
  ['an unqualified name that is no standard resource', { hard: { widgets: '1' } },
    ['spec.hard[widgets]', 'FieldValueInvalid', 'Invalid value: "widgets": must be a standard resource type or fully qualified']],
  ['a standard resource that a quota cannot name', { hard: { storage: '1Gi' } },
    ['spec.hard[storage]', 'FieldValueInvalid', 'Invalid value: "storage": must be a standard resource for quota']],
  ['a negative quantity', { hard: { 'requests.cpu': '-1' } },
    ['spec.hard[requests.cpu]', 'FieldValueInvalid', 'Invalid value: "-1": must be greater than or equal to 0']],
  ['an object count that is not whole', { hard: { pods: '1500m' } },
    ['spec.hard[pods]', 'FieldValueInvalid', 'Invalid value: "1500m": must be an integer']],
  ['an extended resource that is not whole', { hard: { 'example.com/gpu': '500m' } },
    ['spec.hard[example.com/gpu]', 'FieldValueInvalid', 'Invalid value: "500m": must be an integer']],
  ['an unknown scope', { hard: { pods: '1' }, scopes: ['Sometimes'] },
    ['spec.scopes', 'FieldValueInvalid', 'Invalid value: []core.ResourceQuotaScope{"Sometimes"}: unsupported scope']],
  ['a scope that does not apply to a resource', { hard: { configmaps: '1' }, scopes: ['Terminating'] },
    ['spec.scopes', 'FieldValueInvalid', 'Invalid value: []core.ResourceQuotaScope{"Terminating"}: unsupported scope applied to resource']],
  ['BestEffort with a compute resource', { hard: { 'requests.cpu': '1' }, scopes: ['BestEffort'] },
    ['spec.scopes', 'FieldValueInvalid', 'Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource']],
  ['BestEffort with NotBestEffort', { hard: { pods: '1' }, scopes: ['BestEffort', 'NotBestEffort'] },
    ['spec.scopes', 'FieldValueInvalid', 'Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: conflicting scopes']],
  ['a selector scope that is unknown', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'Sometimes', operator: 'Exists' }] } },
    ['spec.scopeSelector.matchExpressions.scopeName', 'FieldValueInvalid', 'Invalid value: "Sometimes": unsupported scope']],
  ['a selector scope that does not apply to a resource', { hard: { secrets: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'Exists' }] } },
    ['spec.scopeSelector.matchExpressions', 'FieldValueInvalid', 'Invalid value: core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{core.ScopedResourceSelectorRequirement{ScopeName:"PriorityClass", Operator:"Exists", Values:[]string(nil)}}}: unsupported scope applied to resource']],
  ['In on a scope that only takes Exists', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'Terminating', operator: 'In', values: ['x'] }] } },
    ['spec.scopeSelector.matchExpressions.operator', 'FieldValueInvalid', `Invalid value: "In": ${OP_MSG}`]],
  ['In without values', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: [] }] } },
    ['spec.scopeSelector.matchExpressions.values', 'FieldValueRequired', "Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"]],
  ['Exists with values', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'Exists', values: ['high'] }] } },
    ['spec.scopeSelector.matchExpressions.values', 'FieldValueInvalid', 'Invalid value: []string{"high"}: must be no value when `operator` is \'Exist\' or \'DoesNotExist\' for scope selector']],
  ['an unknown operator', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'Like', values: ['x'] }] } },
    ['spec.scopeSelector.matchExpressions.operator', 'FieldValueInvalid', 'Invalid value: "Like": not a valid selector operator']],
  ['Terminating with NotTerminating in the selector', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'Terminating', operator: 'Exists' }, { scopeName: 'NotTerminating', operator: 'Exists' }] } },
    ['spec.scopeSelector.matchExpressions', 'FieldValueInvalid', 'Invalid value: []core.ResourceQuotaScope(nil): conflicting scopes']],
];

describe('ResourceQuota kind', () => {
  describe('validation: one row per rule', () => {
    for (const [what, spec, expected] of ROWS) {
      it(what, () => expect(brief(validateResourceQuotaSpec(spec))).to.deep.equal([expected]));
    }

    it('accepts every kind of name a quota may hold', () => {
      const spec: Spec = {
        hard: {
          pods: '10', cpu: '2', 'requests.memory': '1Gi', 'limits.cpu': '4', 'requests.storage': '10Gi', 'hugepages-2Mi': '0',
          'requests.hugepages-1Gi': '2Gi', 'count/configmaps': '3', 'count/widgets.example.com': '1', 'requests.example.com/gpu': '2',
          'gold.storageclass.storage.k8s.io/requests.storage': '5Gi', 'services.loadbalancers': '1', resourcequotas: '1',
        },
      };
      expect(validateResourceQuotaSpec(spec)).to.deep.equal([]);
      const scoped: Spec = { hard: { pods: '1', 'requests.cpu': '1', 'limits.memory': '1Gi' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } };
      expect(validateResourceQuotaSpec(scoped)).to.deep.equal([]);
    });

    it('checks status.hard and status.used as the spec', () => {
      expect(brief(validateResourceQuotaStatus({ hard: { pods: '1' }, used: { pods: '-1' } })))
        .to.deep.equal([['status.used[pods]', 'FieldValueInvalid', 'Invalid value: "-1": must be greater than or equal to 0']]);
    });

    it('keeps scopes immutable on update (order does not matter)', () => {
      const old = { spec: { hard: { pods: '1' }, scopes: ['Terminating', 'NotBestEffort'] } };
      expect(validateResourceQuotaUpdate({ spec: { hard: { pods: '2' }, scopes: ['NotBestEffort', 'Terminating'] } }, old)).to.deep.equal([]);
      expect(brief(validateResourceQuotaUpdate({ spec: { hard: { pods: '1' }, scopes: ['Terminating'] } }, old)))
        .to.deep.equal([['spec.scopes', 'FieldValueInvalid', 'Invalid value: []core.ResourceQuotaScope{"Terminating"}: field is immutable']]);
    });
  });

  describe('REQUEST and LIMIT cells (printResourceQuota)', () => {
    it('lists status.hard sorted, used/hard, limits.* apart, 0 for what is not used yet', () => {
      const obj = { status: { hard: { 'limits.memory': '2Gi', pods: '4', 'limits.cpu': '2', 'count/configmaps': '3', 'requests.cpu': '1' }, used: { pods: '1', 'limits.cpu': '500m' } } };
      expect(quotaCells(obj)).to.deep.equal([
        'count/configmaps: 0/3, pods: 1/4, requests.cpu: 0/1',
        'limits.cpu: 500m/2, limits.memory: 0/2Gi',
      ]);
    });

    it('is empty before the status is written', () => {
      expect(quotaCells({ spec: { hard: { pods: '1' } } })).to.deep.equal(['', '']);
    });
  });

  describe('protobuf', function () {
    this.timeout(30000);
    before(() => requireProtoc());

    it('encodes as protoc does (maps sorted by key, the scope selector a nullable message, status struct empty)', () => {
      const rq = {
        metadata: { name: 'q', namespace: 'default' },
        spec: { hard: { pods: '2', 'count/configmaps': '3' }, scopes: ['NotTerminating'], scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } },
        status: {},
      };
      const vector = protocEncode('k8s.io.api.core.v1.ResourceQuota', `
        metadata { name: "q" generateName: "" namespace: "default" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }
        spec {
          hard { key: "count/configmaps" value { string: "3" } }
          hard { key: "pods" value { string: "2" } }
          scopes: "NotTerminating"
          scopeSelector { matchExpressions { scopeName: "PriorityClass" operator: "In" values: "high" } }
        }
        status {}`);
      expect(encodeMessage('k8s.io.api.core.v1.ResourceQuota', rq).toString('hex')).to.equal(vector.toString('hex'));
      const back = decodeMessage('k8s.io.api.core.v1.ResourceQuota', vector) as { spec: { hard: Record<string, string> } };
      expect(back.spec.hard).to.deep.equal({ 'count/configmaps': '3', pods: '2' });
    });

    it('round trips status.hard and status.used', () => {
      const rq = { metadata: { name: 'q', namespace: 'default' }, spec: {}, status: { hard: { pods: '2' }, used: { pods: '1' } } };
      const bytes = encodeMessage('k8s.io.api.core.v1.ResourceQuota', rq);
      expect(decodeMessage('k8s.io.api.core.v1.ResourceQuota', bytes)).to.deep.include({ status: rq.status });
    });
  });
});
