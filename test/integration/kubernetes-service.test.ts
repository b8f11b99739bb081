/**
 * The `default/kubernetes` endpoints kept by the server (kube-apiserver's lease endpoint
 * reconciler), against a real etcd: one server lists its advertise address and secure port in the
 * Endpoints and the EndpointSlice; two replicas on one etcd are both listed; a replica killed with
 * SIGKILL disappears once its lease has run out and the other has reconciled; a replica stopped
 * gracefully leaves at once; `--endpoint-reconciler-type=none` writes nothing.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { ServerProcess, startServerProcess } from '../helpers/server-process';
import { LEASE_TTL_SECONDS, RECONCILE_INTERVAL_MS } from '../../lib/controllers/kubernetes-service/lease-reconciler';

const EP = '/api/v1/namespaces/default/endpoints/kubernetes';
type Body = Record<string, any>;

const ips = (ep: Body | undefined): string[] => (ep?.subsets?.[0]?.addresses ?? []).map((a: Body) => a.ip);
const endpointsOf = async (t: TestServer): Promise<Body | undefined> => { const r = await t.get(EP); return r.status === 200 ? r.body : undefined; };

describe('the default/kubernetes endpoints kept by the server', function () {
  this.timeout(90_000);

  describe('one server', () => {
    let t: TestServer;
    before(async () => { t = await startTestServer(['--advertise-address=127.0.0.2']); });
    after(async () => { await t?.stop(); });

    it('writes the Endpoints: the advertise address on the secure port, named https, not mirrored', async () => {
      const ep = await eventually(() => endpointsOf(t));
      expect(ep.metadata.labels).to.deep.equal({ 'endpointslice.kubernetes.io/skip-mirror': 'true' });
      expect(ep.subsets).to.deep.equal([{ addresses: [{ ip: '127.0.0.2' }], ports: [{ name: 'https', port: t.server.port, protocol: 'TCP' }] }]);
    });

    it('writes the EndpointSlice kubernetes from them', async () => {
      const group = t.server.naming.group('discovery');
      const slice = await eventually(async () => { const r = await t.get(`/apis/${group}/v1/namespaces/default/endpointslices/kubernetes`); return r.status === 200 && r.body; });
      expect(slice.metadata.labels).to.deep.equal({ 'kubernetes.io/service-name': 'kubernetes' });
      expect(slice.addressType).to.equal('IPv4');
      expect(slice.endpoints).to.deep.equal([{ addresses: ['127.0.0.2'], conditions: { ready: true } }]);
      expect(slice.ports).to.deep.equal([{ name: 'https', protocol: 'TCP', port: t.server.port }]);
    });

    it('puts its lease key with a TTL under <prefix>/masterleases/', async () => {
      const { kv } = await t.server.storage.get('/registry/masterleases/127.0.0.2');
      expect(kv, 'the lease key').to.not.equal(undefined);
      expect(JSON.parse(kv!.value.toString()).subsets).to.deep.equal([{ addresses: [{ ip: '127.0.0.2' }] }]);
    });

    it('refuses a client a loopback address even in default/kubernetes (only the server\'s own write may carry one)', async () => {
      const ep = await eventually(() => endpointsOf(t));
      const res = await t.put(EP, { ...ep, subsets: [{ addresses: [{ ip: '127.0.0.9' }], ports: [{ name: 'https', port: 1, protocol: 'TCP' }] }] });
      expect(res.status, res.text).to.equal(422);
      expect(res.body.details.causes).to.deep.include({ reason: 'FieldValueInvalid', field: 'subsets[0].addresses[0].ip', message: 'Invalid value: "127.0.0.9": may not be in the loopback range (127.0.0.0/8, ::1/128)' });
    });

    it('puts back what a client changed, at its next round', async () => {
      const ep = await eventually(() => endpointsOf(t));
      const res = await t.put(EP, { ...ep, subsets: [{ addresses: [{ ip: '10.9.9.9' }], ports: [{ name: 'https', port: 1, protocol: 'TCP' }] }] });
      expect(res.status, res.text).to.equal(200);
      await eventually(async () => { const now = await endpointsOf(t); return ips(now)[0] === '127.0.0.2' && now; }, RECONCILE_INTERVAL_MS + 5_000, 200);
    });
  });

  it('--endpoint-reconciler-type=none writes nothing', async () => {
    const t = await startTestServer(['--endpoint-reconciler-type=none']);
    try {
      // Another kind written after start is visible: the reconciler, had it run, would have written first.
      await new Promise((r) => setTimeout(r, 1_000));
      expect((await t.get(EP)).status).to.equal(404);
      const { kvs } = await t.server.storage.range('/registry/masterleases/');
      expect(kvs).to.deep.equal([]);
    } finally {
      await t.stop();
    }
  });

  describe('two replicas on one etcd', () => {
    let etcd: TestEtcd;
    let a: TestServer | undefined;
    let b: TestServer | undefined;
    let killed: ServerProcess | undefined;
    let dataDir: string;
    before(async () => {
      etcd = await startTestEtcd();
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'orch-kubesvc-'));
    });
    after(async () => {
      await b?.stop();
      await a?.stop();
      await killed?.stop(2_000);
      await etcd?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('lists both; a graceful stop removes the stopped replica at once', async () => {
      a = await startTestServer(['--advertise-address=127.0.0.2'], { etcd });
      b = await startTestServer(['--advertise-address=127.0.0.3'], { etcd });
      await eventually(async () => JSON.stringify(ips(await endpointsOf(a!))) === '["127.0.0.2","127.0.0.3"]', 5_000, 100);
      const stoppedAt = Date.now();
      await b.stop();
      b = undefined;
      expect(ips(await endpointsOf(a))).to.deep.equal(['127.0.0.2']);
      expect(Date.now() - stoppedAt).to.be.below(RECONCILE_INTERVAL_MS);
      expect((await a.server.storage.get('/registry/masterleases/127.0.0.3')).kv).to.equal(undefined);
    });

    it('a replica killed with SIGKILL disappears within the lease TTL and a reconcile interval', async () => {
      killed = await startServerProcess([`--data-dir=${dataDir}`, `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', '--log-level=error', '--advertise-address=127.0.0.3']);
      await eventually(async () => ips(await endpointsOf(a!)).includes('127.0.0.3'), 15_000, 100);
      const killedAt = Date.now();
      killed.process.kill('SIGKILL');
      await killed.stop(2_000);
      await eventually(async () => !ips(await endpointsOf(a!)).includes('127.0.0.3'), (LEASE_TTL_SECONDS + 5) * 1000 + RECONCILE_INTERVAL_MS, 200);
      // Not before its lease ran out.
      expect(Date.now() - killedAt).to.be.at.least((LEASE_TTL_SECONDS - 1) * 1000);
      expect(ips(await endpointsOf(a!))).to.deep.equal(['127.0.0.2']);
    });
  });
});
