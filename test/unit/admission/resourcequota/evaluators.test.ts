/**
 * The quota evaluators and checkRequest as tables: an input object and the namespace's quotas in,
 * the usage charged to each quota or Kubernetes' exact refusal out. Covers pods (compute
 * resources, sidecars and init containers, overhead, terminal pods, hugepages and extended
 * resources, every scope), services (node ports, load balancers), claims (storage per class),
 * object counts (legacy names, custom resources), updates charged by their delta, and
 * limitedResources.
 */
import { expect } from 'chai';
import { flavors } from '../../../../lib/naming';
import { EvaluatorRegistry } from '../../../../lib/admission/resourcequota/evaluators/index';
import { CheckInput, checkRequest, quotaState } from '../../../../lib/admission/resourcequota/check';
import { LimitedResource } from '../../../../lib/admission/resourcequota/config';
import { toJson } from '../../../../lib/admission/resourcequota/resource-list';
import { ApiObject } from '../../../../lib/scheme/types';

type Body = Record<string, any>;
const registry = new EvaluatorRegistry(flavors.kubernetes);
const usage = (group: string, resource: string, obj: Body) => toJson(registry.get(group, resource).usage(obj as ApiObject, new Date('2026-01-01T00:00:00Z')));
const container = (name: string, requests?: Body, limits?: Body, extra: Body = {}) => ({ name, image: 'x', resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) }, ...extra });
const pod = (spec: Body, extra: Body = {}): Body => ({ metadata: { name: 'p', namespace: 'ns' }, spec, ...extra });
/** A quota whose status the controller has filled (used as given, hard = spec.hard). */
const quota = (name: string, hard: Body, used: Body = {}, spec: Body = {}): ApiObject => ({
  metadata: { name, namespace: 'ns', resourceVersion: '5' }, spec: { hard, ...spec },
  status: { hard, used: { ...Object.fromEntries(Object.keys(hard).map((k) => [k, '0'])), ...used } },
});

