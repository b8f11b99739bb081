/**
 * The Service allocators kept in etcd as kube-apiserver keeps them: two server replicas on one
 * etcd take 40 concurrent creates and hand out no address and no node port twice, and after
 * the deletes both bitmaps are empty; the repair loop marks again what a manual etcd edit
 * cleared, and frees what was allocated for a Service never written (a crash between
 * allocation and write, or a bit set by hand) only on its third run, as Kubernetes' leak count.
 */
import { expect } from 'chai';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { AllocationBitmap } from '../../lib/registry/core/services/bitmap';
import { ServiceAllocators } from '../../lib/registry/core/services/allocators';
import { serviceNetworkOf } from '../../lib/registry/core/services/network';
import { ServiceAllocationRepair, storedServices } from '../../lib/registry/core/services/repair';
import { rangeAllocationJson } from '../../lib/registry/core/services/range-store';
import { decodeKv } from '../../lib/storage/storage-codec';

const NS = 'alloc';
const RANGES = ['--service-cluster-ip-range=10.100.0.0/24', '--service-node-port-range=30000-30099'];
const path = (name = '') => `/api/v1/namespaces/${NS}/services${name ? `/${name}` : ''}`;
type Body = Record<string, any>;

async function taken(t: TestServer, key: string): Promise<number[]> {
  const { kv } = await t.server.storage.get(`/registry/ranges/${key}`);
  if (!kv) return [];
  return AllocationBitmap.fromBytes(1 << 20, 0, Buffer.from(JSON.parse(kv.value.toString('utf8')).data, 'base64')).taken();
}

describe('Service allocators on two replicas of one etcd', function () {
  this.timeout(120_000);
  let a: TestServer;
  let b: TestServer;
  const network = serviceNetworkOf('10.100.0.0/24', '30000-30099');
  before(async () => {
    a = await startTestServer(RANGES);
    b = await startTestServer(RANGES, { etcd: a.etcd });
    expect((await a.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await b?.stop(); await a?.stop(); });

  const repair = () => new ServiceAllocationRepair({
    storage: a.server.storage, prefix: '/registry', network, intervalMs: 1000, log: () => undefined,
    listServices: () => storedServices(a.server.storage, '/registry/services/', decodeKv),
  });

  it('gives 40 concurrent creates across both replicas distinct addresses and node ports, and frees them all on delete', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? b : a).post(path(),
      { apiVersion: 'v1', kind: 'Service', metadata: { name: `c-${i}` }, spec: { type: 'NodePort', ports: [{ port: 80 }] } })));
    for (const r of results) expect(r.status, r.text).to.equal(201);
    const ips = results.map((r) => r.body.spec.clusterIP as string);
    const ports = results.map((r) => r.body.spec.ports[0].nodePort as number);
    expect(new Set(ips).size).to.equal(40);
    expect(new Set(ports).size).to.equal(40);
    // The bitmaps hold exactly what the Services use.
    expect((await taken(a, 'serviceips')).sort((x, y) => x - y)).to.deep.equal(ips.map((ip) => Number(ip.split('.')[3]) - 1).sort((x, y) => x - y));
    expect((await taken(a, 'servicenodeports')).sort((x, y) => x - y)).to.deep.equal(ports.map((p) => p - 30000).sort((x, y) => x - y));
    const deletes = await Promise.all(results.map((r, i) => (i % 2 ? a : b).del(path(r.body.metadata.name))));
    for (const d of deletes) expect(d.status, d.text).to.equal(200);
    expect(await taken(a, 'serviceips')).to.deep.equal([]);
    expect(await taken(a, 'servicenodeports')).to.deep.equal([]);
  });

  it('frees an allocation whose Service was never written on the third repair run', async () => {
    // A crash between allocation and write: the allocator took an address and a port, no Service followed.
    const alloc = new ServiceAllocators(network, a.server.storage, '/registry');
    const orphan: Body = { metadata: { name: 'orphan', namespace: NS }, spec: { type: 'NodePort', ports: [{ port: 80, protocol: 'TCP' }] } };
    await alloc.allocateCreate(orphan, false);
    const ipOffset = Number(orphan.spec.clusterIP.split('.')[3]) - 1;
    const portOffset = orphan.spec.ports[0].nodePort - 30000;
    const r = repair();
    await r.runOnce();
    await r.runOnce();
    expect(await taken(a, 'serviceips')).to.deep.equal([ipOffset]);
    expect(await taken(a, 'servicenodeports')).to.deep.equal([portOffset]);
    await r.runOnce();
    expect(await taken(a, 'serviceips')).to.deep.equal([]);
    expect(await taken(a, 'servicenodeports')).to.deep.equal([]);
  });

  it('marks again what a manual etcd edit cleared, and frees a bit set by hand', async () => {
    const created = await a.post(path(), { apiVersion: 'v1', kind: 'Service', metadata: { name: 'kept' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } });
    expect(created.status, created.text).to.equal(201);
    const ipOffset = Number(created.body.spec.clusterIP.split('.')[3]) - 1;
    // Clear the address bitmap; set a port bit no Service uses.
    const key = '/registry/ranges/serviceips';
    const cur = (await a.server.storage.get(key)).kv!;
    await a.server.storage.update(key, rangeAllocationJson('10.100.0.0/24', Buffer.alloc(0)), cur.modRevision);
    const portsKey = '/registry/ranges/servicenodeports';
    const curPorts = (await a.server.storage.get(portsKey)).kv!;
    const bits = AllocationBitmap.fromBytes(100, 0, Buffer.from(JSON.parse(curPorts.value.toString('utf8')).data, 'base64'));
    const stray = [...Array(100).keys()].find((i) => !bits.has(i))!;
    bits.allocate(stray);
    await a.server.storage.update(portsKey, rangeAllocationJson('30000-30099', bits.toBytes()), curPorts.modRevision);
    const r = repair();
    await r.runOnce();
    expect(await taken(a, 'serviceips')).to.deep.equal([ipOffset]);
    expect(await taken(a, 'servicenodeports')).to.include(stray);
    await r.runOnce();
    await r.runOnce();
    expect(await taken(a, 'servicenodeports')).to.deep.equal([created.body.spec.ports[0].nodePort - 30000]);
    // A create on the other replica after the repair does not get the repaired address.
    const next = await b.post(path(), { apiVersion: 'v1', kind: 'Service', metadata: { name: 'next' }, spec: { clusterIP: created.body.spec.clusterIP, ports: [{ port: 80 }] } });
    expect(next.status).to.equal(422);
  });
});
