/**
 * API priority and fairness' objects (flowcontrol.apiserver.k8s.io/v1 FlowSchema and
 * PriorityLevelConfiguration) over HTTPS against a real etcd: Kubernetes 1.32's bootstrap
 * configuration in place after start and kept (mandatory objects restored, deleted suggested
 * ones back, an operator's autoupdate=false respected, unwanted autoupdate objects removed),
 * defaults, validation rows (422 with Kubernetes' causes, nothing stored), the Dangling
 * condition the config consumer writes, status only through /status, kubectl's tables,
 * protobuf, and --enable-priority-and-fairness=false (no conditions; the bootstrap still kept).
 */
import { expect } from 'chai';
import { HttpResponse, eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, TABLE, expectInvalidCauses, rejectedLeavingStore } from '../helpers/kind-checks';
import { decodeProtobuf } from '../../lib/scheme/protobuf';
import { GenericStore } from '../../lib/registry/store';
import { storeKey } from '../../lib/registry/store-index';
import {
  MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS,
} from '../../lib/registry/flowcontrol/bootstrap-configuration';

const GV = 'flowcontrol.apiserver.k8s.io/v1';
const FS = `/apis/${GV}/flowschemas`;
const PL = `/apis/${GV}/prioritylevelconfigurations`;
const AUTO = 'apf.kubernetes.io/autoupdate-spec';
type Body = Record<string, any>;

