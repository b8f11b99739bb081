/**
 * core/v1 Service over HTTPS against a real etcd: Kubernetes 1.32's defaults and validation
 * (422 with its causes, nothing stored, nothing allocated), cluster-IP allocation from a /29
 * (explicit, random, out of range, taken, exhausted; released on delete, on a change to
 * ExternalName, and by a failed create), node ports (explicit, random, the same port for TCP
 * and UDP of one port number, taken, released on a change to ClusterIP), the health-check node
 * port, dry run taking nothing, /status, kubectl's table cells, field selectors, and a
 * dual-stack server.
 */
import { expect } from 'chai';
import { HttpResponse, startTestServer, TestServer } from '../helpers/server-harness';
import { Cause, TABLE, expectInvalidCauses, mergePatch, rejectedLeavingStore } from '../helpers/kind-checks';
import { AllocationBitmap } from '../../lib/registry/core/services/bitmap';

const NS = 'svcs';
const path = (name = '', ns = NS) => `/api/v1/namespaces/${ns}/services${name ? `/${name}` : ''}`;
type Body = Record<string, any>;
const svc = (name: string, spec: Body, extra: Body = {}): Body => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec, ...extra });
const PORTS = [{ port: 80 }];

function expectInvalid(res: HttpResponse, causes: Cause[]): void {
  expectInvalidCauses(res, 'Service', causes);
}

/** The offsets taken in a RangeAllocation stored at `/registry/ranges/<key>`. */
async function taken(t: TestServer, key: string): Promise<number[]> {
  const { kv } = await t.server.storage.get(`/registry/ranges/${key}`);
  if (!kv) return [];
  const obj = JSON.parse(kv.value.toString('utf8'));
  return AllocationBitmap.fromBytes(1 << 20, 0, Buffer.from(obj.data, 'base64')).taken();
}

