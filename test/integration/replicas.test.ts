/**
 * Two API server processes' worth of servers on one etcd, each with its own data dir (so its own
 * PKI) and its own watch cache: a write through one is seen by watches and consistent reads on
 * the other, lists agree, and both compactors running at once compact once per interval.
 */
import https from 'node:https';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Etcd3 } from 'etcd3';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { HttpResponse } from '../helpers/server-harness';
import { adminTarget, openWatch, WatchClient, WatchTarget } from '../helpers/watch-client';
import { parseFlags } from '../../lib/server/flags';
import { RunningServer, startServer } from '../../lib/server/server';
import { COMPACT_REV_KEY } from '../../lib/storage/etcd3/compactor';

const NS = 'replicas';
const INTERVAL_S = 1;
const cmPath = (name = '') => `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ''}`;
const q = (params: Record<string, string | number>) =>
  `?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const view = (res: HttpResponse) => res.body.items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion, i.data]);

/** One server with its own data dir and an HTTPS client presenting its own admin certificate. */
interface Replica {
  server: RunningServer;
  target: WatchTarget;
  dataDir: string;
  request(method: string, urlPath: string, body?: unknown): Promise<HttpResponse>;
}

async function startReplica(etcdEndpoint: string): Promise<Replica> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'orch-replica-'));
  let server: RunningServer;
  try {
    server = await startServer(parseFlags([
      `--etcd-servers=${etcdEndpoint}`, '--secure-port=0', `--data-dir=${dataDir}`, '--log-level=error',
      `--etcd-compaction-interval=${INTERVAL_S}s`,
    ]));
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const ca = server.pki.caCertPem;
  const cert = readFileSync(server.pki.adminCertFile, 'utf8');
  const key = readFileSync(server.pki.adminKeyFile, 'utf8');
  const request = (method: string, urlPath: string, body?: unknown) => new Promise<HttpResponse>((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (payload) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(payload.length) });
    const req = https.request(`${server.url}${urlPath}`, { method, headers, ca, cert, key, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try { parsed = JSON.parse(text); } catch { parsed = undefined; }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
  return { server, target: adminTarget(server), dataDir, request };
}

function expectStatus(res: HttpResponse, code: number, what = ''): void {
  expect(res.status, `${what} ${res.text}`).to.equal(code);
}

describe('two API servers on one etcd', () => {
  let etcd: TestEtcd;
  let client: Etcd3;
  let a: Replica;
  let b: Replica;
  const watches: WatchClient[] = [];

  const create = async (r: Replica, name: string, data: Record<string, string> = {}) => {
    const res = await r.request('POST', cmPath(), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
    expectStatus(res, 201, `create ${name}`);
    return res.body;
  };
  const update = async (r: Replica, name: string, data: Record<string, string>) => {
    const cur = await r.request('GET', cmPath(name));
    expectStatus(cur, 200, `get ${name}`);
    const res = await r.request('PUT', cmPath(name), { ...cur.body, data });
    expectStatus(res, 200, `update ${name}`);
    return res.body;
  };

  before(async () => {
    etcd = await startTestEtcd();
    client = new Etcd3({ hosts: etcd.endpoint });
    a = await startReplica(etcd.endpoint);
    b = await startReplica(etcd.endpoint);
    expectStatus(await a.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), 201);
  });
  afterEach(() => { watches.splice(0).forEach((w) => w.close()); });
  after(async () => {
    for (const r of [a, b]) {
      if (!r) continue;
      await r.server.stop();
      rmSync(r.dataDir, { recursive: true, force: true });
    }
    client?.close();
    await etcd?.stop();
  });

  it('each server presents its own PKI: the other server\'s admin certificate is not trusted', async () => {
    expect(a.target.caPem).to.not.equal(b.target.caPem);
    const crossed = await new Promise<number>((resolve) => {
      const req = https.request(`${b.server.url}/api/v1/namespaces`, {
        ca: b.target.caPem, cert: a.target.certPem, key: a.target.keyPem, agent: false,
      }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
      req.on('error', () => resolve(0));
      req.end();
    });
    expect(crossed).to.not.equal(200);
  });

  it('a write through A reaches a watch on B within 2 s (list on A, watch on B from that version)', async () => {
    const listed = await a.request('GET', cmPath());
    expectStatus(listed, 200);
    const w = openWatch(b.target, cmPath() + q({ watch: 'true', resourceVersion: listed.body.metadata.resourceVersion }));
    watches.push(w);
    await w.response();
    for (const [step, write] of [
      ['ADDED', () => create(a, 'w1', { v: '1' })],
      ['MODIFIED', () => update(a, 'w1', { v: '2' })],
      ['DELETED', async () => expectStatus(await a.request('DELETE', cmPath('w1')), 200)],
    ] as Array<[string, () => Promise<unknown>]>) {
      const t0 = Date.now();
      await write();
      const ev = await w.waitFor((e) => e.type === step && e.object?.metadata?.name === 'w1', 2_000);
      expect(Date.now() - t0, step).to.be.below(2_000);
      expect(ev.object.data).to.deep.equal({ v: step === 'ADDED' ? '1' : '2' });
    }
    expect(w.events.map((e) => e.type)).to.deep.equal(['ADDED', 'MODIFIED', 'DELETED']);
  });

  it('a consistent list or get on B right after a write through A returns it', async () => {
    for (let i = 0; i < 15; i++) {
      const made = await create(a, `c${i}`, { i: String(i) });
      const [listed, got] = await Promise.all([b.request('GET', cmPath()), b.request('GET', cmPath(`c${i}`))]);
      expectStatus(listed, 200);
      expect(Number(listed.body.metadata.resourceVersion)).to.be.at.least(Number(made.metadata.resourceVersion));
      expect(listed.body.items.map((o: any) => o.metadata.name)).to.include(`c${i}`);
      expectStatus(got, 200);
      expect(got.body.metadata.resourceVersion).to.equal(made.metadata.resourceVersion);
      // And the other way round.
      const back = await update(b, `c${i}`, { i: `${i}-b` });
      const onA = await a.request('GET', cmPath(`c${i}`));
      expect(onA.body.metadata.resourceVersion).to.equal(back.metadata.resourceVersion);
    }
  });

  it('lists on A and B agree, whole, at an exact version and chunk by chunk across the servers', async () => {
    const [la, lb] = await Promise.all([a.request('GET', cmPath()), b.request('GET', cmPath())]);
    expectStatus(la, 200);
    expectStatus(lb, 200);
    expect(view(lb)).to.deep.equal(view(la));
    const rv = la.body.metadata.resourceVersion;
    const exactB = await b.request('GET', cmPath() + q({ resourceVersion: rv, resourceVersionMatch: 'Exact' }));
    expectStatus(exactB, 200);
    expect(exactB.body.metadata.resourceVersion).to.equal(rv);
    expect(view(exactB)).to.deep.equal(view(la));
    // A continue token from A works on B (clients behind a load balancer).
    const first = await a.request('GET', cmPath() + q({ limit: 5 }));
    expectStatus(first, 200);
    const next = await b.request('GET', cmPath() + q({ limit: 5, continue: first.body.metadata.continue }));
    expectStatus(next, 200);
    expect(next.body.metadata.resourceVersion).to.equal(first.body.metadata.resourceVersion);
    const names = [...first.body.items, ...next.body.items].map((o: any) => o.metadata.name);
    expect(names).to.deep.equal(la.body.items.slice(0, 10).map((o: any) => o.metadata.name));
  });

  it('both compactors running compact once per interval between them, and nothing breaks', async function () {
    this.timeout(30_000);
    const version = async () => {
      const res = await client.kv.range({ key: Buffer.from(COMPACT_REV_KEY) });
      return res.kvs.length ? Number(res.kvs[0].version) : 0;
    };
    const before = Date.now();
    const wa = openWatch(a.target, cmPath() + q({ watch: 'true', resourceVersion: (await a.request('GET', cmPath())).body.metadata.resourceVersion }));
    const wb = openWatch(b.target, cmPath() + q({ watch: 'true', resourceVersion: (await b.request('GET', cmPath())).body.metadata.resourceVersion }));
    watches.push(wa, wb);
    await Promise.all([wa.response(), wb.response()]);
    const v0 = await version();
    const revAtStart = Number((await client.kv.range({ key: Buffer.from(COMPACT_REV_KEY) })).header.revision);
    const t0 = Date.now();
    // Keep writing through both servers while the compactors run.
    let n = 0;
    while (Date.now() - t0 < 6_000) {
      await create(n % 2 ? a : b, `k${n}`);
      n++;
      await sleep(100);
    }
    const v1 = await version();
    const elapsedIntervals = (Date.now() - t0) / (INTERVAL_S * 1000);
    expect(v1 - v0, `${v1 - v0} compactions in ${elapsedIntervals.toFixed(1)} intervals`)
      .to.be.within(Math.floor(elapsedIntervals * 0.5), Math.ceil(elapsedIntervals * 1.3) + 1);

    // etcd was really compacted: the revisions from before the writes are gone.
    await expectCompacted(client, revAtStart);

    // Watches on both servers saw every write, without an ERROR; lists agree.
    const expected = Array.from({ length: n }, (_, i) => `k${i}`);
    for (const w of [wa, wb]) {
      await w.waitFor((e) => e.object?.metadata?.name === `k${n - 1}`, 5_000);
      expect(w.events.filter((e) => e.type === 'ERROR')).to.deep.equal([]);
      expect(w.events.map((e) => e.object.metadata.name)).to.deep.equal(expected);
      expect(w.ended).to.equal(false);
    }
    const [la, lb] = await Promise.all([a.request('GET', cmPath()), b.request('GET', cmPath())]);
    expect(view(lb)).to.deep.equal(view(la));
    expect(Date.now() - before).to.be.below(20_000);
  });
});

async function expectCompacted(client: Etcd3, revision: number): Promise<void> {
  let error: unknown;
  try {
    await client.kv.range({ key: Buffer.from(COMPACT_REV_KEY), revision: String(revision) });
  } catch (err) {
    error = err;
  }
  expect(String(error), `a read at revision ${revision}`).to.match(/compacted/);
}
