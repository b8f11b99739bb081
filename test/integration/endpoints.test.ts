/**
 * core/v1 Endpoints over HTTPS against a real etcd: CRUD with PUT creating, the port protocol
 * default, Kubernetes 1.32's validation (each bad subset answered 422 with the cause's field
 * path, reason and message, nothing stored), kubectl's NAME ENDPOINTS AGE cells, the short name
 * `ep` in discovery and protobuf bytes of core/v1's Endpoints message.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, TABLE, expectInvalidCauses, rejectedLeavingStore } from '../helpers/kind-checks';

const NS = 'eps';
const path = (name = '') => `/api/v1/namespaces/${NS}/endpoints${name ? `/${name}` : ''}`;
type Body = Record<string, any>;
const endpoints = (name: string, subsets: Body[] | undefined): Body => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name }, ...(subsets ? { subsets } : {}) });

const DNS_LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS_SUBDOMAIN = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const QUALIFIED = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('Endpoints (core/v1)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  it('creates with the protocol defaulted to TCP, reads, lists, and PUT both creates and updates without a resourceVersion', async () => {
    const subsets = [{ addresses: [{ ip: '10.0.0.1', hostname: 'a', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: NS, name: 'p1' } }], ports: [{ port: 80 }] }];
    const res = await t.post(path(), endpoints('web', subsets));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.subsets).to.deep.equal([{ ...subsets[0], ports: [{ port: 80, protocol: 'TCP' }] }]);
    expect((await t.get(path('web'))).body).to.deep.equal(res.body);
    expect((await t.get(path())).body.items.map((i: Body) => i.metadata.name)).to.include('web');
    const put = await t.put(path('put-created'), endpoints('put-created', [{ notReadyAddresses: [{ ip: '10.0.0.9' }] }]));
    expect(put.status, put.text).to.equal(201);
    const unconditional = await t.put(path('web'), endpoints('web', [{ addresses: [{ ip: '10.0.0.2' }], ports: [{ port: 81, protocol: 'UDP' }] }]));
    expect(unconditional.status, unconditional.text).to.equal(200);
    expect(unconditional.body.subsets[0].ports).to.deep.equal([{ port: 81, protocol: 'UDP' }]);
    expect(unconditional.body.metadata.generation).to.equal(undefined);
  });

  describe('validation (ValidateEndpoints)', () => {
    const invalid: Array<[string, Body[], Cause[]]> = [
      ['a subset without addresses', [{ ports: [{ port: 80 }] }], [
        { field: 'subsets[0]', reason: 'FieldValueRequired', message: 'Required value: must specify `addresses` or `notReadyAddresses`' }]],
      ['an address that is not an IP', [{ addresses: [{ ip: 'not-an-ip' }] }], [
        { field: 'subsets[0].addresses[0].ip', reason: 'FieldValueInvalid', message: 'Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)' },
        { field: 'subsets[0].addresses[0].ip', reason: 'FieldValueInvalid', message: 'Invalid value: "not-an-ip": must be a valid IP address' }]],
      ['a loopback address', [{ addresses: [{ ip: '127.0.0.1' }] }], [
        { field: 'subsets[0].addresses[0].ip', reason: 'FieldValueInvalid', message: 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)' }]],
      ['an IPv6 loopback address', [{ notReadyAddresses: [{ ip: '::1' }] }], [
        { field: 'subsets[0].notReadyAddresses[0].ip', reason: 'FieldValueInvalid', message: 'Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)' }]],
      ['a link-local address', [{ addresses: [{ ip: '169.254.169.254' }] }], [
        { field: 'subsets[0].addresses[0].ip', reason: 'FieldValueInvalid', message: 'Invalid value: "169.254.169.254": may not be in the link-local range (169.254.0.0/16, fe80::/10)' }]],
      ['a link-local multicast address', [{ addresses: [{ ip: '224.0.0.1' }] }], [
        { field: 'subsets[0].addresses[0].ip', reason: 'FieldValueInvalid', message: 'Invalid value: "224.0.0.1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)' }]],
      ['the unspecified address', [{ addresses: [{ ip: '0.0.0.0' }] }], [
        { field: 'subsets[0].addresses[0].ip', reason: 'FieldValueInvalid', message: 'Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)' }]],
      ['a bad hostname', [{ addresses: [{ ip: '10.0.0.1', hostname: 'Bad_Host' }] }], [
        { field: 'subsets[0].addresses[0].hostname', reason: 'FieldValueInvalid', message: `Invalid value: "Bad_Host": ${DNS_LABEL}` }]],
      ['a bad nodeName', [{ addresses: [{ ip: '10.0.0.1', nodeName: 'Node_1' }] }], [
        { field: 'subsets[0].addresses[0].nodeName', reason: 'FieldValueInvalid', message: `Invalid value: "Node_1": ${DNS_SUBDOMAIN}` }]],
      ['two ports, one without a name', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'a', port: 80 }, { port: 81 }] }], [
        { field: 'subsets[0].ports[1].name', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['a bad port name', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'HTTP', port: 80 }] }], [
        { field: 'subsets[0].ports[0].name', reason: 'FieldValueInvalid', message: `Invalid value: "HTTP": ${DNS_LABEL}` }]],
      ['port 0', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'a', port: 0 }] }], [
        { field: 'subsets[0].ports[0].port', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be between 1 and 65535, inclusive' }]],
      ['port 65536', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 65536 }] }], [
        { field: 'subsets[0].ports[0].port', reason: 'FieldValueInvalid', message: 'Invalid value: 65536: must be between 1 and 65535, inclusive' }]],
      ['an unknown protocol', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80, protocol: 'HTTP' }] }], [
        { field: 'subsets[0].ports[0].protocol', reason: 'FieldValueNotSupported', message: 'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"' }]],
      ['a bad appProtocol', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80, appProtocol: 'h t t p' }] }], [
        { field: 'subsets[0].ports[0].appProtocol', reason: 'FieldValueInvalid', message: `Invalid value: "h t t p": ${QUALIFIED}` }]],
    ];
    invalid.forEach(([what, subsets, causes], i) => {
      it(`refuses ${what}, storing nothing`, async () => {
        const res = await rejectedLeavingStore(t, path(), () => t.post(path(), endpoints(`invalid-${i}`, subsets)));
        expectInvalidCauses(res, 'Endpoints', causes);
      });
    });

    it('checks an update as a create, and leaves the stored object as it was', async () => {
      const created = await t.post(path(), endpoints('update-checked', [{ addresses: [{ ip: '10.0.0.5' }] }]));
      expect(created.status, created.text).to.equal(201);
      const res = await rejectedLeavingStore(t, path(), () => t.put(path('update-checked'), { ...created.body, subsets: [{ addresses: [{ ip: '127.0.0.5' }] }] }));
      expectInvalidCauses(res, 'Endpoints', [
        { field: 'subsets[0].addresses[0].ip', reason: 'FieldValueInvalid', message: 'Invalid value: "127.0.0.5": may not be in the loopback range (127.0.0.0/8, ::1/128)' }]);
    });

    it('accepts IPv6 endpoints, a headless subset without ports and an IPv4 address with leading zeros (ParseIPSloppy)', async () => {
      const res = await t.post(path(), endpoints('valid-mix', [{ addresses: [{ ip: '2001:db8::1' }, { ip: '010.000.000.001' }] }]));
      expect(res.status, res.text).to.equal(201);
    });
  });

  it('prints kubectl\'s NAME ENDPOINTS AGE: ip:port pairs, three at most then "+ N more...", <none> without subsets', async () => {
    await t.post(path(), endpoints('tbl-many', [
      { addresses: [{ ip: '10.1.0.1' }, { ip: '10.1.0.2' }], ports: [{ name: 'a', port: 80 }, { name: 'b', port: 443 }] },
      { addresses: [{ ip: '2001:db8::5' }], ports: [{ port: 53 }] },
    ]));
    await t.post(path(), endpoints('tbl-none', undefined));
    await t.post(path(), endpoints('tbl-headless', [{ addresses: [{ ip: '10.2.0.1' }] }]));
    const table = (await t.get(path(), TABLE)).body;
    expect(table.columnDefinitions.map((c: Body) => c.name)).to.deep.equal(['Name', 'Endpoints', 'Age']);
    const cells = (name: string) => table.rows.find((r: Body) => r.cells[0] === name).cells.slice(0, 2);
    expect(cells('tbl-many')).to.deep.equal(['tbl-many', '10.1.0.1:80,10.1.0.2:80,10.1.0.1:443 + 2 more...']);
    expect(cells('tbl-none')).to.deep.equal(['tbl-none', '<none>']);
    expect(cells('tbl-headless')).to.deep.equal(['tbl-headless', '10.2.0.1']);
  });

  it('is listed in discovery with the short name ep', async () => {
    const list = (await t.get('/api/v1')).body.resources as Body[];
    const ep = list.find((r) => r.name === 'endpoints');
    expect(ep).to.include({ kind: 'Endpoints', namespaced: true, singularName: 'endpoints' });
    expect(ep!.shortNames).to.deep.equal(['ep']);
  });

  it('answers protobuf with core/v1 Endpoints field numbers (metadata 1, subsets 2; ip 1, port 2 as a varint)', async () => {
    await t.post(path(), endpoints('proto', [{ addresses: [{ ip: '10.3.0.1' }], ports: [{ port: 8080 }] }]));
    const res = await t.get(path('proto'), { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
    expect(res.status).to.equal(200);
    const raw = res.raw!;
    // Go writes value fields always, empty strings included: EndpointAddress{ip(1) "10.3.0.1", hostname(3) ""},
    // EndpointPort{name(1) "", port(2) 8080 as a varint, protocol(3) "TCP"}, in a subset at field 2 of Endpoints.
    const address = Buffer.from([0x0a, 0x08, ...Buffer.from('10.3.0.1'), 0x1a, 0x00]);
    const port = Buffer.from([0x0a, 0x00, 0x10, 0x90, 0x3f, 0x1a, 0x03, ...Buffer.from('TCP')]);
    const inner = Buffer.concat([Buffer.from([0x0a, address.length]), address, Buffer.from([0x1a, port.length]), port]);
    const subset = Buffer.concat([Buffer.from([0x12, inner.length]), inner]);
    expect(raw.includes(subset), raw.toString('hex')).to.equal(true);
  });
});