describe('Service (core/v1)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['--service-cluster-ip-range=10.96.0.0/29', '--service-node-port-range=30000-30009']);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });
  afterEach(async () => {
    // Each test starts from an empty namespace (and so from empty bitmaps).
    for (const item of (await t.get(path())).body.items ?? []) await t.del(path(item.metadata.name));
  });

  it('defaults a ClusterIP service as Kubernetes 1.32 and allocates its address', async () => {
    const res = await t.post(path(), svc('web', { selector: { app: 'web' }, ports: [{ port: 80, name: 'http' }] }));
    expect(res.status, res.text).to.equal(201);
    const spec = res.body.spec;
    expect(spec).to.deep.include({
      type: 'ClusterIP', sessionAffinity: 'None', internalTrafficPolicy: 'Cluster', ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'],
      ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 80 }],
    });
    expect(spec.clusterIP).to.match(/^10\.96\.0\.[1-6]$/);
    expect(spec.clusterIPs).to.deep.equal([spec.clusterIP]);
    expect(res.body.status).to.deep.equal({ loadBalancer: {} });
    expect(await taken(t, 'serviceips')).to.deep.equal([Number(spec.clusterIP.split('.')[3]) - 1]);
    expect((await t.get(path('web'))).body.spec).to.deep.equal(spec);
  });

  it('defaults NodePort and LoadBalancer fields and ClientIP affinity', async () => {
    const np = await t.post(path(), svc('np', { type: 'NodePort', ports: PORTS, sessionAffinity: 'ClientIP' }));
    expect(np.status, np.text).to.equal(201);
    expect(np.body.spec).to.deep.include({ externalTrafficPolicy: 'Cluster', sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } } });
    expect(np.body.spec.ports[0].nodePort).to.be.within(30000, 30009);
    const lb = await t.post(path(), svc('lb', { type: 'LoadBalancer', ports: PORTS, externalTrafficPolicy: 'Local' }));
    expect(lb.status, lb.text).to.equal(201);
    expect(lb.body.spec).to.deep.include({ allocateLoadBalancerNodePorts: true, externalTrafficPolicy: 'Local' });
    expect(lb.body.spec.healthCheckNodePort).to.be.within(30000, 30009);
    const ports = [np.body.spec.ports[0].nodePort, lb.body.spec.ports[0].nodePort, lb.body.spec.healthCheckNodePort];
    expect(new Set(ports).size).to.equal(3);
    expect(await taken(t, 'servicenodeports')).to.have.members(ports.map((p) => p - 30000));
  });

  it('exhausts a /29 after six services, then answers as Kubernetes and stores nothing', async () => {
    const ips = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const res = await t.post(path(), svc(`full-${i}`, { ports: PORTS }));
      expect(res.status, res.text).to.equal(201);
      ips.add(res.body.spec.clusterIP);
    }
    expect([...ips].sort()).to.deep.equal(['10.96.0.1', '10.96.0.2', '10.96.0.3', '10.96.0.4', '10.96.0.5', '10.96.0.6']);
    const res = await rejectedLeavingStore(t, path(), () => t.post(path(), svc('full-6', { ports: PORTS })));
    expect(res.status).to.equal(500);
    expect(res.body).to.include({ reason: 'InternalError', message: 'Internal error occurred: failed to allocate a serviceIP: range is full' });
    // A headless service and an ExternalName need no address.
    expect((await t.post(path(), svc('headless', { clusterIP: 'None', selector: { a: 'b' }, ports: PORTS }))).status).to.equal(201);
    expect((await t.post(path(), svc('ext', { type: 'ExternalName', externalName: 'db.example.com' }))).status).to.equal(201);
    // Deleting one frees its address for the next.
    expect((await t.del(path('full-3'))).status).to.equal(200);
    const again = await t.post(path(), svc('full-7', { ports: PORTS }));
    expect(again.status, again.text).to.equal(201);
  });

  it('allocates a requested address, refuses a taken or out-of-range one with Kubernetes\' message', async () => {
    const first = await t.post(path(), svc('fixed', { clusterIP: '10.96.0.5', ports: PORTS }));
    expect(first.status, first.text).to.equal(201);
    expect(first.body.spec.clusterIPs).to.deep.equal(['10.96.0.5']);
    const taken2 = await rejectedLeavingStore(t, path(), () => t.post(path(), svc('fixed2', { clusterIP: '10.96.0.5', ports: PORTS })));
    expectInvalid(taken2, [{ field: 'spec.clusterIPs', reason: 'FieldValueInvalid', message: 'Invalid value: []string{"10.96.0.5"}: failed to allocate IP 10.96.0.5: provided IP is already allocated' }]);
    const outside = await rejectedLeavingStore(t, path(), () => t.post(path(), svc('outside', { clusterIP: '10.97.0.5', ports: PORTS })));
    expectInvalid(outside, [{ field: 'spec.clusterIPs', reason: 'FieldValueInvalid', message: 'Invalid value: []string{"10.97.0.5"}: failed to allocate IP 10.97.0.5: the provided IP (10.97.0.5) is not in the valid range. The range of valid IPs is 10.96.0.0/29' }]);
    // The broadcast address is not in the usable range.
    const broadcast = await t.post(path(), svc('bcast', { clusterIP: '10.96.0.7', ports: PORTS }));
    expect(broadcast.status).to.equal(422);
    expect(await taken(t, 'serviceips')).to.deep.equal([4]);
  });

  it('releases what a create took when its validation fails afterwards', async () => {
    const res = await t.post(path(), svc('bad', { type: 'NodePort', clusterIP: '10.96.0.2', ports: [{ port: 80, nodePort: 30005 }, { port: 81 }] }));
    expectInvalid(res, [{ field: 'spec.ports[0].name', reason: 'FieldValueRequired', message: 'Required value' },
      { field: 'spec.ports[1].name', reason: 'FieldValueRequired', message: 'Required value' }]);
    expect(await taken(t, 'serviceips')).to.deep.equal([]);
    expect(await taken(t, 'servicenodeports')).to.deep.equal([]);
  });

  it('dry run answers the allocated fields and takes nothing', async () => {
    const res = await t.post(`${path()}?dryRun=All`, svc('dry', { type: 'NodePort', ports: PORTS }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.spec.clusterIP).to.equal('10.96.0.0');
    expect(res.body.spec.ports[0].nodePort).to.equal(32769);
    expect(await taken(t, 'serviceips')).to.deep.equal([]);
    expect(await taken(t, 'servicenodeports')).to.deep.equal([]);
    expect((await t.get(path('dry'))).status).to.equal(404);
  });

  it('node ports: requested, shared by TCP and UDP of one port, taken, out of range', async () => {
    const res = await t.post(path(), svc('dns', { type: 'NodePort', ports: [
      { name: 'tcp', port: 53, protocol: 'TCP', nodePort: 30003 }, { name: 'udp', port: 53, protocol: 'UDP' }] }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.spec.ports.map((p: Body) => p.nodePort)).to.deep.equal([30003, 30003]);
    const clash = await rejectedLeavingStore(t, path(), () => t.post(path(), svc('clash', { type: 'NodePort', ports: [{ port: 80, nodePort: 30003 }] })));
    expectInvalid(clash, [{ field: 'spec.ports[0].nodePort', reason: 'FieldValueInvalid', message: 'Invalid value: 30003: provided port is already allocated' }]);
    const outside = await t.post(path(), svc('far', { type: 'NodePort', ports: [{ port: 80, nodePort: 31000 }] }));
    expectInvalid(outside, [{ field: 'spec.ports[0].nodePort', reason: 'FieldValueInvalid', message: 'Invalid value: 31000: provided port is not in the valid range. The range of valid ports is 30000-30009' }]);
    expect(await taken(t, 'servicenodeports')).to.deep.equal([3]);
  });

  it('type changes allocate and release: ClusterIP -> NodePort -> ClusterIP -> ExternalName -> ClusterIP', async () => {
    const created = await t.post(path(), svc('morph', { selector: { app: 'm' }, ports: PORTS }));
    expect(created.status, created.text).to.equal(201);
    const ip = created.body.spec.clusterIP;
    const toNodePort = await mergePatch(t, path('morph'), { spec: { type: 'NodePort' } });
    expect(toNodePort.status, toNodePort.text).to.equal(200);
    const port = toNodePort.body.spec.ports[0].nodePort;
    expect(port).to.be.within(30000, 30009);
    expect(toNodePort.body.spec).to.include({ clusterIP: ip, externalTrafficPolicy: 'Cluster' });
    expect(await taken(t, 'servicenodeports')).to.deep.equal([port - 30000]);
    const back = await mergePatch(t, path('morph'), { spec: { type: 'ClusterIP' } });
    expect(back.status, back.text).to.equal(200);
    expect(back.body.spec.ports[0]).to.not.have.property('nodePort');
    expect(back.body.spec).to.not.have.property('externalTrafficPolicy');
    expect(await taken(t, 'servicenodeports')).to.deep.equal([]);
    const ext = await mergePatch(t, path('morph'), { spec: { type: 'ExternalName', externalName: 'x.example.com' } });
    expect(ext.status, ext.text).to.equal(200);
    expect(ext.body.spec).to.not.have.any.keys('clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy');
    expect(await taken(t, 'serviceips')).to.deep.equal([]);
    const again = await mergePatch(t, path('morph'), { spec: { type: 'ClusterIP', externalName: null } });
    expect(again.status, again.text).to.equal(200);
    expect(again.body.spec.clusterIP).to.match(/^10\.96\.0\.[1-6]$/);
    expect(await taken(t, 'serviceips')).to.have.length(1);
  });

  it('releases the node ports an update took when the update fails (validation, stale resourceVersion)', async () => {
    const created = await t.post(path(), svc('upd', { ports: PORTS }));
    expect(created.status, created.text).to.equal(201);
    const invalid = await rejectedLeavingStore(t, path(), () => mergePatch(t, path('upd'), { spec: { type: 'NodePort', sessionAffinity: 'Sticky' } }));
    expect(invalid.status).to.equal(422);
    expect(await taken(t, 'servicenodeports')).to.deep.equal([]);
    const stale = { ...created.body, spec: { ...created.body.spec, type: 'NodePort' } };
    await mergePatch(t, path('upd'), { metadata: { labels: { bump: '1' } } });
    const conflict = await t.put(path('upd'), stale);
    expect(conflict.status, conflict.text).to.equal(409);
    expect(await taken(t, 'servicenodeports')).to.deep.equal([]);
    expect((await t.get(path('upd'))).body.spec.type).to.equal('ClusterIP');
  });

  it('keeps the cluster IP immutable and the allocations on a PUT that leaves them out', async () => {
    const created = await t.post(path(), svc('keep', { type: 'NodePort', ports: PORTS }));
    const { clusterIP } = created.body.spec;
    const nodePort = created.body.spec.ports[0].nodePort;
    const put = await t.put(path('keep'), svc('keep', { type: 'NodePort', ports: PORTS }, { metadata: { name: 'keep', labels: { a: 'b' } } }));
    expect(put.status, put.text).to.equal(200);
    expect(put.body.spec.clusterIP).to.equal(clusterIP);
    expect(put.body.spec.ports[0].nodePort).to.equal(nodePort);
    const other = clusterIP === '10.96.0.1' ? '10.96.0.2' : '10.96.0.1';
    const changed = await rejectedLeavingStore(t, path(), () => mergePatch(t, path('keep'), { spec: { clusterIP: other, clusterIPs: [other] } }));
    expectInvalid(changed, [{ field: 'spec.clusterIPs[0]', reason: 'FieldValueInvalid', message: `Invalid value: []string{"${other}"}: may not change once set` }]);
  });

  describe('validation (ValidateService)', () => {
    const invalid: Array<[string, Body, Cause[]]> = [
      ['no ports', {}, [{ field: 'spec.ports', reason: 'FieldValueRequired', message: 'Required value' }]],
      // Defaulting sets internalTrafficPolicy only for the known types, so Kubernetes names both.
      ['an unknown type', { type: 'Magic', ports: PORTS }, [{ field: 'spec.type', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"' },
        { field: 'spec.internalTrafficPolicy', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['a port out of range', { ports: [{ port: 70000 }] }, [
        { field: 'spec.ports[0].port', reason: 'FieldValueInvalid', message: 'Invalid value: 70000: must be between 1 and 65535, inclusive' },
        { field: 'spec.ports[0].targetPort', reason: 'FieldValueInvalid', message: 'Invalid value: 70000: must be between 1 and 65535, inclusive' }]],
      ['an unknown protocol', { ports: [{ port: 80, protocol: 'ICMP' }] }, [{ field: 'spec.ports[0].protocol', reason: 'FieldValueNotSupported', message: 'Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"' }]],
      ['duplicate port names', { ports: [{ name: 'a', port: 80 }, { name: 'a', port: 81 }] }, [{ field: 'spec.ports[1].name', reason: 'FieldValueDuplicate', message: 'Duplicate value: "a"' }]],
      ['a bad port name', { ports: [{ name: 'A_B', port: 80 }] }, [{ field: 'spec.ports[0].name', reason: 'FieldValueInvalid', message: "Invalid value: \"A_B\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')" }]],
      ['a duplicate port', { ports: [{ name: 'a', port: 80 }, { name: 'b', port: 80 }] }, [{ field: 'spec.ports[1]', reason: 'FieldValueDuplicate', message: 'Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}' }]],
      ['a nodePort on a ClusterIP service', { ports: [{ port: 80, nodePort: 30001 }] }, [{ field: 'spec.ports[0].nodePort', reason: 'FieldValueForbidden', message: "Forbidden: may not be used when `type` is 'ClusterIP'" }]],
      ['an ExternalName without a name', { type: 'ExternalName' }, [{ field: 'spec.externalName', reason: 'FieldValueRequired', message: 'Required value' }]],
      ['an ExternalName that is not a DNS name', { type: 'ExternalName', externalName: 'no_way' }, [{ field: 'spec.externalName', reason: 'FieldValueInvalid', message: "Invalid value: \"no_way\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')" }]],
      ['a clusterIP on an ExternalName', { type: 'ExternalName', externalName: 'a.b', clusterIP: '10.96.0.2' }, [{ field: 'spec.clusterIPs', reason: 'FieldValueForbidden', message: 'Forbidden: may not be set for ExternalName services' }]],
      ['an invalid clusterIP', { clusterIP: '10.96.0.300', ports: PORTS }, [{ field: 'spec.clusterIPs[0]', reason: 'FieldValueInvalid', message: 'Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)' }]],
      ['clusterIPs not matching clusterIP', { clusterIP: '10.96.0.2', clusterIPs: ['10.96.0.3'], ports: PORTS }, [{ field: 'spec.clusterIPs', reason: 'FieldValueInvalid', message: 'Invalid value: []string{"10.96.0.3"}: first value must match `clusterIP`' }]],
      ['None with a second address', { clusterIP: 'None', clusterIPs: ['None', '10.96.0.2'], ports: PORTS }, [{ field: 'spec.clusterIPs', reason: 'FieldValueInvalid', message: 'Invalid value: []string{"None", "10.96.0.2"}: \'None\' must be the first and only value' }]],
      ['headless NodePort', { type: 'NodePort', clusterIP: 'None', ports: PORTS }, [{ field: 'spec.clusterIPs[0]', reason: 'FieldValueInvalid', message: 'Invalid value: "None": may not be set to \'None\' for NodePort services' }]],
      ['an unknown session affinity', { sessionAffinity: 'Sticky', ports: PORTS }, [{ field: 'spec.sessionAffinity', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Sticky": supported values: "ClientIP", "None"' }]],
      ['a ClientIP timeout above a day', { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 86401 } }, ports: PORTS }, [{ field: 'spec.sessionAffinityConfig.clientIP.timeoutSeconds', reason: 'FieldValueInvalid', message: 'Invalid value: 86401: must be greater than 0 and less than 86400' }]],
      ['a loopback external IP', { externalIPs: ['127.0.0.1'], ports: PORTS }, [{ field: 'spec.externalIPs[0]', reason: 'FieldValueInvalid', message: 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)' }]],
      ['an external IP that is no IP', { externalIPs: ['nope'], ports: PORTS }, [{ field: 'spec.externalIPs[0]', reason: 'FieldValueInvalid', message: 'Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)' }]],
      ['source ranges on a ClusterIP service', { loadBalancerSourceRanges: ['10.0.0.0/8'], ports: PORTS }, [{ field: 'spec.LoadBalancerSourceRanges', reason: 'FieldValueForbidden', message: "Forbidden: may only be used when `type` is 'LoadBalancer'" }]],
      ['a bad source range', { type: 'LoadBalancer', loadBalancerSourceRanges: ['10.0.0.0/33'], ports: PORTS }, [{ field: 'spec.LoadBalancerSourceRanges[0]', reason: 'FieldValueInvalid', message: 'Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)' }]],
      ['externalTrafficPolicy on a ClusterIP service', { externalTrafficPolicy: 'Local', ports: PORTS }, [{ field: 'spec.externalTrafficPolicy', reason: 'FieldValueInvalid', message: 'Invalid value: "Local": may only be set for externally-accessible services' }]],
      ['an unknown internalTrafficPolicy', { internalTrafficPolicy: 'Near', ports: PORTS }, [{ field: 'spec.internalTrafficPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Near": supported values: "Cluster", "Local"' }]],
      ['allocateLoadBalancerNodePorts on a NodePort service', { type: 'NodePort', allocateLoadBalancerNodePorts: false, ports: PORTS }, [{ field: 'spec.allocateLoadBalancerNodePorts', reason: 'FieldValueForbidden', message: "Forbidden: may only be used when `type` is 'LoadBalancer'" }]],
      ['an unknown ipFamilyPolicy', { ipFamilyPolicy: 'Both', ports: PORTS }, [{ field: 'spec.ipFamilyPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Both": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"' }]],
      ['RequireDualStack on a single-stack cluster', { ipFamilyPolicy: 'RequireDualStack', ports: PORTS }, [{ field: 'spec.ipFamilyPolicy', reason: 'FieldValueInvalid', message: 'Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services' }]],
      ['an IPv6 family on an IPv4 cluster', { ipFamilies: ['IPv6'], ports: PORTS }, [{ field: 'spec.ipFamilies[0]', reason: 'FieldValueInvalid', message: 'Invalid value: "IPv6": not configured on this cluster' }]],
      ['an unknown trafficDistribution', { trafficDistribution: 'Anywhere', ports: PORTS }, [{ field: 'spec.trafficDistribution', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Anywhere": supported values: "PreferClose"' }]],
    ];
    invalid.forEach(([what, spec, causes], i) => {
      it(`refuses ${what}`, async () => {
        const res = await rejectedLeavingStore(t, path(), () => t.post(path(), svc(`invalid-${i}`, spec)));
        expectInvalid(res, causes);
        expect(await taken(t, 'serviceips')).to.deep.equal([]);
      });
    });

    it('refuses a name that is not a DNS-1035 label', async () => {
      const res = await t.post(path(), svc('1abc', { ports: PORTS }));
      expectInvalid(res, [{ field: 'metadata.name', reason: 'FieldValueInvalid', message: "Invalid value: \"1abc\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')" }]);
    });
  });

  it('writes status only through /status, which keeps the spec', async () => {
    const created = await t.post(path(), svc('lbs', { type: 'LoadBalancer', ports: PORTS }));
    expect(created.status, created.text).to.equal(201);
    const ingress = [{ ip: '192.0.2.10' }];
    const main = await mergePatch(t, path('lbs'), { status: { loadBalancer: { ingress } } });
    expect(main.body.status).to.deep.equal({ loadBalancer: {} });
    const st = await mergePatch(t, `${path('lbs')}/status`, { spec: { type: 'ClusterIP' }, status: { loadBalancer: { ingress } } });
    expect(st.status, st.text).to.equal(200);
    expect(st.body.status.loadBalancer.ingress).to.deep.equal([{ ip: '192.0.2.10', ipMode: 'VIP' }]);
    expect(st.body.spec.type).to.equal('LoadBalancer');
    const bad = await mergePatch(t, `${path('lbs')}/status`, { status: { loadBalancer: { ingress: [{ hostname: '192.0.2.1' }] } } });
    expectInvalid(bad, [{ field: 'status.loadBalancer.ingress[0].hostname', reason: 'FieldValueInvalid', message: 'Invalid value: "192.0.2.1": must be a DNS name, not an IP address' }]);
    const table = await t.get(path('lbs'), TABLE);
    expect(table.body.rows[0].cells.slice(1, 5)).to.deep.equal(['LoadBalancer', created.body.spec.clusterIP, '192.0.2.10', `80:${created.body.spec.ports[0].nodePort}/TCP`]);
  });

  it('prints kubectl\'s columns and filters by spec.type and spec.clusterIP', async () => {
    const a = await t.post(path(), svc('tab-a', { selector: { app: 'a', tier: 'x' }, ports: [{ port: 80, name: 'h' }, { port: 53, name: 'd', protocol: 'UDP' }] }));
    await t.post(path(), svc('tab-b', { type: 'ExternalName', externalName: 'db.example.com' }));
    await t.post(path(), svc('tab-c', { clusterIP: 'None', ports: PORTS, externalIPs: ['192.0.2.1'] }));
    const table = await t.get(path(), TABLE);
    expect(table.body.columnDefinitions.map((c: Body) => c.name)).to.deep.equal(['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector']);
    expect(table.body.columnDefinitions[6].priority).to.equal(1);
    const rows = Object.fromEntries(table.body.rows.map((r: Body) => [r.cells[0], r.cells]));
    expect(rows['tab-a'].slice(1, 5)).to.deep.equal(['ClusterIP', a.body.spec.clusterIP, '<none>', '80/TCP,53/UDP']);
    expect(rows['tab-a'][6]).to.equal('app=a,tier=x');
    expect(rows['tab-b'].slice(1, 5)).to.deep.equal(['ExternalName', '<none>', 'db.example.com', '<none>']);
    expect(rows['tab-c'].slice(1, 5)).to.deep.equal(['ClusterIP', 'None', '192.0.2.1', '80/TCP']);
    expect(rows['tab-c'][6]).to.equal('<none>');
    const byType = await t.get(`${path()}?fieldSelector=spec.type=ExternalName`);
    expect(byType.body.items.map((i: Body) => i.metadata.name)).to.deep.equal(['tab-b']);
    const byIp = await t.get(`/api/v1/services?fieldSelector=spec.clusterIP=${a.body.spec.clusterIP}`);
    expect(byIp.body.items.map((i: Body) => i.metadata.name)).to.deep.equal(['tab-a']);
    const bad = await t.get(`${path()}?fieldSelector=spec.selector=x`);
    expect(bad.status).to.equal(400);
  });

  it('is served with short name svc in category all', async () => {
    const res = await t.get('/api/v1');
    const r = res.body.resources.find((x: Body) => x.name === 'services');
    expect(r).to.deep.include({ kind: 'Service', namespaced: true, shortNames: ['svc'], categories: ['all'] });
    expect(res.body.resources.map((x: Body) => x.name)).to.include('services/status');
  });
});

describe('Service on a dual-stack server', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['--service-cluster-ip-range=10.96.0.0/28,fd00::/120']);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  it('gives SingleStack services the primary family and PreferDualStack both', async () => {
    const single = await t.post(path(), svc('single', { ports: PORTS }));
    expect(single.body.spec).to.deep.include({ ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'] });
    const dual = await t.post(path(), svc('dual', { ipFamilyPolicy: 'PreferDualStack', ports: PORTS }));
    expect(dual.status, dual.text).to.equal(201);
    expect(dual.body.spec.ipFamilies).to.deep.equal(['IPv4', 'IPv6']);
    expect(dual.body.spec.clusterIPs[0]).to.match(/^10\.96\.0\./);
    expect(dual.body.spec.clusterIPs[1]).to.match(/^fd00::[0-9a-f]+$/);
    const v6 = await t.post(path(), svc('v6', { ipFamilies: ['IPv6'], ports: PORTS }));
    expect(v6.body.spec.clusterIP).to.match(/^fd00::/);
    expect(await taken(t, 'secondaryserviceips')).to.have.length(2);
    const headless = await t.post(path(), svc('headless', { clusterIP: 'None', ports: PORTS }));
    expect(headless.body.spec).to.deep.include({ ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'], clusterIPs: ['None'] });
    // Dropping the secondary address needs SingleStack, in Kubernetes' words.
    const reduce = await mergePatch(t, path('dual'), { spec: { clusterIPs: [dual.body.spec.clusterIPs[0]] } });
    expectInvalid(reduce, [{ field: 'spec.ipFamilyPolicy', reason: 'FieldValueInvalid', message: 'Invalid value: "PreferDualStack": must be \'SingleStack\' to release the secondary cluster IP' }]);
    // Downgrading releases the secondary address once the service is written.
    const down = await mergePatch(t, path('dual'), { spec: { ipFamilyPolicy: 'SingleStack' } });
    expect(down.status, down.text).to.equal(200);
    expect(down.body.spec.clusterIPs).to.have.length(1);
    expect(await taken(t, 'secondaryserviceips')).to.have.length(1);
  });
});

describe('admission plugin DenyServiceExternalIPs', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['--enable-admission-plugins=DenyServiceExternalIPs']);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });

  const DENIED = 'Use of external IPs is denied by admission control';

  it('refuses a create with external IPs, and an update that adds one, and allows keeping or removing them', async () => {
    const created = await rejectedLeavingStore(t, path(), () => t.post(path(), svc('ext', { ports: PORTS, externalIPs: ['192.0.2.1'] })));
    expect(created.status).to.equal(403);
    expect(created.body).to.include({ reason: 'Forbidden', message: `services "ext" is forbidden: ${DENIED}` });
    expect((await t.post(path(), svc('plain', { ports: PORTS }))).status).to.equal(201);
    const added = await rejectedLeavingStore(t, path(), () => mergePatch(t, path('plain'), { spec: { externalIPs: ['192.0.2.2'] } }));
    expect(added.status).to.equal(403);
    expect(added.body.message).to.equal(`services "plain" is forbidden: ${DENIED}`);
  });

  it('lets a Service that has external IPs (written by a replica without the plugin) keep or drop them', async () => {
    const other = await startTestServer([], { etcd: t.etcd });
    try {
      expect((await other.post(path(), svc('had', { ports: PORTS, externalIPs: ['192.0.2.3', '192.0.2.4'] }))).status).to.equal(201);
    } finally {
      await other.stop();
    }
    const kept = await mergePatch(t, path('had'), { metadata: { labels: { a: 'b' } }, spec: { externalIPs: ['192.0.2.4'] } });
    expect(kept.status, kept.text).to.equal(200);
    const dropped = await mergePatch(t, path('had'), { spec: { externalIPs: null } });
    expect(dropped.status, dropped.text).to.equal(200);
    expect(dropped.body.spec).to.not.have.property('externalIPs');
  });
});
