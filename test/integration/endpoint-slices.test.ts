/**
 * EndpointSlice over HTTPS against a real etcd, at discovery v1 and at v1beta1: CRUD, defaults
 * (port name "" and protocol TCP, conditions written as {}), Kubernetes 1.32's validation (each
 * bad slice answered 422 with the cause's field path, reason and message, nothing stored;
 * addressType immutable), the strategy (generation, deprecatedTopology not writable at v1),
 * kubectl's NAME ADDRESSTYPE PORTS ENDPOINTS AGE cells, and v1beta1: not served by default,
 * served with --runtime-config, its topology converted to and from v1's nodeName and zone.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, TABLE, expectInvalidCauses, mergePatch, rejectedLeavingStore } from '../helpers/kind-checks';

const NS = 'slices';
type Body = Record<string, any>;

const DNS_LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const LABEL_VALUE = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('EndpointSlice (discovery v1)', () => {
  let t: TestServer;
  let group: string;
  let path: (name?: string) => string;
  const slice = (name: string, fields: Body, extra: Body = {}): Body => ({ apiVersion: `${group}/v1`, kind: 'EndpointSlice', metadata: { name, ...extra }, ...fields });

  before(async () => {
    t = await startTestServer();
    group = t.server.naming.group('discovery');
    path = (name = '') => `/apis/${group}/v1/namespaces/${NS}/endpointslices${name ? `/${name}` : ''}`;
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  it('creates with Kubernetes\' defaults and generation 1, reads and lists; PUT does not create', async () => {
    const res = await t.post(path(), slice('web-abc', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], nodeName: 'node-1', zone: 'z1' }], ports: [{ port: 80 }] }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.endpoints).to.deep.equal([{ addresses: ['10.0.0.1'], conditions: {}, nodeName: 'node-1', zone: 'z1' }]);
    expect(res.body.ports).to.deep.equal([{ name: '', protocol: 'TCP', port: 80 }]);
    expect(res.body.metadata.generation).to.equal(1);
    expect((await t.get(path('web-abc'))).body).to.deep.equal(res.body);
    expect((await t.get(path())).body.items.map((i: Body) => i.metadata.name)).to.include('web-abc');
    const put = await t.put(path('not-there'), slice('not-there', { addressType: 'IPv4', endpoints: [] }));
    expect(put.status, put.text).to.equal(404);
  });

  it('bumps the generation on a change of endpoints or labels, not of annotations; an update may omit the resourceVersion', async () => {
    const created = (await t.post(path(), slice('gen', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.2'] }] }))).body;
    const annotated = await mergePatch(t, path('gen'), { metadata: { annotations: { a: 'b' } } });
    expect(annotated.body.metadata.generation).to.equal(1);
    const labelled = await mergePatch(t, path('gen'), { metadata: { labels: { 'kubernetes.io/service-name': 'web' } } });
    expect(labelled.body.metadata.generation).to.equal(2);
    const { resourceVersion: _rv, ...meta } = labelled.body.metadata;
    const moved = await t.put(path('gen'), { ...created, metadata: meta, endpoints: [{ addresses: ['10.0.0.3'] }] });
    expect(moved.status, moved.text).to.equal(200);
    expect(moved.body.metadata.generation).to.equal(3);
  });

  it('drops deprecatedTopology written at v1 (it is not writable there)', async () => {
    const res = await t.post(path(), slice('topo', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.4'], deprecatedTopology: { 'kubernetes.io/hostname': 'node-9' } }] }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.endpoints[0]).to.deep.equal({ addresses: ['10.0.0.4'], conditions: {} });
  });

  describe('validation (ValidateEndpointSlice)', () => {
    const invalid: Array<[string, Body, Cause[]]> = [
      ['no addressType', { endpoints: [] }, [{ field: 'addressType', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['an unknown addressType', { addressType: 'IP', endpoints: [] }, [
        { field: 'addressType', reason: 'FieldValueNotSupported', message: 'Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"' }]],
      ['an endpoint without addresses', { addressType: 'IPv4', endpoints: [{ addresses: [] }] }, [
        { field: 'endpoints[0].addresses', reason: 'FieldValueRequired', message: 'Required value: must contain at least 1 address' }]],
      ['an IPv6 address in an IPv4 slice', { addressType: 'IPv4', endpoints: [{ addresses: ['2001:db8::1'] }] }, [
        { field: 'endpoints[0].addresses[0]', reason: 'FieldValueInvalid', message: 'Invalid value: "2001:db8::1": must be a valid IPv4 address' }]],
      ['an IPv4 address in an IPv6 slice', { addressType: 'IPv6', endpoints: [{ addresses: ['10.0.0.1'] }] }, [
        { field: 'endpoints[0].addresses[0]', reason: 'FieldValueInvalid', message: 'Invalid value: "10.0.0.1": must be a valid IPv6 address' }]],
      ['a loopback address', { addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'] }] }, [
        { field: 'endpoints[0].addresses[0]', reason: 'FieldValueInvalid', message: 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)' }]],
      ['a link-local IPv6 address', { addressType: 'IPv6', endpoints: [{ addresses: ['fe80::1'] }] }, [
        { field: 'endpoints[0].addresses[0]', reason: 'FieldValueInvalid', message: 'Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)' }]],
      ['an FQDN with one segment', { addressType: 'FQDN', endpoints: [{ addresses: ['localhost'] }] }, [
        { field: 'endpoints[0].addresses[0]', reason: 'FieldValueInvalid', message: 'Invalid value: "localhost": should be a domain with at least two segments separated by dots' }]],
      ['a bad hostname', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], hostname: 'Pod_A' }] }, [
        { field: 'endpoints[0].hostname', reason: 'FieldValueInvalid', message: `Invalid value: "Pod_A": ${DNS_LABEL}` }]],
      ['a duplicate zone hint', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], hints: { forZones: [{ name: 'a' }, { name: 'a' }] } }] }, [
        { field: 'endpoints[0].hints.forZones[1].name', reason: 'FieldValueDuplicate', message: 'Duplicate value: "a"' }]],
      ['a zone hint that is not a label value', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], hints: { forZones: [{ name: 'a b' }] } }] }, [
        { field: 'endpoints[0].hints.forZones[0].name', reason: 'FieldValueInvalid', message: `Invalid value: "a b": ${LABEL_VALUE}` }]],
      ['nine zone hints', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], hints: { forZones: [...'abcdefghi'].map((name) => ({ name })) } }] }, [
        { field: 'endpoints[0].hints.forZones', reason: 'FieldValueTooMany', message: 'Too many: 9: must have at most 8 items' }]],
      ['101 addresses', { addressType: 'IPv4', endpoints: [{ addresses: Array.from({ length: 101 }, (_, i) => `10.1.${i >> 8}.${(i & 255) + 1}`) }] }, [
        { field: 'endpoints[0].addresses', reason: 'FieldValueTooMany', message: 'Too many: 101: must have at most 100 items' }]],
      ['two ports of one name', { addressType: 'IPv4', endpoints: [], ports: [{ name: 'http', port: 80 }, { name: 'http', port: 81 }] }, [
        { field: 'ports[1].name', reason: 'FieldValueDuplicate', message: 'Duplicate value: "http"' }]],
      ['a bad port name', { addressType: 'IPv4', endpoints: [], ports: [{ name: 'Http', port: 80 }] }, [
        { field: 'ports[0].name', reason: 'FieldValueInvalid', message: `Invalid value: "Http": ${DNS_LABEL}` }]],
      ['an unknown protocol', { addressType: 'IPv4', endpoints: [], ports: [{ port: 80, protocol: 'QUIC' }] }, [
        { field: 'ports[0].protocol', reason: 'FieldValueNotSupported', message: 'Unsupported value: "QUIC": supported values: "SCTP", "TCP", "UDP"' }]],
      ['101 ports', { addressType: 'IPv4', endpoints: [], ports: Array.from({ length: 101 }, (_, i) => ({ name: `p${i}`, port: 1000 + i })) }, [
        { field: 'ports', reason: 'FieldValueTooMany', message: 'Too many: 101: must have at most 100 items' }]],
    ];
    invalid.forEach(([what, fields, causes], i) => {
      it(`refuses ${what}, storing nothing`, async () => {
        const res = await rejectedLeavingStore(t, path(), () => t.post(path(), slice(`invalid-${i}`, fields)));
        expectInvalidCauses(res, 'EndpointSlice', causes);
      });
    });

    it('refuses a change of addressType (immutable)', async () => {
      const created = await t.post(path(), slice('immutable', { addressType: 'IPv4', endpoints: [] }));
      expect(created.status, created.text).to.equal(201);
      const res = await rejectedLeavingStore(t, path(), () => t.put(path('immutable'), { ...created.body, addressType: 'IPv6' }));
      expectInvalidCauses(res, 'EndpointSlice', [{ field: 'addressType', reason: 'FieldValueInvalid', message: 'Invalid value: "IPv6": field is immutable' }]);
    });
  });

  it('prints kubectl\'s NAME ADDRESSTYPE PORTS ENDPOINTS AGE', async () => {
    await t.post(path(), slice('tbl-many', {
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.5.0.1', '10.5.0.2'] }, { addresses: ['10.5.0.3'] }, { addresses: ['10.5.0.4'] }, { addresses: ['10.5.0.5'] }],
      ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }, { name: 'c', port: 82 }, { name: 'd', port: 83 }],
    }));
    await t.post(path(), slice('tbl-empty', { addressType: 'FQDN', endpoints: [] }));
    const table = (await t.get(path(), TABLE)).body;
    expect(table.columnDefinitions.map((c: Body) => c.name)).to.deep.equal(['Name', 'AddressType', 'Ports', 'Endpoints', 'Age']);
    const cells = (name: string) => table.rows.find((r: Body) => r.cells[0] === name).cells.slice(0, 4);
    expect(cells('tbl-many')).to.deep.equal(['tbl-many', 'IPv4', '80,81,82 + 1 more...', '10.5.0.1,10.5.0.2,10.5.0.3 + 2 more...']);
    expect(cells('tbl-empty')).to.deep.equal(['tbl-empty', 'FQDN', '<unset>', '<unset>']);
  });

  it('answers v1beta1 404: it is not served by default', async () => {
    expect((await t.get(`/apis/${group}/v1beta1/namespaces/${NS}/endpointslices`)).status).to.equal(404);
    const versions = (await t.get(`/apis/${group}`)).body.versions.map((v: Body) => v.version);
    expect(versions).to.deep.equal(['v1']);
  });
});

describe('EndpointSlice at discovery v1beta1 (--runtime-config)', () => {
  let t: TestServer;
  let group: string;
  const v1 = (name = '') => `/apis/${group}/v1/namespaces/${NS}/endpointslices${name ? `/${name}` : ''}`;
  const beta = (name = '') => `/apis/${group}/v1beta1/namespaces/${NS}/endpointslices${name ? `/${name}` : ''}`;

  before(async () => {
    const probe = await startTestServer();
    group = probe.server.naming.group('discovery');
    await probe.stop();
    t = await startTestServer([`--runtime-config=${group}/v1beta1=true`]);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  it('stores a v1beta1 topology as v1 nodeName, zone and deprecatedTopology, and reads it back the same at v1beta1', async () => {
    const topology = { 'kubernetes.io/hostname': 'node-1', 'topology.kubernetes.io/zone': 'zone-a', 'example.com/rack': 'r1' };
    const res = await t.post(beta(), {
      apiVersion: `${group}/v1beta1`, kind: 'EndpointSlice', metadata: { name: 'from-beta', labels: { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' } },
      addressType: 'IPv4', endpoints: [{ addresses: ['10.9.0.1'], conditions: { ready: true }, topology }], ports: [{ name: 'http', port: 80 }],
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.apiVersion).to.equal(`${group}/v1beta1`);
    expect(res.body.endpoints).to.deep.equal([{ addresses: ['10.9.0.1'], conditions: { ready: true }, topology, nodeName: 'node-1' }]);
    expect(res.headers.warning).to.match(/v1beta1 EndpointSlice is deprecated in v1.21\+, unavailable in v1.25\+; use .*\/v1 EndpointSlice/);
    const atV1 = (await t.get(v1('from-beta'))).body;
    expect(atV1.apiVersion).to.equal(`${group}/v1`);
    expect(atV1.endpoints).to.deep.equal([{ addresses: ['10.9.0.1'], conditions: { ready: true }, deprecatedTopology: { 'example.com/rack': 'r1' }, nodeName: 'node-1', zone: 'zone-a' }]);
    // The round trip: read at v1beta1, written back unchanged, stored unchanged.
    const read = (await t.get(beta('from-beta'))).body;
    expect(read.endpoints).to.deep.equal(res.body.endpoints);
    const put = await t.put(beta('from-beta'), read);
    expect(put.status, put.text).to.equal(200);
    expect((await t.get(v1('from-beta'))).body.endpoints).to.deep.equal(atV1.endpoints);
  });

  it('shows a v1 slice\'s nodeName and zone as v1beta1 topology', async () => {
    const res = await t.post(v1(), { apiVersion: `${group}/v1`, kind: 'EndpointSlice', metadata: { name: 'from-v1' }, addressType: 'IPv6', endpoints: [{ addresses: ['2001:db8::7'], nodeName: 'node-2', zone: 'zone-b' }] });
    expect(res.status, res.text).to.equal(201);
    const read = (await t.get(beta('from-v1'))).body;
    expect(read.endpoints).to.deep.equal([{ addresses: ['2001:db8::7'], conditions: {}, topology: { 'kubernetes.io/hostname': 'node-2', 'topology.kubernetes.io/zone': 'zone-b' }, nodeName: 'node-2' }]);
    const list = (await t.get(beta())).body;
    expect(list.kind).to.equal('EndpointSliceList');
    expect(list.items.every((i: Body) => i.apiVersion === `${group}/v1beta1` || i.apiVersion === undefined)).to.equal(true);
  });

  it('validates a v1beta1 write as v1 (the converted object), storing nothing when it is bad', async () => {
    const res = await rejectedLeavingStore(t, v1(), () => t.post(beta(), {
      apiVersion: `${group}/v1beta1`, kind: 'EndpointSlice', metadata: { name: 'bad-beta' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.9.0.2'], topology: { 'bad key!': 'x' } }],
    }));
    expect(res.status, res.text).to.equal(422);
    expect(res.body.details.causes[0].field).to.equal('endpoints[0].deprecatedTopology');
  });
});
