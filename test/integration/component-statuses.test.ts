/**
 * core/v1 componentstatuses over HTTPS against a real etcd, as kube-apiserver 1.32 answers
 * them: read-only (get and list; writes 405), `etcd-0` Healthy (`ok`) from the server's etcd and
 * Unhealthy with the error once etcd is gone; `scheduler` and `controller-manager` probed at
 * https://127.0.0.1:10259/healthz and :10257/healthz: Healthy with the body when something
 * answers there (the test serves both when it can bind those ports, and skips that part when
 * they are taken), Unhealthy with Go's connection error otherwise. Every request is warned
 * `v1 ComponentStatus is deprecated in v1.19+`; kubectl's NAME STATUS MESSAGE ERROR table.
 */
import { expect } from 'chai';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { TABLE } from '../helpers/kind-checks';
import { decodeProtobuf } from '../../lib/scheme/protobuf';

type Body = Record<string, any>;
const CS = '/api/v1/componentstatuses';
const WARNING = '299 - "v1 ComponentStatus is deprecated in v1.19+"';

/** An HTTPS /healthz answering `ok` on 127.0.0.1:`port`, or undefined when the port is taken. */
async function healthz(port: number, cert: string, key: string): Promise<https.Server | undefined> {
  const server = https.createServer({ cert, key }, (req, res) => {
    res.writeHead(req.url === '/healthz' ? 200 : 404, { 'content-type': 'text/plain' });
    res.end(req.url === '/healthz' ? 'ok' : 'not found');
  });
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}
const close = (s: https.Server | undefined) => new Promise<void>((r) => (s ? s.close(() => r()) : r()));

/** Whether nothing listens on 127.0.0.1:`port` (the refused-connection rows need that). */
function free(port: number): Promise<boolean> {
  const probe = net.createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

describe('ComponentStatus (core/v1, read-only)', () => {
  let t: TestServer;
  const conditionOf = (cs: Body) => cs.conditions[0];
  before(async () => { t = await startTestServer(); });
  after(async () => { await t?.stop(); });

  it('lists etcd-0 Healthy with message ok, sorted by name, each request warned', async () => {
    const res = await t.get(CS);
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.warning).to.equal(WARNING);
    expect(res.body).to.include({ kind: 'ComponentStatusList', apiVersion: 'v1' });
    expect(res.body.items.map((i: Body) => i.metadata.name)).to.deep.equal(['controller-manager', 'etcd-0', 'scheduler']);
    const etcd = res.body.items[1];
    expect(etcd).to.deep.equal({ kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name: 'etcd-0' }, conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] });
  });

  it('gets one component by name; an unknown name is 404 NotFound', async () => {
    const res = await t.get(`${CS}/etcd-0`);
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.warning).to.equal(WARNING);
    expect(conditionOf(res.body)).to.deep.equal({ type: 'Healthy', status: 'True', message: 'ok' });
    const missing = await t.get(`${CS}/kube-proxy`);
    expect(missing.status).to.equal(404);
    expect(missing.body).to.include({ kind: 'Status', reason: 'NotFound' });
    expect(missing.headers.warning).to.equal(WARNING);
  });

  it('answers in protobuf when asked', async () => {
    const res = await t.get(`${CS}/etcd-0`, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
    expect(res.status, res.text).to.equal(200);
    expect(res.headers['content-type']).to.equal('application/vnd.kubernetes.protobuf');
    expect(decodeProtobuf(res.raw as Buffer)).to.deep.include({ kind: 'ComponentStatus', apiVersion: 'v1', conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] });
  });

  it('filters a list by metadata.name and refuses other field labels', async () => {
    const res = await t.get(`${CS}?fieldSelector=metadata.name%3Detcd-0`);
    expect(res.body.items.map((i: Body) => i.metadata.name)).to.deep.equal(['etcd-0']);
    expect((await t.get(`${CS}?labelSelector=a%3Db`)).body.items).to.deep.equal([]);
    expect((await t.get(`${CS}?fieldSelector=status.phase%3DUp`)).status).to.equal(400);
  });

  it('is read-only: create, update and delete answer 405', async () => {
    const body = { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'x' }, conditions: [] };
    expect((await t.post(CS, body)).status).to.equal(405);
    expect((await t.put(`${CS}/etcd-0`, { ...body, metadata: { name: 'etcd-0' } })).status).to.equal(405);
    expect((await t.del(`${CS}/etcd-0`)).status).to.equal(405);
  });

  it('reports scheduler and controller-manager Unhealthy with the connection error when nothing listens', async function () {
    if (!(await free(10259)) || !(await free(10257))) this.skip();
    const res = await t.get(CS);
    const byName = new Map<string, Body>(res.body.items.map((i: Body) => [i.metadata.name, conditionOf(i)]));
    expect(byName.get('scheduler')).to.deep.equal({ type: 'Healthy', status: 'False',
      message: 'Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused' });
    expect(byName.get('controller-manager')).to.deep.equal({ type: 'Healthy', status: 'False',
      message: 'Get "https://127.0.0.1:10257/healthz": dial tcp 127.0.0.1:10257: connect: connection refused' });
    const table = await t.get(CS, TABLE);
    expect(table.body.columnDefinitions.map((c: Body) => c.name)).to.deep.equal(['Name', 'Status', 'Message', 'Error']);
    expect(table.body.rows.map((r: Body) => r.cells)).to.deep.equal([
      ['controller-manager', 'Unhealthy', 'Get "https://127.0.0.1:10257/healthz": dial tcp 127.0.0.1:10257: connect: connection refused', ''],
      ['etcd-0', 'Healthy', 'ok', ''],
      ['scheduler', 'Unhealthy', 'Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused', ''],
    ]);
  });

  it('reports them Healthy with their /healthz body when they answer (skipped when the ports are taken)', async function () {
    const cert = readFileSync(t.server.pki.serverCertFile, 'utf8');
    const key = readFileSync(t.server.pki.serverKeyFile, 'utf8');
    const scheduler = await healthz(10259, cert, key);
    const manager = await healthz(10257, cert, key);
    try {
      if (!scheduler || !manager) this.skip();
      const table = await t.get(CS, TABLE);
      expect(table.body.rows.map((r: Body) => r.cells)).to.deep.equal([
        ['controller-manager', 'Healthy', 'ok', ''], ['etcd-0', 'Healthy', 'ok', ''], ['scheduler', 'Healthy', 'ok', ''],
      ]);
    } finally {
      await close(scheduler);
      await close(manager);
    }
  });

  it('reports etcd-0 Unhealthy with the error once etcd is gone', async () => {
    await t.etcd.stop();
    const res = await t.get(`${CS}/etcd-0`);
    expect(res.status, res.text).to.equal(200);
    const c = conditionOf(res.body);
    expect(c).to.include({ type: 'Healthy', status: 'False' });
    expect(c.message).to.equal(undefined);
    expect(c.error).to.be.a('string').and.not.equal('');
  });
});