describe('quota evaluators', () => {
  describe('pod usage', () => {
    const rows: Array<[string, Body, Body, Body?]> = [
      ['a best-effort pod counts as one pod', pod({ containers: [container('a')] }), { 'count/pods': '1', pods: '1' }],
      ['requests and limits, summed over containers; cpu and memory are the requests',
        pod({ containers: [container('a', { cpu: '100m', memory: '64Mi' }, { cpu: '200m' }), container('b', { cpu: '250m' }, { cpu: '1', memory: '1Gi' })] }),
        { 'count/pods': '1', pods: '1', cpu: '350m', 'requests.cpu': '350m', memory: '64Mi', 'requests.memory': '64Mi', 'limits.cpu': '1200m', 'limits.memory': '1Gi' }],
      ['the largest init container when larger than the containers', pod({ initContainers: [container('i', { cpu: '2' })], containers: [container('a', { cpu: '500m' })] }),
        { 'count/pods': '1', pods: '1', cpu: '2', 'requests.cpu': '2' }],
      ['a sidecar adds to the containers', pod({ initContainers: [container('s', { cpu: '100m' }, undefined, { restartPolicy: 'Always' })], containers: [container('a', { cpu: '500m' })] }),
        { 'count/pods': '1', pods: '1', cpu: '600m', 'requests.cpu': '600m' }],
      ['the pod overhead is added to the requests', pod({ overhead: { cpu: '50m' }, containers: [container('a', { cpu: '100m' })] }),
        { 'count/pods': '1', pods: '1', cpu: '150m', 'requests.cpu': '150m' }],
      ['ephemeral storage, hugepages and extended resources', pod({ containers: [container('a', { 'ephemeral-storage': '1Gi', 'hugepages-2Mi': '4Mi', 'example.com/gpu': '2' }, { 'ephemeral-storage': '2Gi' })] }),
        { 'count/pods': '1', pods: '1', 'ephemeral-storage': '1Gi', 'requests.ephemeral-storage': '1Gi', 'limits.ephemeral-storage': '2Gi', 'hugepages-2Mi': '4Mi', 'requests.hugepages-2Mi': '4Mi', 'requests.example.com/gpu': '2' }],
      ['a Succeeded pod counts only in count/pods', pod({ containers: [container('a', { cpu: '1' })] }, { status: { phase: 'Succeeded' } }), { 'count/pods': '1' }],
      ['a pod past its deletion grace period counts only in count/pods',
        { ...pod({ containers: [container('a', { cpu: '1' })] }), metadata: { name: 'p', deletionTimestamp: '2025-12-31T23:59:00Z', deletionGracePeriodSeconds: 30 } }, { 'count/pods': '1' }],
    ];
    for (const [what, obj, expected] of rows) it(what, () => expect(usage('', 'pods', obj)).to.deep.equal(expected));
  });

  describe('service, claim and object-count usage', () => {
    it('counts node ports of NodePort and LoadBalancer services, and load balancers', () => {
      const ports = [{ port: 80 }, { port: 443, nodePort: 30443 }];
      expect(usage('', 'services', { spec: { type: 'ClusterIP', ports } })).to.deep.equal({ 'count/services': '1', services: '1', 'services.loadbalancers': '0', 'services.nodeports': '0' });
      expect(usage('', 'services', { spec: { type: 'NodePort', ports } })).to.deep.equal({ 'count/services': '1', services: '1', 'services.loadbalancers': '0', 'services.nodeports': '2' });
      expect(usage('', 'services', { spec: { type: 'LoadBalancer', ports, allocateLoadBalancerNodePorts: false } }))
        .to.deep.equal({ 'count/services': '1', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '1' });
    });

    it('charges claims their storage rounded up to a byte, per storage class too', () => {
      expect(usage('', 'persistentvolumeclaims', { spec: { storageClassName: 'gold', resources: { requests: { storage: '1500m' } } } })).to.deep.equal({
        'count/persistentvolumeclaims': '1', persistentvolumeclaims: '1', 'requests.storage': '2',
        'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '1', 'gold.storageclass.storage.k8s.io/requests.storage': '2',
      });
      expect(usage('', 'persistentvolumeclaims', { metadata: { annotations: { 'volume.beta.kubernetes.io/storage-class': 'silver' } }, spec: { storageClassName: 'gold' } }))
        .to.deep.equal({ 'count/persistentvolumeclaims': '1', persistentvolumeclaims: '1', 'silver.storageclass.storage.k8s.io/persistentvolumeclaims': '1' });
    });

    it('counts any other resource as count/<resource>[.<group>], with the legacy core names', () => {
      expect(usage('', 'configmaps', {})).to.deep.equal({ configmaps: '1', 'count/configmaps': '1' });
      expect(usage('apps', 'deployments', {})).to.deep.equal({ 'count/deployments.apps': '1' });
      expect(usage('example.com', 'widgets', {})).to.deep.equal({ 'count/widgets.example.com': '1' });
    });
  });

  describe('pod scopes', () => {
    const e = registry.get('', 'pods');
    const burstable = pod({ containers: [container('a', { cpu: '1m' })], activeDeadlineSeconds: 10, priorityClassName: 'high' }) as ApiObject;
    const bestEffort = pod({ containers: [container('a')] }) as ApiObject;
    const rows: Array<[string, string, string[] | undefined, boolean, boolean]> = [
      ['Terminating', 'Exists', undefined, true, false],
      ['NotTerminating', 'Exists', undefined, false, true],
      ['BestEffort', 'Exists', undefined, false, true],
      ['NotBestEffort', 'Exists', undefined, true, false],
      ['PriorityClass', 'Exists', undefined, true, false],
      ['PriorityClass', 'In', ['high'], true, false],
      ['PriorityClass', 'NotIn', ['high'], false, true],
      ['PriorityClass', 'DoesNotExist', undefined, false, false],
      ['CrossNamespacePodAffinity', 'Exists', undefined, false, false],
    ];
    for (const [scopeName, operator, values, onBurstable, onBestEffort] of rows) {
      it(`${scopeName} ${operator}${values ? ` ${values}` : ''}`, () => {
        expect(e.matchesScope({ scopeName, operator, values }, burstable)).to.equal(onBurstable);
        expect(e.matchesScope({ scopeName, operator, values }, bestEffort)).to.equal(onBestEffort);
      });
    }
    it('CrossNamespacePodAffinity: a term naming namespaces or a namespace selector', () => {
      const affinity = { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'k', namespaceSelector: {} } }] } };
      expect(e.matchesScope({ scopeName: 'CrossNamespacePodAffinity', operator: 'Exists' }, pod({ containers: [], affinity }) as ApiObject)).to.equal(true);
    });
  });
});

