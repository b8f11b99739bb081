/**
 * networking/v1 NetworkPolicy over HTTPS against a real etcd: Kubernetes 1.32's defaults (port
 * protocol TCP; policyTypes [Ingress], plus Egress with egress rules) and validation (ports,
 * peers, IP blocks, policyTypes, selectors), each refusal a 422 with Kubernetes' causes and
 * nothing stored; generation; kubectl's NAME POD-SELECTOR AGE table and the short name netpol.
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, TABLE, expectInvalidCauses, mergePatch, rejectedLeavingStore } from '../helpers/kind-checks';

const NS = 'netpols';
type Body = Record<string, any>;
const CIDR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

describe('NetworkPolicy (networking/v1)', () => {
  let t: TestServer;
  let group: string;
  const path = (name = '') => `/apis/${group}/v1/namespaces/${NS}/networkpolicies${name ? `/${name}` : ''}`;
  const policy = (name: string, spec: Body): Body => ({ apiVersion: `${group}/v1`, kind: 'NetworkPolicy', metadata: { name }, spec });
  const expectInvalid = (res: HttpResponse, causes: Cause[]) => expectInvalidCauses(res, 'NetworkPolicy', causes);

  before(async () => {
    t = await startTestServer();
    group = t.server.naming.group('networking');
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  describe('defaults (SetDefaults_NetworkPolicy)', () => {
    it('makes an empty policy an Ingress policy selecting every pod', async () => {
      const res = await t.post(path(), policy('deny-all', {}));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec).to.deep.equal({ podSelector: {}, policyTypes: ['Ingress'] });
      expect(res.body.metadata.generation).to.equal(1);
    });

    it('adds Egress when there are egress rules, and TCP to ports without protocol', async () => {
      const res = await t.post(path(), policy('both', {
        podSelector: { matchLabels: { app: 'db' } },
        ingress: [{ ports: [{ port: 5432 }, { protocol: 'UDP', port: 'dns' }] }],
        egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }], ports: [{ port: 1000, endPort: 2000 }] }],
      }));
      expect(res.status, res.text).to.equal(201);
      expect(res.body.spec.policyTypes).to.deep.equal(['Ingress', 'Egress']);
      expect(res.body.spec.ingress[0].ports).to.deep.equal([{ protocol: 'TCP', port: 5432 }, { protocol: 'UDP', port: 'dns' }]);
      expect(res.body.spec.egress[0].ports).to.deep.equal([{ protocol: 'TCP', port: 1000, endPort: 2000 }]);
    });

    it('keeps explicit policyTypes (an egress-only policy)', async () => {
      const res = await t.post(path(), policy('egress-only', { policyTypes: ['Egress'] }));
      expect(res.body.spec.policyTypes).to.deep.equal(['Egress']);
    });
  });

  describe('validation (ValidateNetworkPolicySpec)', () => {
    const inRule = (rule: Body): Body => ({ ingress: [rule] });
    const invalid: Array<[string, Body, Cause[]]> = [
      ['an unknown protocol', inRule({ ports: [{ protocol: 'ICMP' }] }), [
        { field: 'spec.ingress[0].ports[0].protocol', reason: 'FieldValueNotSupported', message: 'Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"' }]],
      ['a port out of range', inRule({ ports: [{ port: 70000 }] }), [
        { field: 'spec.ingress[0].ports[0].port', reason: 'FieldValueInvalid', message: 'Invalid value: 70000: must be between 1 and 65535, inclusive' }]],
      ['an endPort below port', inRule({ ports: [{ port: 100, endPort: 90 }] }), [
        { field: 'spec.ingress[0].ports[0].endPort', reason: 'FieldValueInvalid', message: 'Invalid value: 90: must be greater than or equal to `port`' }]],
      ['an endPort after a named port', inRule({ ports: [{ port: 'http', endPort: 90 }] }), [
        { field: 'spec.ingress[0].ports[0].endPort', reason: 'FieldValueInvalid', message: 'Invalid value: 90: may not be specified when `port` is non-numeric' }]],
      ['an endPort without port', inRule({ ports: [{ endPort: 90 }] }), [
        { field: 'spec.ingress[0].ports[0].endPort', reason: 'FieldValueInvalid', message: 'Invalid value: 90: may not be specified when `port` is not specified' }]],
      ['a bad port name', inRule({ ports: [{ port: 'a--b' }] }), [
        { field: 'spec.ingress[0].ports[0].port', reason: 'FieldValueInvalid', message: 'Invalid value: "a--b": must not contain consecutive hyphens' }]],
      ['an empty peer', inRule({ from: [{}] }), [
        { field: 'spec.ingress[0].from[0]', reason: 'FieldValueRequired', message: 'Required value: must specify a peer' }]],
      ['ipBlock with a selector', { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }] }] }, [
        { field: 'spec.egress[0].to[0]', reason: 'FieldValueForbidden', message: 'Forbidden: may not specify both ipBlock and another peer' }]],
      ['an ipBlock without cidr', inRule({ from: [{ ipBlock: { cidr: '' } }] }), [
        { field: 'spec.ingress[0].from[0].ipBlock.cidr', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['a bad cidr', inRule({ from: [{ ipBlock: { cidr: '10.0.0.0/33' } }] }), [
        { field: 'spec.ingress[0].from[0].ipBlock.cidr', reason: 'FieldValueInvalid', message: `Invalid value: "10.0.0.0/33": ${CIDR}` }]],
      ['an except outside cidr, and a bad except', inRule({ from: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.1.0.0/24', '10.0.0.0/16', 'x'] } }] }), [
        { field: 'spec.ingress[0].from[0].ipBlock.except[0]', reason: 'FieldValueInvalid', message: 'Invalid value: "10.1.0.0/24": must be a strict subset of `cidr`' },
        { field: 'spec.ingress[0].from[0].ipBlock.except[1]', reason: 'FieldValueInvalid', message: 'Invalid value: "10.0.0.0/16": must be a strict subset of `cidr`' },
        { field: 'spec.ingress[0].from[0].ipBlock.except[2]', reason: 'FieldValueInvalid', message: `Invalid value: "x": ${CIDR}` }]],
      ['an unknown policy type', { policyTypes: ['Ingress', 'Sideways'] }, [
        { field: 'spec.policyTypes[1]', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Sideways": supported values: "Ingress", "Egress"' }]],
      ['three policy types', { policyTypes: ['Ingress', 'Egress', 'Ingress'] }, [
        { field: 'spec.policyTypes', reason: 'FieldValueInvalid', message: 'Invalid value: []networking.PolicyType{"Ingress", "Egress", "Ingress"}: may not specify more than two policyTypes' }]],
      ['a bad podSelector operator', { podSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } }, [
        { field: 'spec.podSelector.matchExpressions[0].operator', reason: 'FieldValueInvalid', message: 'Invalid value: "Near": not a valid selector operator' }]],
    ];
    invalid.forEach(([what, spec, causes], i) => {
      it(`refuses ${what}, storing nothing`, async () => {
        expectInvalid(await rejectedLeavingStore(t, path(), () => t.post(path(), policy(`invalid-${i}`, spec))), causes);
      });
    });

    it('validates updates and bumps generation on spec changes only', async () => {
      expect((await t.post(path(), policy('upd', {}))).status).to.equal(201);
      const bad = await rejectedLeavingStore(t, path(), () => mergePatch(t, path('upd'), { spec: { policyTypes: ['Up'] } }));
      expectInvalid(bad, [{ field: 'spec.policyTypes[0]', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Up": supported values: "Ingress", "Egress"' }]);
      const good = await mergePatch(t, path('upd'), { spec: { egress: [{}], policyTypes: null } });
      expect(good.status, good.text).to.equal(200);
      expect(good.body.spec.policyTypes).to.deep.equal(['Ingress', 'Egress']);
      expect(good.body.metadata.generation).to.equal(2);
      const label = await mergePatch(t, path('upd'), { metadata: { labels: { a: 'b' } } });
      expect(label.body.metadata.generation).to.equal(2);
    });
  });

  describe('table and discovery', () => {
    it('prints NAME POD-SELECTOR AGE and has the short name netpol', async () => {
      await t.post(path(), policy('tbl', { podSelector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] } }));
      const res = await t.get(path(), TABLE);
      expect(res.body.columnDefinitions.map((c: Body) => c.name)).to.deep.equal(['Name', 'Pod-Selector', 'Age']);
      const rows = new Map<string, unknown[]>(res.body.rows.map((r: Body) => [r.cells[0], r.cells.slice(0, 2)]));
      expect(rows.get('tbl')).to.deep.equal(['tbl', 'app=web,tier in (a,b)']);
      expect(rows.get('deny-all')).to.deep.equal(['deny-all', '<none>']);
      const disc = await t.get(`/apis/${group}/v1`);
      expect(disc.body.resources.find((r: Body) => r.name === 'networkpolicies').shortNames).to.deep.equal(['netpol']);
    });
  });
});
