/**
 * core/v1 Node over HTTPS against a real etcd: created with its status (as a kubelet registers),
 * Kubernetes 1.32's defaults (allocatable from capacity, podCIDR from podCIDRs, the nodeInfo and
 * daemonEndpoints Go always writes) and validation (each bad node answered 422 with the cause's
 * field path, reason and message, nothing stored), the set-once fields, status written only
 * through /status (which keeps the spec), kubectl's columns (STATUS, ROLES, -o wide), the
 * `spec.unschedulable` field selector, DELETE answering a Status, and TaintNodesByCondition.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, TABLE, expectInvalidCauses, mergePatch, rejectedLeavingStore } from '../helpers/kind-checks';

type Body = Record<string, any>;
const NODES = '/api/v1/nodes';
const node = (name: string, extra: Body = {}): Body => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, ...extra });
const EMPTY_INFO = {
  machineID: '', systemUUID: '', bootID: '', kernelVersion: '', osImage: '', containerRuntimeVersion: '',
  kubeletVersion: '', kubeProxyVersion: '', operatingSystem: '', architecture: '',
};
const NOT_READY = { key: 'node.orch.io/not-ready', effect: 'NoSchedule' };
const QUALIFIED = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const CIDR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

describe('Node (core/v1)', () => {
  let t: TestServer;
  before(async () => { t = await startTestServer(); });
  after(async () => { await t?.stop(); });

  describe('create, read, delete', () => {
    it('keeps the status a node registers with, defaults it as Go writes it, and answers DELETE with a Status', async () => {
      const res = await t.post(NODES, node('crud-1', {
        spec: { podCIDRs: ['10.244.0.0/24', 'fd00::/64'], providerID: 'fake://crud-1' },
        status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' }, addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] },
      }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec).to.deep.equal({ podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24', 'fd00::/64'], providerID: 'fake://crud-1', taints: [NOT_READY] });
      expect(res.body.status.capacity).to.deep.equal({ cpu: '4', memory: '8Gi', pods: '110' });
      expect(res.body.status.allocatable, 'allocatable defaults to capacity').to.deep.equal({ cpu: '4', memory: '8Gi', pods: '110' });
      expect(res.body.status.nodeInfo).to.deep.equal(EMPTY_INFO);
      expect(res.body.status.daemonEndpoints).to.deep.equal({ kubeletEndpoint: { Port: 0 } });
      const got = await t.get(`${NODES}/crud-1`);
      expect(got.body).to.deep.equal(res.body);
      const del = await t.del(`${NODES}/crud-1`);
      expect(del.status, del.text).to.equal(200);
      expect(del.body).to.include({ kind: 'Status', status: 'Success' });
      expect((await t.get(`${NODES}/crud-1`)).status).to.equal(404);
    });

    it('fills podCIDRs from podCIDR, drops configSource and status.config on create, and warns about externalID', async () => {
      const res = await t.post(NODES, node('crud-2', {
        spec: { podCIDR: '10.1.0.0/16', externalID: 'ext', configSource: { configMap: { namespace: 'kube-system', name: 'c', kubeletConfigKey: 'k' } } },
        status: { config: { error: 'x' } },
      }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec).to.deep.equal({ podCIDR: '10.1.0.0/16', podCIDRs: ['10.1.0.0/16'], externalID: 'ext', taints: [NOT_READY] });
      expect(res.body.status).to.not.have.property('config');
      expect(String(res.headers.warning)).to.contain('spec.externalID: this field is deprecated, and is unused by Kubernetes');
    });

    it('is cluster-scoped: a namespaced path is not found', async () => {
      expect((await t.get('/api/v1/namespaces/default/nodes')).status).to.equal(404);
    });
  });

  describe('TaintNodesByCondition', () => {
    it('adds the not-ready NoSchedule taint to a new node once, keeping the taints it has', async () => {
      const res = await t.post(NODES, node('taint-1', { spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }] } }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec.taints).to.deep.equal([{ key: 'dedicated', value: 'db', effect: 'NoExecute' }, NOT_READY]);
      const again = await t.post(NODES, node('taint-2', { spec: { taints: [NOT_READY] } }));
      expect(again.body.spec.taints).to.deep.equal([NOT_READY]);
    });

    it('leaves updates alone: a removed taint stays removed', async () => {
      await t.post(NODES, node('taint-3'));
      const res = await mergePatch(t, `${NODES}/taint-3`, { spec: { taints: null } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.spec.taints).to.equal(undefined);
    });
  });

  describe('validation (ValidateNode)', () => {
    const invalid: Array<[string, Body, Cause[]]> = [
      ['a taint key that is no qualified name', { spec: { taints: [{ key: 'a b', effect: 'NoSchedule' }] } }, [
        { field: 'metadata.taints[0].key', reason: 'FieldValueInvalid', message: `Invalid value: "a b": ${QUALIFIED}` }]],
      ['a taint without effect', { spec: { taints: [{ key: 'k' }] } }, [
        { field: 'metadata.taints[0].effect', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['an unknown taint effect', { spec: { taints: [{ key: 'k', effect: 'NoAdmit' }] } }, [{
        field: 'metadata.taints[0].effect', reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "NoAdmit": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      }]],
      ['a taint value that is no label value', { spec: { taints: [{ key: 'k', value: 'a b', effect: 'NoSchedule' }] } }, [{
        field: 'metadata.taints[0].value', reason: 'FieldValueInvalid',
        message: "Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      }]],
      ['two taints with one key and effect', { spec: { taints: [{ key: 'k', value: 'a', effect: 'NoSchedule' }, { key: 'k', value: 'b', effect: 'NoSchedule' }] } }, [{
        field: 'metadata.taints[1]', reason: 'FieldValueDuplicate',
        message: 'Duplicate value: core.Taint{Key:"k", Value:"b", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair',
      }]],
      ['a pod CIDR that is no CIDR', { spec: { podCIDRs: ['10.0.0.1'] } }, [
        { field: 'spec.podCIDRs[0]', reason: 'FieldValueInvalid', message: `Invalid value: "10.0.0.1": ${CIDR}` }]],
      ['two pod CIDRs of one family', { spec: { podCIDRs: ['10.0.0.0/24', '10.1.0.0/24'] } }, [{
        field: 'spec.podCIDRs', reason: 'FieldValueInvalid',
        message: 'Invalid value: []string{"10.0.0.0/24", "10.1.0.0/24"}: may specify no more than one CIDR for each IP family',
      }]],
      ['three pod CIDRs', { spec: { podCIDRs: ['10.0.0.0/24', 'fd00::/64', 'fd01::/64'] } }, [{
        field: 'spec.podCIDRs', reason: 'FieldValueInvalid',
        message: 'Invalid value: []string{"10.0.0.0/24", "fd00::/64", "fd01::/64"}: may specify no more than one CIDR for each IP family',
      }]],
      ['a repeated pod CIDR', { spec: { podCIDRs: ['10.0.0.0/24', '10.0.0.0/24'] } }, [
        { field: 'spec.podCIDRs', reason: 'FieldValueInvalid', message: 'Invalid value: []string{"10.0.0.0/24", "10.0.0.0/24"}: may specify no more than one CIDR for each IP family' },
        { field: 'spec.podCIDRs[1]', reason: 'FieldValueDuplicate', message: 'Duplicate value: "10.0.0.0/24"' }]],
      ['a negative capacity', { status: { capacity: { memory: '-1Gi' } } }, [
        { field: 'status.capacity.memory', reason: 'FieldValueInvalid', message: 'Invalid value: "-1Gi": must be greater than or equal to 0' },
        { field: 'status.allocatable.memory', reason: 'FieldValueInvalid', message: 'Invalid value: "-1Gi": must be greater than or equal to 0' }]],
      ['a fractional count of pods', { status: { capacity: { cpu: '1' }, allocatable: { pods: '1500m' } } }, [
        { field: 'status.allocatable.pods', reason: 'FieldValueInvalid', message: 'Invalid value: "1500m": must be an integer' }]],
      ['a fractional extended resource', { status: { capacity: { 'example.com/gpu': '0.5' } } }, [
        { field: 'status.capacity.example.com/gpu', reason: 'FieldValueInvalid', message: 'Invalid value: "500m": must be an integer' },
        { field: 'status.allocatable.example.com/gpu', reason: 'FieldValueInvalid', message: 'Invalid value: "500m": must be an integer' }]],
      ['a preferAvoidPods entry without a pod signature', { metadata: { name: 'x', annotations: { 'scheduler.alpha.kubernetes.io/preferAvoidPods': '{"preferAvoidPods":[{"reason":"r"}]}' } } }, [
        { field: 'metadata.annotations.scheduler.alpha.kubernetes.io/preferAvoidPods[0].PodSignature', reason: 'FieldValueRequired', message: 'Required value' }]],
    ];
    invalid.forEach(([what, extra, causes], i) => {
      it(`refuses ${what}`, async () => {
        const body = node(`invalid-${i}`, extra);
        body.metadata = { ...(extra.metadata ?? {}), name: `invalid-${i}` };
        const res = await rejectedLeavingStore(t, NODES, () => t.post(NODES, body));
        expectInvalidCauses(res, 'Node', causes);
      });
    });

    it('refuses a name that is no DNS subdomain', async () => {
      const res = await t.post(NODES, node('Bad_Name'));
      expect(res.status).to.equal(422);
      expect(res.body.details.causes[0].field).to.equal('metadata.name');
    });

    it('accepts a dual-stack pair, an IPv4 CIDR with leading zeros, and the three effects', async () => {
      const res = await t.post(NODES, node('valid-1', {
        spec: { podCIDRs: ['fd00:10::/64', '010.0.0.0/8'], taints: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'].map((effect) => ({ key: 'k', effect })) },
        status: { capacity: { pods: '110', 'example.com/gpu': '2', cpu: '1500m' } },
      }));
      expect(res.status, res.text).to.equal(201);
    });
  });

  describe('updates (ValidateNodeUpdate)', () => {
    before(async () => {
      const res = await t.post(NODES, node('upd', { spec: { podCIDRs: ['10.2.0.0/24'], providerID: 'fake://upd', externalID: 'e1' } }));
      expect(res.status, res.text).to.equal(201);
      expect((await t.post(NODES, node('upd-empty'))).status).to.equal(201);
    });
    const refused: Array<[string, string, Body, Cause[]]> = [
      ['a changed pod CIDR', 'upd', { spec: { podCIDRs: ['10.3.0.0/24'] } }, [
        { field: 'spec.podCIDRs', reason: 'FieldValueForbidden', message: 'Forbidden: node updates may not change podCIDR except from "" to valid' }]],
      ['a second pod CIDR', 'upd', { spec: { podCIDRs: ['10.2.0.0/24', 'fd00::/64'] } }, [
        { field: 'spec.podCIDRs', reason: 'FieldValueForbidden', message: 'Forbidden: node updates may not change podCIDR except from "" to valid' }]],
      ['a changed providerID', 'upd', { spec: { providerID: 'fake://other' } }, [
        { field: 'spec.providerID', reason: 'FieldValueForbidden', message: 'Forbidden: node updates may not change providerID except from "" to valid' }]],
      ['a changed externalID', 'upd', { spec: { externalID: 'e2' } }, [
        { field: 'spec.externalID', reason: 'FieldValueForbidden', message: 'Forbidden: may not be updated' }]],
    ];
    refused.forEach(([what, name, patch, causes]) => {
      it(`refuses ${what}`, async () => {
        const res = await rejectedLeavingStore(t, NODES, () => mergePatch(t, `${NODES}/${name}`, patch));
        expectInvalidCauses(res, 'Node', causes);
      });
    });

    it('sets the pod CIDR and providerID of a node that has none, and changes unschedulable and taints', async () => {
      const res = await mergePatch(t, `${NODES}/upd-empty`, { spec: { podCIDR: '10.9.0.0/24', providerID: 'fake://e', unschedulable: true, taints: [{ key: 'a', effect: 'NoSchedule' }] } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.spec).to.deep.equal({ podCIDR: '10.9.0.0/24', podCIDRs: ['10.9.0.0/24'], providerID: 'fake://e', unschedulable: true, taints: [{ key: 'a', effect: 'NoSchedule' }] });
    });

    it('refuses repeated addresses in a status update', async () => {
      const addresses = [{ type: 'InternalIP', address: '10.0.0.9' }, { type: 'Hostname', address: 'h' }, { type: 'InternalIP', address: '10.0.0.9' }];
      const current = (await t.get(`${NODES}/upd`)).body;
      const res = await rejectedLeavingStore(t, NODES, () => t.put(`${NODES}/upd/status`, { ...current, status: { ...current.status, addresses } }));
      expectInvalidCauses(res, 'Node', [{
        field: 'status.addresses[2]', reason: 'FieldValueDuplicate', message: 'Duplicate value: core.NodeAddress{Type:"InternalIP", Address:"10.0.0.9"}',
      }]);
    });
  });

  describe('status', () => {
    it('keeps the stored status on a write to the node, and the stored spec on a write to /status', async () => {
      const created = await t.post(NODES, node('status-1', { status: { capacity: { cpu: '2' } } }));
      expect(created.status).to.equal(201);
      const main = await t.put(`${NODES}/status-1`, { ...created.body, spec: { ...created.body.spec, unschedulable: true }, status: { capacity: { cpu: '64' } } });
      expect(main.status, main.text).to.equal(200);
      expect(main.body.spec.unschedulable).to.equal(true);
      expect(main.body.status.capacity).to.deep.equal({ cpu: '2' });
      const ready = { type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' };
      const status = await mergePatch(t, `${NODES}/status-1/status`, { spec: { unschedulable: false }, status: { conditions: [ready], capacity: { cpu: '8' } } });
      expect(status.status, status.text).to.equal(200);
      expect(status.body.spec.unschedulable, '/status keeps the spec').to.equal(true);
      expect(status.body.status.conditions).to.deep.equal([ready]);
      expect(status.body.status.capacity).to.deep.equal({ cpu: '8' });
      expect(status.body.status.allocatable, 'stored allocatable stays').to.deep.equal({ cpu: '2' });
    });
  });

  describe('table and field selectors', () => {
    before(async () => {
      const ready = (s: string) => ({ conditions: [{ type: 'Ready', status: s }] });
      expect((await t.post(NODES, node('tbl-ready', {
        metadata: { name: 'tbl-ready', labels: { 'node-role.orch.io/control-plane': '', 'node-role.orch.io/etcd': '', 'orch.io/role': 'worker' } },
        status: {
          ...ready('True'),
          addresses: [{ type: 'Hostname', address: 'tbl-ready' }, { type: 'InternalIP', address: '10.0.0.5' }, { type: 'ExternalIP', address: '203.0.113.5' }],
          nodeInfo: { ...EMPTY_INFO, kubeletVersion: 'v1.32.0', osImage: 'Debian GNU/Linux 12 (bookworm)', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.7.0' },
        },
      }))).status).to.equal(201);
      expect((await t.post(NODES, node('tbl-notready', { spec: { unschedulable: true }, status: ready('False') }))).status).to.equal(201);
      expect((await t.post(NODES, node('tbl-unknown', { spec: { unschedulable: true } }))).status).to.equal(201);
    });

    it('prints NAME STATUS ROLES AGE VERSION and the wide columns as kubectl does', async () => {
      const res = await t.get(NODES, TABLE);
      expect(res.status).to.equal(200);
      expect(res.body.columnDefinitions.map((c: Body) => `${c.name}/${c.priority}`)).to.deep.equal([
        'Name/0', 'Status/0', 'Roles/0', 'Age/0', 'Version/0', 'Internal-IP/1', 'External-IP/1', 'OS-Image/1', 'Kernel-Version/1', 'Container-Runtime/1']);
      const row = (name: string) => res.body.rows.find((r: Body) => r.cells[0] === name).cells;
      const [, status, roles, , version, ...wide] = row('tbl-ready');
      expect([status, roles, version]).to.deep.equal(['Ready', 'control-plane,etcd,worker', 'v1.32.0']);
      expect(wide).to.deep.equal(['10.0.0.5', '203.0.113.5', 'Debian GNU/Linux 12 (bookworm)', '6.1.0', 'containerd://1.7.0']);
      expect(row('tbl-notready').slice(1, 3)).to.deep.equal(['NotReady,SchedulingDisabled', '<none>']);
      expect(row('tbl-unknown').slice(1, 3)).to.deep.equal(['Unknown,SchedulingDisabled', '<none>']);
      expect(row('tbl-unknown').slice(5)).to.deep.equal(['<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']);
    });

    it('selects by spec.unschedulable and metadata.name, and refuses other fields', async () => {
      const names = async (sel: string) => ((await t.get(`${NODES}?fieldSelector=${encodeURIComponent(sel)}`)).body.items as Body[]).map((n) => n.metadata.name);
      const cordoned = await names('spec.unschedulable=true');
      expect(cordoned).to.include.members(['tbl-notready', 'tbl-unknown']);
      expect(cordoned).to.not.include('tbl-ready');
      expect(await names('spec.unschedulable=false')).to.include('tbl-ready').and.not.include('tbl-unknown');
      expect(await names('metadata.name=tbl-ready')).to.deep.equal(['tbl-ready']);
      const bad = await t.get(`${NODES}?fieldSelector=spec.providerID%3Dx`);
      expect(bad.status).to.equal(400);
    });
  });

  describe('the node lease namespace', () => {
    it('exists from the start, and may be deleted (it is not immortal, as in kube-apiserver)', async () => {
      const ns = await t.get('/api/v1/namespaces/orch-node-lease');
      expect(ns.status, ns.text).to.equal(200);
      expect(ns.body.status.phase).to.equal('Active');
      const del = await t.del('/api/v1/namespaces/orch-node-lease');
      expect(del.status, del.text).to.equal(200);
      expect(del.body.status.phase).to.equal('Terminating');
      expect((await t.del('/api/v1/namespaces/orch-system')).status, 'the system namespace stays immortal').to.equal(403);
    });
  });

  describe('protobuf', () => {
    it('round-trips a node with every spec and status field through protobuf', async () => {
      const full = node('proto-1', {
        spec: { podCIDRs: ['10.7.0.0/24'], providerID: 'p://1', unschedulable: true, taints: [{ key: 'k', value: 'v', effect: 'NoExecute', timeAdded: '2026-01-01T00:00:00Z' }] },
        status: {
          capacity: { cpu: '2' }, allocatable: { cpu: '1' }, phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'r', message: 'm' }],
          addresses: [{ type: 'InternalIP', address: '10.0.0.7' }], daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
          nodeInfo: { ...EMPTY_INFO, machineID: 'm', architecture: 'amd64' }, images: [{ names: ['a:1'], sizeBytes: 10 }],
          volumesInUse: ['v'], volumesAttached: [{ name: 'v', devicePath: '/dev/x' }],
          runtimeHandlers: [{ name: '', features: { recursiveReadOnlyMounts: true, userNamespaces: false } }],
        },
      });
      const created = await t.post(NODES, full);
      expect(created.status, created.text).to.equal(201);
      const pb = await t.get(`${NODES}/proto-1`, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
      expect(pb.status).to.equal(200);
      const put = await t.request('PUT', `${NODES}/proto-1`, { raw: pb.raw, headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' } });
      expect(put.status, put.text).to.equal(200);
      const after = (await t.get(`${NODES}/proto-1`)).body;
      expect(after.spec).to.deep.equal(created.body.spec);
      expect(after.status).to.deep.equal(created.body.status);
    });
  });
});