const flowSchema = (name: string, spec: Body, extra: Body = {}): Body => ({ apiVersion: GV, kind: 'FlowSchema', metadata: { name, ...extra }, spec });
const level = (name: string, spec: Body, extra: Body = {}): Body => ({ apiVersion: GV, kind: 'PriorityLevelConfiguration', metadata: { name, ...extra }, spec });
const RULES = [{ subjects: [{ kind: 'User', user: { name: 'alice' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }] }];
const limitedSpec = (limited: Body = {}): Body => ({ type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 8, handSize: 2, queueLengthLimit: 10 } }, ...limited } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('API priority and fairness objects (flowcontrol.apiserver.k8s.io/v1)', () => {
  let t: TestServer;
  before(async () => { t = await startTestServer(['--flavor=kubernetes']); });
  after(async () => { await t?.stop(); });

  /** Writes `mutate(stored)` straight to etcd, past validation: an object as an older server left it. */
  async function writeStored(resource: string, name: string, mutate: (o: Body) => void): Promise<void> {
    const store = t.server.stores.get(storeKey('flowcontrol.apiserver.k8s.io', 'v1', resource)) as GenericStore;
    const key = store.key(undefined, name);
    const { kv } = await store.storage.get(key);
    const obj = JSON.parse(kv!.value.toString('utf8'));
    mutate(obj);
    expect((await store.storage.update(key, Buffer.from(JSON.stringify(obj)), kv!.modRevision)).ok).to.equal(true);
  }

  describe('the bootstrap configuration', () => {
    it('has every mandatory and suggested object of 1.32 with its spec and autoupdate=true', async () => {
      for (const [path, list] of [[FS, [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS]], [PL, [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS]]] as const) {
        const items = (await t.get(path)).body.items as Body[];
        for (const want of list) {
          const got = items.find((i) => i.metadata.name === want.metadata.name);
          expect(got, want.metadata.name).to.not.equal(undefined);
          expect(got!.spec, want.metadata.name).to.deep.equal(want.spec);
          expect(got!.metadata.annotations).to.deep.equal({ [AUTO]: 'true' });
        }
      }
      expect((await t.get(FS)).body.items).to.have.length(13);
      expect((await t.get(PL)).body.items).to.have.length(8);
    });

    it('spot-checks numbers of bootstrap/default.go', async () => {
      const pl = async (name: string) => (await t.get(`${PL}/${name}`)).body.spec;
      const fs = async (name: string) => (await t.get(`${FS}/${name}`)).body.spec;
      // workload-low: NominalConcurrencyShares 100, LendablePercent 90, 128 queues, hand size 6, queue length 50.
      expect(await pl('workload-low')).to.deep.equal({ type: 'Limited', limited: { nominalConcurrencyShares: 100, lendablePercent: 90, limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } } } });
      expect((await pl('global-default')).limited.nominalConcurrencyShares).to.equal(20);
      expect((await pl('leader-election')).limited.limitResponse.queuing).to.deep.equal({ queues: 16, handSize: 4, queueLengthLimit: 50 });
      // catch-all: 5 shares, Reject; exempt: Exempt with zeros.
      expect(await pl('catch-all')).to.deep.equal({ type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } });
      expect(await pl('exempt')).to.deep.equal({ type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } });
      expect((await fs('global-default')).matchingPrecedence).to.equal(9900);
      expect((await fs('exempt')).matchingPrecedence).to.equal(1);
      expect((await fs('exempt')).distinguisherMethod).to.equal(undefined);
      expect((await fs('probes')).rules).to.deep.equal([{
        subjects: [{ kind: 'Group', group: { name: 'system:unauthenticated' } }, { kind: 'Group', group: { name: 'system:authenticated' } }],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
      }]);
      expect((await fs('service-accounts')).priorityLevelConfiguration).to.deep.equal({ name: 'workload-low' });
    });

    it('reports the producer hook on /readyz', async () => {
      const res = await t.get('/readyz/poststarthook/priority-and-fairness-config-producer');
      expect(res.status, res.text).to.equal(200);
      expect(res.text).to.equal('ok');
    });

    it('refuses a changed mandatory spec, and restores one an older server left changed', async () => {
      const current = (await t.get(`${PL}/catch-all`)).body;
      const res = await rejectedLeavingStore(t, PL, () => t.put(`${PL}/catch-all`, { ...current, spec: { ...current.spec, limited: { ...current.spec.limited, nominalConcurrencyShares: 50 } } }));
      expectInvalidCauses(res, 'PriorityLevelConfiguration', [{
        field: 'spec', reason: 'FieldValueInvalid',
        message: 'Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:"Limited", Limited:(*flowcontrol.LimitedPriorityLevelConfiguration)(0xc000000000), '
          + "Exempt:(*flowcontrol.ExemptPriorityLevelConfiguration)(nil)}: spec of 'catch-all' must equal the fixed value",
      }]);
      await writeStored('prioritylevelconfigurations', 'catch-all', (o) => { o.spec.limited.nominalConcurrencyShares = 50; });
      await writeStored('flowschemas', 'catch-all', (o) => { o.spec.matchingPrecedence = 9999; o.metadata.annotations[AUTO] = 'false'; });
      await eventually(async () => (await t.get(`${PL}/catch-all`)).body.spec.limited.nominalConcurrencyShares === 5);
      // Mandatory objects are restored whatever their annotation says, and it is set back to true.
      const fs = await eventually(async () => { const o = (await t.get(`${FS}/catch-all`)).body; return o.spec.matchingPrecedence === 10000 && o; });
      expect(fs.metadata.annotations[AUTO]).to.equal('true');
    });

    it("lets the operator change the exempt level's spec.exempt, and nothing else of it", async () => {
      const current = (await t.get(`${PL}/exempt`)).body;
      const ok = await t.put(`${PL}/exempt`, { ...current, spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 7, lendablePercent: 10 } } });
      expect(ok.status, ok.text).to.equal(200);
      await sleep(800);
      expect((await t.get(`${PL}/exempt`)).body.spec.exempt).to.deep.equal({ nominalConcurrencyShares: 7, lendablePercent: 10 });
      const bad = await t.put(`${PL}/exempt`, { ...ok.body, spec: limitedSpec() });
      expectInvalidCauses(bad, 'PriorityLevelConfiguration', [
        { field: 'spec.type', reason: 'FieldValueInvalid', message: 'Invalid value: "Limited": type must be \'Exempt\' if and only if name is \'exempt\'' },
        {
          field: 'spec', reason: 'FieldValueInvalid',
          message: 'Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:"Limited", Limited:(*flowcontrol.LimitedPriorityLevelConfiguration)(0xc000000000), '
            + "Exempt:(*flowcontrol.ExemptPriorityLevelConfiguration)(nil)}: spec of 'exempt' except the 'spec.exempt' field must equal the fixed value",
        },
      ]);
    });

    it('brings back a deleted mandatory or suggested object', async () => {
      expect((await t.del(`${FS}/probes`)).status).to.equal(200);
      expect((await t.del(`${PL}/workload-high`)).status).to.equal(200);
      expect((await t.del(`${FS}/exempt`)).status).to.equal(200);
      const probes = await eventually(async () => { const r = await t.get(`${FS}/probes`); return r.status === 200 && r.body; });
      expect(probes.spec).to.deep.equal(SUGGESTED_FLOW_SCHEMAS.find((o) => o.metadata.name === 'probes')!.spec);
      expect(probes.metadata.managedFields.map((m: Body) => m.manager)).to.include('api-priority-and-fairness-config-producer-v1');
      await eventually(async () => (await t.get(`${PL}/workload-high`)).status === 200);
      await eventually(async () => (await t.get(`${FS}/exempt`)).status === 200);
    });

    it('restores a suggested spec while autoupdate is true, and keeps the operator\'s with autoupdate=false', async () => {
      const high = (await t.get(`${PL}/node-high`)).body;
      const changed = await t.put(`${PL}/node-high`, { ...high, spec: { ...high.spec, limited: { ...high.spec.limited, nominalConcurrencyShares: 99 } } });
      expect(changed.status, changed.text).to.equal(200);
      await eventually(async () => (await t.get(`${PL}/node-high`)).body.spec.limited.nominalConcurrencyShares === 40);

      const sys = (await t.get(`${PL}/system`)).body;
      const mine = await t.put(`${PL}/system`, {
        ...sys, metadata: { ...sys.metadata, annotations: { [AUTO]: 'false' } }, spec: { ...sys.spec, limited: { ...sys.spec.limited, nominalConcurrencyShares: 77 } },
      });
      expect(mine.status, mine.text).to.equal(200);
      await sleep(1500);
      const kept = (await t.get(`${PL}/system`)).body;
      expect(kept.spec.limited.nominalConcurrencyShares).to.equal(77);
      expect(kept.metadata.annotations[AUTO]).to.equal('false');
    });

    it('marks a suggested object the operator edited without the annotation autoupdate=false, and keeps the edit', async () => {
      const fs = (await t.get(`${FS}/kube-scheduler`)).body;
      const { annotations: _dropped, ...meta } = fs.metadata;
      const edited = await t.put(`${FS}/kube-scheduler`, { ...fs, metadata: meta, spec: { ...fs.spec, matchingPrecedence: 850 } });
      expect(edited.status, edited.text).to.equal(200);
      expect(edited.body.metadata.generation).to.equal(2);
      const after = await eventually(async () => { const o = (await t.get(`${FS}/kube-scheduler`)).body; return o.metadata.annotations?.[AUTO] === 'false' && o; });
      expect(after.spec.matchingPrecedence).to.equal(850);
    });

    it('removes an object it does not recommend only when it says autoupdate=true', async () => {
      const spec = { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 7000, rules: RULES };
      expect((await t.post(FS, flowSchema('leftover', spec, { annotations: { [AUTO]: 'true' } }))).status).to.equal(201);
      expect((await t.post(FS, flowSchema('users-own', spec))).status).to.equal(201);
      await eventually(async () => (await t.get(`${FS}/leftover`)).status === 404);
      expect((await t.get(`${FS}/users-own`)).status).to.equal(200);
    });
  });

  describe('defaults and strategy', () => {
    it('defaults matchingPrecedence to 1000 and a Limited level as defaults.go does', async () => {
      const fs = await t.post(FS, flowSchema('defaulted', { priorityLevelConfiguration: { name: 'global-default' }, rules: RULES }));
      expect(fs.status, fs.text).to.equal(201);
      expect(fs.body.spec.matchingPrecedence).to.equal(1000);
      expect(fs.body.status).to.deep.equal({});
      expect(fs.body.metadata.generation).to.equal(1);
      const pl = await t.post(PL, level('defaulted', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } }));
      expect(pl.status, pl.text).to.equal(201);
      expect(pl.body.spec).to.deep.equal({ type: 'Limited', limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } } } });
      // v1 keeps an explicit zero (a "jail" level).
      const zero = await t.post(PL, level('jail', { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } }));
      expect(zero.status, zero.text).to.equal(201);
      expect(zero.body.spec.limited.nominalConcurrencyShares).to.equal(0);
    });

    it('writes the status only through /status, which keeps the spec; spec changes bump the generation', async () => {
      const created = (await t.post(PL, level('with-status', limitedSpec()))).body;
      const cond = { type: 'Custom', status: 'True', reason: 'Because', message: 'hi', lastTransitionTime: '2026-01-02T03:04:05Z' };
      const main = await t.put(`${PL}/with-status`, { ...created, status: { conditions: [cond] } });
      expect(main.status, main.text).to.equal(200);
      expect(main.body.status).to.deep.equal({});
      expect(main.body.metadata.generation).to.equal(1);
      const st = await t.put(`${PL}/with-status/status`, { ...main.body, spec: limitedSpec({ nominalConcurrencyShares: 3 }), status: { conditions: [cond] } });
      expect(st.status, st.text).to.equal(200);
      expect(st.body.status).to.deep.equal({ conditions: [cond] });
      expect(st.body.spec.limited.nominalConcurrencyShares).to.equal(30);
      const changed = await t.put(`${PL}/with-status`, { ...st.body, spec: limitedSpec({ nominalConcurrencyShares: 3 }) });
      expect(changed.body.metadata.generation).to.equal(2);
      expect(changed.body.status).to.deep.equal({ conditions: [cond] });
      const dup = await t.put(`${PL}/with-status/status`, { ...changed.body, status: { conditions: [cond, { ...cond }, { type: '' }] } });
      expectInvalidCauses(dup, 'PriorityLevelConfiguration', [
        { field: 'status.conditions[1].type', reason: 'FieldValueDuplicate', message: 'Duplicate value: "Custom"' },
        { field: 'status.conditions[2].type', reason: 'FieldValueRequired', message: 'Required value: must not be empty' },
      ]);
    });
  });

  describe('validation (ValidateFlowSchema)', () => {
    const base = { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 500, rules: RULES };
    const rule = (r: Body) => ({ ...base, rules: [{ subjects: [{ kind: 'User', user: { name: 'u' } }], ...r }] });
    const rows: Array<[string, Body, Cause[]]> = [
      ['a negative matchingPrecedence', { ...base, matchingPrecedence: -1 }, [{ field: 'spec.matchingPrecedence', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be a positive value' }]],
      ['a matchingPrecedence over 10000', { ...base, matchingPrecedence: 10001 }, [{ field: 'spec.matchingPrecedence', reason: 'FieldValueInvalid', message: 'Invalid value: 10001: must not be greater than 10000' }]],
      ['matchingPrecedence 1 on another schema', { ...base, matchingPrecedence: 1 }, [{ field: 'spec.matchingPrecedence', reason: 'FieldValueInvalid', message: "Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1" }]],
      ['an unknown distinguisher method', { ...base, distinguisherMethod: { type: 'ByColour' } }, [{ field: 'spec.distinguisherMethod.type', reason: 'FieldValueNotSupported', message: 'Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:"ByColour"}: supported values: "ByNamespace", "ByUser"' }]],
      ['no priority level', { ...base, priorityLevelConfiguration: { name: '' } }, [{ field: 'spec.priorityLevelConfiguration.name', reason: 'FieldValueRequired', message: 'Required value: must reference a priority level' }]],
      ['a bad priority level name', { ...base, priorityLevelConfiguration: { name: 'Bad_Name' } }, [{ field: 'spec.priorityLevelConfiguration.name', reason: 'FieldValueInvalid', message: "Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')" }]],
      ['a rule without subjects or rules', { ...base, rules: [{ subjects: [] }] }, [
        { field: 'spec.rules[0].subjects', reason: 'FieldValueRequired', message: 'Required value: subjects must contain at least one value' },
        { field: 'spec.rules[0]', reason: 'FieldValueRequired', message: 'Required value: at least one of resourceRules and nonResourceRules has to be non-empty' }]],
      ['an unknown subject kind', { ...base, rules: [{ subjects: [{ kind: 'Robot' }], nonResourceRules: RULES[0].nonResourceRules }] }, [{ field: 'spec.rules[0].subjects[0].kind', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"' }]],
      ['a User subject with a group and no user', { ...base, rules: [{ subjects: [{ kind: 'User', group: { name: 'g' } }], nonResourceRules: RULES[0].nonResourceRules }] }, [
        { field: 'spec.rules[0].subjects[0].user', reason: 'FieldValueRequired', message: "Required value: user is required when subject kind is 'User'" },
        { field: 'spec.rules[0].subjects[0].group', reason: 'FieldValueForbidden', message: "Forbidden: group is forbidden when subject kind is not 'Group'" }]],
      ['a ServiceAccount subject without namespace and name', { ...base, rules: [{ subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: '', namespace: '' } }], nonResourceRules: RULES[0].nonResourceRules }] }, [
        { field: 'spec.rules[0].subjects[0].serviceAccount.name', reason: 'FieldValueRequired', message: 'Required value' },
        { field: 'spec.rules[0].subjects[0].serviceAccount.namespace', reason: 'FieldValueRequired', message: 'Required value: must specify namespace for service account' }]],
      ["'*' with other verbs", rule({ resourceRules: [{ verbs: ['*', 'get'], apiGroups: ['*'], resources: ['*'], clusterScope: true }] }), [{ field: 'spec.rules[0].resourceRules[0].verbs', reason: 'FieldValueInvalid', message: 'Invalid value: []string{"*", "get"}: if \'*\' is present, must not specify other verbs' }]],
      ['an unsupported verb', rule({ resourceRules: [{ verbs: ['get', 'jump'], apiGroups: ['*'], resources: ['*'], clusterScope: true }] }), [{ field: 'spec.rules[0].resourceRules[0].verbs', reason: 'FieldValueNotSupported', message: 'Unsupported value: []string{"get", "jump"}: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"' }]],
      ['empty resource rule lists', rule({ resourceRules: [{ verbs: [], apiGroups: [], resources: [] }] }), [
        { field: 'spec.rules[0].resourceRules[0].verbs', reason: 'FieldValueRequired', message: 'Required value: verbs must contain at least one value' },
        { field: 'spec.rules[0].resourceRules[0].apiGroups', reason: 'FieldValueRequired', message: 'Required value: resource rules must supply at least one api group' },
        { field: 'spec.rules[0].resourceRules[0].resources', reason: 'FieldValueRequired', message: 'Required value: resource rules must supply at least one resource' },
        { field: 'spec.rules[0].resourceRules[0].namespaces', reason: 'FieldValueRequired', message: 'Required value: resource rules that are not cluster scoped must supply at least one namespace' }]],
      ["'*' beside other groups, resources and namespaces", rule({ resourceRules: [{ verbs: ['get'], apiGroups: ['*', 'apps'], resources: ['pods', '*'], namespaces: ['*', 'default'] }] }), [
        { field: 'spec.rules[0].resourceRules[0].apiGroups', reason: 'FieldValueInvalid', message: 'Invalid value: []string{"*", "apps"}: if \'*\' is present, must not specify other api groups' },
        { field: 'spec.rules[0].resourceRules[0].resources', reason: 'FieldValueInvalid', message: 'Invalid value: []string{"pods", "*"}: if \'*\' is present, must not specify other resources' },
        { field: 'spec.rules[0].resourceRules[0].namespaces', reason: 'FieldValueInvalid', message: 'Invalid value: []string{"*", "default"}: if \'*\' is present, must not specify other namespaces' }]],
      ['a bad namespace', rule({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['Kube_System'] }] }), [{ field: 'spec.rules[0].resourceRules[0].namespaces[0]', reason: 'FieldValueInvalid', message: "Invalid value: \"Kube_System\": each member of this list must be '*' or a DNS-1123 label; a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')" }]],
      ['bad non-resource URLs', rule({ nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['healthz', '/a b', '/a//b', '/hea*', ''] }] }), [
        { field: 'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]', reason: 'FieldValueInvalid', message: 'Invalid value: "healthz": must start with slash' },
        { field: 'spec.rules[0].nonResourceRules[0].nonResourceURLs[1]', reason: 'FieldValueInvalid', message: 'Invalid value: "/a b": must not contain white-space' },
        { field: 'spec.rules[0].nonResourceRules[0].nonResourceURLs[2]', reason: 'FieldValueInvalid', message: 'Invalid value: "/a//b": must not contain double slash' },
        { field: 'spec.rules[0].nonResourceRules[0].nonResourceURLs[3]', reason: 'FieldValueInvalid', message: 'Invalid value: "/hea*": wildcard can only do suffix matching' },
        { field: 'spec.rules[0].nonResourceRules[0].nonResourceURLs[4]', reason: 'FieldValueInvalid', message: 'Invalid value: "": must not be empty' }]],
      ["'*' beside other URLs, and no verbs", rule({ nonResourceRules: [{ verbs: [], nonResourceURLs: ['*', '/x'] }] }), [
        { field: 'spec.rules[0].nonResourceRules[0].verbs', reason: 'FieldValueRequired', message: 'Required value: verbs must contain at least one value' },
        { field: 'spec.rules[0].nonResourceRules[0].nonResourceURLs', reason: 'FieldValueInvalid', message: 'Invalid value: []string{"*", "/x"}: if \'*\' is present, must not specify other non-resource URLs' }]],
    ];
    rows.forEach(([what, spec, causes], i) => {
      it(`refuses ${what}`, async () => {
        const res = await rejectedLeavingStore(t, FS, () => t.post(FS, flowSchema(`invalid-${i}`, spec)));
        expectInvalidCauses(res, 'FlowSchema', causes);
        expect(res.body.details.group).to.equal('flowcontrol.apiserver.k8s.io');
      });
    });

    it("refuses a changed spec of the mandatory 'exempt' FlowSchema", async () => {
      const current = (await t.get(`${FS}/exempt`)).body;
      const res = await rejectedLeavingStore(t, FS, () => t.put(`${FS}/exempt`, { ...current, spec: { ...current.spec, rules: [current.spec.rules[0]], distinguisherMethod: { type: 'ByUser' } } }));
      const printed = 'flowcontrol.FlowSchemaSpec{PriorityLevelConfiguration:flowcontrol.PriorityLevelConfigurationReference{Name:"exempt"}, MatchingPrecedence:1, '
        + 'DistinguisherMethod:(*flowcontrol.FlowDistinguisherMethod)(0xc000000000), Rules:[]flowcontrol.PolicyRulesWithSubjects{flowcontrol.PolicyRulesWithSubjects{'
        + 'Subjects:[]flowcontrol.Subject{flowcontrol.Subject{Kind:"Group", User:(*flowcontrol.UserSubject)(nil), Group:(*flowcontrol.GroupSubject)(0xc000000000), ServiceAccount:(*flowcontrol.ServiceAccountSubject)(nil)}}, '
        + 'ResourceRules:[]flowcontrol.ResourcePolicyRule{flowcontrol.ResourcePolicyRule{Verbs:[]string{"*"}, APIGroups:[]string{"*"}, Resources:[]string{"*"}, ClusterScope:true, Namespaces:[]string{"*"}}}, '
        + 'NonResourceRules:[]flowcontrol.NonResourcePolicyRule{flowcontrol.NonResourcePolicyRule{Verbs:[]string{"*"}, NonResourceURLs:[]string{"*"}}}}}}';
      expectInvalidCauses(res, 'FlowSchema', [{ field: 'spec', reason: 'FieldValueInvalid', message: `Invalid value: ${printed}: spec of 'exempt' must equal the fixed value` }]);
    });
  });

  describe('validation (ValidatePriorityLevelConfiguration)', () => {
    const rows: Array<[string, Body, Cause[]]> = [
      ['an unknown type', { type: 'Sometimes' }, [{ field: 'spec.type', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Sometimes": supported values: "Exempt", "Limited"' }]],
      ['type Exempt on another name', { type: 'Exempt', limited: limitedSpec().limited }, [
        { field: 'spec.type', reason: 'FieldValueInvalid', message: 'Invalid value: "Exempt": type must be \'Exempt\' if and only if name is \'exempt\'' },
        { field: 'spec.limited', reason: 'FieldValueForbidden', message: 'Forbidden: must be nil if the type is not Limited' }]],
      ['Limited without limited, with exempt', { type: 'Limited', exempt: {} }, [
        { field: 'spec.exempt', reason: 'FieldValueForbidden', message: 'Forbidden: must be nil if the type is Limited' },
        { field: 'spec.limited', reason: 'FieldValueRequired', message: 'Required value: must not be empty when type is Limited' }]],
      ['negative shares and percentages out of range', limitedSpec({ nominalConcurrencyShares: -1, lendablePercent: 101, borrowingLimitPercent: -5 }), [
        { field: 'spec.limited.nominalConcurrencyShares', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be a non-negative integer' },
        { field: 'spec.limited.lendablePercent', reason: 'FieldValueInvalid', message: 'Invalid value: 101: must be between 0 and 100, inclusive' },
        { field: 'spec.limited.borrowingLimitPercent', reason: 'FieldValueInvalid', message: 'Invalid value: -5: if specified, must be a non-negative integer' }]],
      ['an unknown limit response', { type: 'Limited', limited: { limitResponse: { type: 'Drop' } } }, [{ field: 'spec.limited.limitResponse.type', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Drop": supported values: "Queue", "Reject"' }]],
      ['Reject with queuing', { type: 'Limited', limited: { limitResponse: { type: 'Reject', queuing: { queues: 1, handSize: 1, queueLengthLimit: 1 } } } }, [{ field: 'spec.limited.limitResponse.queuing', reason: 'FieldValueForbidden', message: 'Forbidden: must be nil if limited.limitResponse.type is not Limited' }]],
      ['Queue without queuing', { type: 'Limited', limited: { limitResponse: { type: 'Queue' } } }, [{ field: 'spec.limited.limitResponse.queuing', reason: 'FieldValueRequired', message: 'Required value: must not be empty if limited.limitResponse.type is Limited' }]],
      ['negative queuing numbers', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: -1, handSize: -2, queueLengthLimit: -3 } } } }, [
        { field: 'spec.limited.limitResponse.queuing.queueLengthLimit', reason: 'FieldValueInvalid', message: 'Invalid value: -3: must be positive' },
        { field: 'spec.limited.limitResponse.queuing.queues', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be positive' },
        { field: 'spec.limited.limitResponse.queuing.handSize', reason: 'FieldValueInvalid', message: 'Invalid value: -2: must be positive' }]],
      ['a hand larger than the deck', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 5 } } } }, [{ field: 'spec.limited.limitResponse.queuing.handSize', reason: 'FieldValueInvalid', message: 'Invalid value: 5: should not be greater than queues (4)' }]],
      ['too many queues', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 10000001, handSize: 1 } } } }, [{ field: 'spec.limited.limitResponse.queuing.queues', reason: 'FieldValueInvalid', message: 'Invalid value: 10000001: must not be greater than 10000000' }]],
      ['more entropy than 60 bits', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 10 } } } }, [{ field: 'spec.limited.limitResponse.queuing.handSize', reason: 'FieldValueInvalid', message: 'Invalid value: 10: required entropy bits of deckSize 128 and handSize 10 should not be greater than 60' }]],
    ];
    rows.forEach(([what, spec, causes], i) => {
      it(`refuses ${what}`, async () => {
        const res = await rejectedLeavingStore(t, PL, () => t.post(PL, level(`invalid-${i}`, spec)));
        expectInvalidCauses(res, 'PriorityLevelConfiguration', causes);
      });
    });

    it('refuses the v1beta3 round-trip annotation', async () => {
      const res = await t.post(PL, level('roundtrip', limitedSpec(), { annotations: { 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares': '' } }));
      expectInvalidCauses(res, 'PriorityLevelConfiguration', [{ field: 'metadata.annotations', reason: 'FieldValueForbidden', message: "Forbidden: annotation 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares' is forbidden" }]);
    });
  });

  describe('the Dangling condition (the config consumer)', () => {
    it('says NotFound while the level is missing, Found once it exists, and NotFound again after it goes', async () => {
      const created = await t.post(FS, flowSchema('orphan', { priorityLevelConfiguration: { name: 'later' }, matchingPrecedence: 600, rules: RULES }));
      expect(created.status, created.text).to.equal(201);
      const dangling = (status: string) => eventually(async () => {
        const fs = (await t.get(`${FS}/orphan`)).body;
        return (fs.status.conditions ?? []).find((c: Body) => c.type === 'Dangling' && c.status === status);
      });
      const missing = await dangling('True');
      expect(missing).to.include({ reason: 'NotFound', message: 'This FlowSchema references the PriorityLevelConfiguration object named "later" but there is no such object' });
      expect(missing.lastTransitionTime).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const row = await t.get(`${FS}/orphan`, TABLE);
      expect(row.body.rows[0].cells[5]).to.equal('True');
      expect((await t.post(PL, level('later', limitedSpec()))).status).to.equal(201);
      expect(await dangling('False')).to.include({ reason: 'Found', message: 'This FlowSchema references the PriorityLevelConfiguration object named "later" and it exists' });
      const fs = (await t.get(`${FS}/orphan`)).body;
      expect(fs.metadata.managedFields.find((m: Body) => m.subresource === 'status')?.manager).to.equal('api-priority-and-fairness-config-consumer-v1');
      expect((await t.del(`${PL}/later`)).status).to.equal(200);
      await dangling('True');
    });
  });

  describe('reads', () => {
    it("prints kubectl's FlowSchema columns", async () => {
      const res = await t.get(`${FS}/kube-controller-manager`, TABLE);
      expect(res.body.columnDefinitions.map((c: Body) => c.name)).to.deep.equal(['Name', 'PriorityLevel', 'MatchingPrecedence', 'DistinguisherMethod', 'Age', 'MissingPL']);
      expect(res.body.rows[0].cells.slice(0, 4)).to.deep.equal(['kube-controller-manager', 'workload-high', 800, 'ByNamespace']);
      const exempt = await eventually(async () => { const r = (await t.get(`${FS}/exempt`, TABLE)).body.rows[0].cells; return r[5] === 'False' && r; });
      expect(exempt.slice(0, 4)).to.deep.equal(['exempt', 'exempt', 1, '<none>']);
    });

    it("prints kubectl's PriorityLevelConfiguration columns, <none> where a level has no queuing", async () => {
      const res = await t.get(PL, TABLE);
      expect(res.body.columnDefinitions.map((c: Body) => c.name)).to.deep.equal(['Name', 'Type', 'NominalConcurrencyShares', 'Queues', 'HandSize', 'QueueLengthLimit', 'Age']);
      const byName = new Map<string, unknown[]>(res.body.rows.map((r: Body) => [r.cells[0], r.cells.slice(1, 6)]));
      expect(byName.get('exempt')).to.deep.equal(['Exempt', '<none>', '<none>', '<none>', '<none>']);
      expect(byName.get('catch-all')).to.deep.equal(['Limited', 5, '<none>', '<none>', '<none>']);
      expect(byName.get('workload-low')).to.deep.equal(['Limited', 100, 128, 6, 50]);
    });

    it('answers in protobuf what it answers in JSON', async () => {
      const json = (await t.get(`${FS}/system-node-high`)).body;
      const pb = await t.get(`${FS}/system-node-high`, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
      expect(pb.status).to.equal(200);
      expect(pb.headers['content-type']).to.equal('application/vnd.kubernetes.protobuf');
      const decoded = decodeProtobuf(pb.raw as Buffer) as Body;
      expect(decoded.spec).to.deep.equal(json.spec);
      expect(decoded.status).to.deep.equal(json.status);
      const plJson = (await t.get(`${PL}/leader-election`)).body;
      const plPb = decodeProtobuf((await t.get(`${PL}/leader-election`, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } })).raw as Buffer) as Body;
      expect(plPb.spec).to.deep.equal(plJson.spec);
    });

    it('is in discovery as cluster-scoped flowschemas and prioritylevelconfigurations with status', async () => {
      const list = await t.get(`/apis/${GV}`);
      expect(list.body.resources.map((r: Body) => r.name)).to.deep.equal(['flowschemas', 'flowschemas/status', 'prioritylevelconfigurations', 'prioritylevelconfigurations/status']);
      expect(list.body.resources[0]).to.deep.include({ kind: 'FlowSchema', namespaced: false, singularName: 'flowschema' });
      const groups = (await t.get('/apis')).body.groups.map((g: Body) => g.name);
      expect(groups.indexOf('flowcontrol.apiserver.k8s.io')).to.be.greaterThan(groups.indexOf('discovery.k8s.io'));
    });
  });
});

describe('--enable-priority-and-fairness=false', () => {
  let t: TestServer;
  before(async () => { t = await startTestServer(['--flavor=kubernetes', '--enable-priority-and-fairness=false']); });
  after(async () => { await t?.stop(); });

  it('still keeps the bootstrap configuration (the producer hook runs regardless) but writes no conditions', async () => {
    const names = ((await t.get(FS)).body.items as Body[]).map((i) => i.metadata.name);
    expect(names).to.include.members(['exempt', 'catch-all', 'probes', 'global-default']);
    expect((await t.get('/readyz/poststarthook/priority-and-fairness-config-producer')).status).to.equal(200);
    const res: HttpResponse = await t.post(FS, flowSchema('lonely', { priorityLevelConfiguration: { name: 'none' }, rules: RULES }));
    expect(res.status, res.text).to.equal(201);
    await sleep(500);
    expect((await t.get(`${FS}/lonely`)).body.status).to.deep.equal({});
    expect((await t.get(`${FS}/exempt`)).body.status).to.deep.equal({});
  });
});