describe('checkRequest (the ResourceQuota plugin\'s decision)', () => {
  const create = (resource: string, object: Body, group = ''): CheckInput => ({ operation: 'CREATE', object: object as ApiObject, group, resource });
  const run = (quotas: ApiObject[], input: CheckInput, limited: LimitedResource[] = []) => {
    const states = quotas.map(quotaState);
    const result = checkRequest(states, input, registry.get(input.group, input.resource), limited);
    return { result, used: states.map((s) => toJson(s.used)) };
  };

  it('charges every matching quota and leaves the others', () => {
    const { result, used } = run([quota('a', { 'count/configmaps': '3' }, { 'count/configmaps': '1' }), quota('b', { pods: '1' })], create('configmaps', {}));
    expect(result).to.deep.equal({ ok: true, changed: [0] });
    expect(used).to.deep.equal([{ 'count/configmaps': '2' }, { pods: '0' }]);
  });

  it('changes no quota that matches but is charged nothing (a pod under a quota on an extended resource it does not request)', () => {
    const { result } = run([quota('gpu', { 'requests.example.com/gpu': '4' })], create('pods', pod({ containers: [container('a', { cpu: '1' })] })));
    expect(result).to.deep.equal({ ok: true, changed: [] });
  });

  it('refuses past a hard limit naming only the exceeded resources, and charges nothing', () => {
    const quotas = [quota('ok', { 'requests.memory': '1Gi' }), quota('full', { 'requests.cpu': '1', pods: '10' }, { 'requests.cpu': '900m', pods: '1' })];
    const { result, used } = run(quotas, create('pods', pod({ containers: [container('a', { cpu: '200m', memory: '1Mi' })] })));
    expect(result).to.deep.equal({ ok: false, reason: 'exceeded quota: full, requested: requests.cpu=200m, used: requests.cpu=900m, limited: requests.cpu=1' });
    expect(used).to.deep.equal([{ 'requests.memory': '0' }, { pods: '1', 'requests.cpu': '900m' }]);
  });

  it('needs every container to state what a quota constrains (init containers too)', () => {
    const p = pod({ initContainers: [container('init')], containers: [container('a', { cpu: '1' }), container('b', { memory: '1' })] });
    expect(run([quota('c', { 'limits.memory': '1Gi', cpu: '2' })], create('pods', p)).result)
      .to.deep.equal({ ok: false, reason: 'failed quota: c: must specify cpu for: b,init; limits.memory for: a,b,init' });
  });

  it('ignores a quota whose status is not yet filled, and refuses one whose used lacks a resource', () => {
    const unfilled: ApiObject = { metadata: { name: 'new' }, spec: { hard: { 'count/configmaps': '0' } } };
    expect(run([unfilled], create('configmaps', {})).result).to.deep.equal({ ok: true, changed: [] });
    const partial: ApiObject = { metadata: { name: 'partial' }, spec: {}, status: { hard: { configmaps: '1', 'count/configmaps': '1' }, used: { configmaps: '0' } } };
    expect(run([partial], create('configmaps', {})).result).to.deep.equal({ ok: false, reason: 'status unknown for quota: partial, resources: configmaps,count/configmaps' });
  });

  it('charges an update by its growth only (a claim resized from 1Gi to 3Gi)', () => {
    const claim = (size: string) => ({ metadata: { name: 'c', resourceVersion: '9' }, spec: { resources: { requests: { storage: size } } } });
    const input: CheckInput = { operation: 'UPDATE', object: claim('3Gi') as ApiObject, oldObject: claim('1Gi') as ApiObject, group: '', resource: 'persistentvolumeclaims' };
    const { result, used } = run([quota('s', { 'requests.storage': '10Gi', persistentvolumeclaims: '5' }, { 'requests.storage': '1Gi', persistentvolumeclaims: '1' })], input);
    expect(result).to.deep.equal({ ok: true, changed: [0] });
    expect(used).to.deep.equal([{ persistentvolumeclaims: '1', 'requests.storage': '3Gi' }]);
  });

  it('matches scoped quotas only for pods in their scope; objects other than pods match no scoped quota', () => {
    const scoped = quota('be', { pods: '1' }, { pods: '1' }, { scopes: ['BestEffort'] });
    expect(run([scoped], create('pods', pod({ containers: [container('a', { cpu: '1' })] }))).result).to.deep.equal({ ok: true, changed: [] });
    expect(run([scoped], create('pods', pod({ containers: [container('a')] }))).result).to.deep.include({ ok: false });
    const countScoped = quota('cm', { 'count/configmaps': '0' }, {}, { scopes: ['NotTerminating'] });
    expect(run([countScoped], create('configmaps', {})).result).to.deep.equal({ ok: true, changed: [] });
  });

  it('limitedResources: consumption without a covering quota, and scopes without one', () => {
    const limited: LimitedResource[] = [
      { apiGroup: '', resource: 'pods', matchContains: ['requests.cpu'], matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['a', 'b'] }] },
    ];
    const p = (cls: string, cpu?: string) => pod({ priorityClassName: cls, containers: [container('c', cpu ? { cpu } : undefined)] });
    expect(run([], create('pods', p('z', '1')), limited).result).to.deep.equal({ ok: false, reason: 'insufficient quota to consume: requests.cpu' });
    expect(run([], create('pods', p('a')), limited).result).to.deep.equal({ ok: false, reason: 'insufficient quota to match these scopes: [{PriorityClass In [a b]}]' });
    expect(run([], create('pods', p('z')), limited).result).to.deep.equal({ ok: true, changed: [] });
    const covering = quota('cover', { pods: '5', 'requests.cpu': '4' }, {}, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['a'] }] } });
    expect(run([covering], create('pods', p('a', '1')), limited).result).to.deep.equal({ ok: true, changed: [0] });
  });
});
