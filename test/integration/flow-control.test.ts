/**
 * API priority and fairness over HTTPS on a real etcd, with a tiny server limit
 * (`--max-requests-inflight=2 --max-mutating-requests-inflight=1`: 3 seats shared by the levels)
 * and `--request-timeout=8s` (a request waits at most 2 s in its queue):
 *  - every classified response names its FlowSchema and priority level by uid;
 *  - a burst from one user is refused 429 TooManyRequests with Retry-After (queue full, or waited
 *    too long) while system:masters (exempt) and kube-controller-manager's leader-election Lease
 *    updates (their own level) are all served;
 *  - a flood from one user at 10x the capacity leaves another user's p99 within 2x of its value
 *    with that user at capacity (fair queuing: the two users' flows have queues of their own);
 *  - a large list is estimated by the objects it reads (apiserver_flowcontrol_work_estimated_seats);
 *  - the apiserver_flowcontrol_* metrics; and `--enable-priority-and-fairness=false` falls back to
 *    the plain in-flight limits (no classification headers).
 */
import http2 from 'node:http2';
import { performance } from 'node:perf_hooks';
import { expect } from 'chai';
import { HttpResponse, TestServer, startTestServer } from '../helpers/server-harness';
import { parseExposition } from '../helpers/prom-text';

const NS = 'apf';
const RBAC = '/apis/rbac.authorization.orch.io/v1';
const FS_HEADER = 'x-kubernetes-pf-flowschema-uid';
const PL_HEADER = 'x-kubernetes-pf-prioritylevel-uid';

type Identity = { certPem: string; keyPem: string };

/** One HTTP/2 connection of `who`: many streams at once cost the client next to nothing. */
function h2Client(t: TestServer, who: Identity) {
  const session = http2.connect(t.server.url, { ca: t.server.pki.caCertPem, cert: who.certPem, key: who.keyPem });
  session.on('error', () => {});
  const get = (path: string) => new Promise<{ status: number; headers: http2.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = session.request({ ':path': path, accept: 'application/json' });
    let headers: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    req.on('response', (h) => { headers = h; });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve({ status: Number(headers[':status']), headers, text: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', reject);
    req.end();
  });
  return { get, close: () => session.close() };
}

function p99(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))];
}

describe('API priority and fairness (flow control)', function () {
  this.timeout(300_000);
  let t: TestServer;
  let alice: Identity;
  let bob: Identity;
  let kcm: Identity;

  const bindAdmin = async (user: string) => {
    const r = await t.post(`${RBAC}/clusterrolebindings`, {
      metadata: { name: `${user}-admin` }, roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.orch.io', name: user }],
    });
    expect(r.status, r.text).to.equal(201);
  };
  const metrics = async () => parseExposition((await t.get('/metrics', { headers: { accept: 'text/plain' } })).text);

  before(async () => {
    t = await startTestServer(['--max-requests-inflight=2', '--max-mutating-requests-inflight=1', '--request-timeout=8s']);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    alice = t.identity('alice');
    bob = t.identity('bob');
    kcm = t.identity('system:kube-controller-manager');
    await bindAdmin('alice');
    await bindAdmin('bob');
    await bindAdmin('system:kube-controller-manager');
    const cm = await t.post(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data: { a: '1' } });
    expect(cm.status, cm.text).to.equal(201);
    const ks = await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } });
    expect([201, 409]).to.include(ks.status);
    const lease = await t.post('/apis/coordination.orch.io/v1/namespaces/kube-system/leases', {
      apiVersion: 'coordination.orch.io/v1', kind: 'Lease', metadata: { name: 'apf-test-lock' }, spec: { holderIdentity: 'kcm-1', leaseDurationSeconds: 15 },
    });
    expect(lease.status, lease.text).to.equal(201);
    // The RBAC index catches up with the bindings.
    for (const who of [alice, bob, kcm]) {
      for (let i = 0; i < 100; i++) {
        if ((await t.get(`/api/v1/namespaces/${NS}/configmaps/one`, { identity: who })).status === 200) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  });
  after(async () => { await t?.stop(); });

  it('names the FlowSchema and priority level of every classified request by uid', async () => {
    const admin = await t.get(`/api/v1/namespaces/${NS}/configmaps/one`);
    const user = await t.get(`/api/v1/namespaces/${NS}/configmaps/one`, { identity: alice });
    const probe = await t.get('/healthz', { identity: null });
    for (const r of [admin, user, probe]) {
      expect(r.headers[FS_HEADER], r.text).to.match(/^[0-9a-f-]{36}$/);
      expect(r.headers[PL_HEADER], r.text).to.match(/^[0-9a-f-]{36}$/);
    }
    // masters and probes share the exempt level, by different FlowSchemas; alice is elsewhere.
    expect(probe.headers[PL_HEADER]).to.equal(admin.headers[PL_HEADER]);
    expect(probe.headers[FS_HEADER]).to.not.equal(admin.headers[FS_HEADER]);
    expect(user.headers[PL_HEADER]).to.not.equal(admin.headers[PL_HEADER]);
    // Once the configuration keeper has stored the objects, the uids are the stored objects'.
    const fs = await t.get('/apis/flowcontrol.apiserver.orch.io/v1/flowschemas/exempt');
    const pl = await t.get('/apis/flowcontrol.apiserver.orch.io/v1/prioritylevelconfigurations/exempt');
    const gd = await t.get('/apis/flowcontrol.apiserver.orch.io/v1/flowschemas/global-default');
    expect([fs.status, pl.status, gd.status]).to.deep.equal([200, 200, 200]);
    const matches = async () => {
      const [a, u] = [await t.get('/api/v1/namespaces/default'), await t.get(`/api/v1/namespaces/${NS}/configmaps/one`, { identity: alice })];
      return a.headers[FS_HEADER] === fs.body.metadata.uid && a.headers[PL_HEADER] === pl.body.metadata.uid && u.headers[FS_HEADER] === gd.body.metadata.uid;
    };
    let ok = false;
    for (let i = 0; i < 100 && !(ok = await matches()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(ok, 'the headers name the stored objects').to.equal(true);
  });

  it('follows FlowSchema changes: a new schema classifies at once, one naming a missing level is skipped', async () => {
    const carol = t.identity('carol');
    const FS = '/apis/flowcontrol.apiserver.orch.io/v1/flowschemas';
    const schema = (name: string, level: string, precedence: number) => ({
      apiVersion: 'flowcontrol.apiserver.orch.io/v1', kind: 'FlowSchema', metadata: { name },
      spec: {
        priorityLevelConfiguration: { name: level }, matchingPrecedence: precedence, distinguisherMethod: { type: 'ByUser' },
        rules: [{ subjects: [{ kind: 'User', user: { name: 'carol' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }] }],
      },
    });
    const dangling = await t.post(FS, schema('carol-dangling', 'no-such-level', 40));
    expect(dangling.status, dangling.text).to.equal(201);
    const created = await t.post(FS, schema('carol-high', 'workload-high', 50));
    expect(created.status, created.text).to.equal(201);
    const plHigh = await t.get('/apis/flowcontrol.apiserver.orch.io/v1/prioritylevelconfigurations/workload-high');
    let r = await t.get('/api/v1/namespaces/default', { identity: carol });
    for (let i = 0; i < 100 && r.headers[FS_HEADER] !== created.body.metadata.uid; i++) {
      await new Promise((res) => setTimeout(res, 100));
      r = await t.get('/api/v1/namespaces/default', { identity: carol });
    }
    // carol-dangling comes first by precedence but names no level: carol-high decides.
    expect(r.headers[FS_HEADER]).to.equal(created.body.metadata.uid);
    expect(r.headers[PL_HEADER]).to.equal(plHigh.body.metadata.uid);
    expect((await t.del(`${FS}/carol-high`)).status).to.equal(200);
    expect((await t.del(`${FS}/carol-dangling`)).status).to.equal(200);
  });

  it('refuses a burst from one user with 429 and Retry-After, leaving masters and leader election untouched', async () => {
    const h2 = h2Client(t, alice);
    await h2.get(`/api/v1/namespaces/${NS}/configmaps/one`);
    const burst = Array.from({ length: 600 }, () => h2.get(`/api/v1/namespaces/${NS}/configmaps/one`)
      .then((r) => ({ ...r, body: JSON.parse(r.text) })));
    const masters: Promise<HttpResponse>[] = [];
    const leases: HttpResponse[] = [];
    for (let i = 0; i < 10; i++) {
      masters.push(t.get(`/api/v1/namespaces/${NS}/configmaps`));
      const cur = await t.get('/apis/coordination.orch.io/v1/namespaces/kube-system/leases/apf-test-lock', { identity: kcm });
      expect(cur.status, cur.text).to.equal(200);
      leases.push(await t.put('/apis/coordination.orch.io/v1/namespaces/kube-system/leases/apf-test-lock',
        { ...cur.body, spec: { ...cur.body.spec, renewTime: new Date().toISOString().replace(/\.\d+Z$/, '.000000Z') } }, { identity: kcm }));
    }
    const results = await Promise.all(burst);
    h2.close();
    const refused = results.filter((r) => r.status === 429);
    expect(refused.length, 'some of the burst is refused').to.be.greaterThan(0);
    expect(results.filter((r) => r.status === 200).length, 'some of the burst is served').to.be.greaterThan(0);
    expect(results.every((r) => r.status === 200 || r.status === 429)).to.equal(true);
    for (const r of refused) {
      expect(Number(r.headers['retry-after'])).to.be.within(1, 32);
      expect(r.body).to.deep.include({ kind: 'Status', status: 'Failure', reason: 'TooManyRequests', code: 429, message: 'Too many requests, please try again later.' });
      expect(r.headers[PL_HEADER]).to.equal(results[0].headers[PL_HEADER]);
    }
    expect((await Promise.all(masters)).map((r) => r.status)).to.deep.equal(Array(10).fill(200));
    expect(leases.map((r) => r.status), leases.map((r) => r.text).join('\n')).to.deep.equal(Array(10).fill(200));

    const m = await metrics();
    const rejected = m.value('apiserver_flowcontrol_rejected_requests_total', { priority_level: 'global-default', flow_schema: 'global-default' });
    expect(rejected).to.equal(refused.length);
    expect(m.value('apiserver_flowcontrol_rejected_requests_total', { priority_level: 'exempt' })).to.equal(0);
    expect(m.value('apiserver_flowcontrol_rejected_requests_total', { priority_level: 'leader-election' })).to.equal(0);
    expect(m.value('apiserver_flowcontrol_dispatched_requests_total', { priority_level: 'leader-election', flow_schema: 'system-leader-election' })).to.be.at.least(20);
    expect(m.value('apiserver_flowcontrol_dispatched_requests_total', { priority_level: 'exempt', flow_schema: 'exempt' })).to.be.greaterThan(0);
    expect(m.value('apiserver_request_terminations_total', { verb: 'GET', resource: 'configmaps', code: '429' })).to.equal(refused.length);
  });

  it('keeps another user\'s p99 within 2x while one user goes from its level\'s capacity to a 10x flood', async () => {
    // Client and server share this process's event loop (and a 2-core machine): any load from
    // alice costs bob CPU time, which no dispatcher can give back. What fair queuing promises is
    // that alice's requests beyond her share wait in her own queues: bob's p99 with alice at 10x
    // the server's 3 seats stays within 2x of his p99 with alice at them (measured in alternating
    // rounds, so that drift in the machine's load falls on both; the lower quartile of the rounds'
    // ratios). The idle p99 is logged.
    await new Promise((r) => setTimeout(r, 2500)); // Retry-After windows of the last test pass.
    const timeBob = async (n: number): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const started = performance.now();
        const r = await t.get(`/api/v1/namespaces/${NS}/configmaps/one`, { identity: bob });
        expect(r.status, r.text).to.equal(200);
        out.push(performance.now() - started);
      }
      return out;
    };
    const withAlice = async (inFlight: number, n: number): Promise<number[]> => {
      let flooding = true;
      const h2 = h2Client(t, alice);
      const statuses: number[] = [];
      const loop = async (): Promise<void> => {
        while (flooding) statuses.push((await h2.get(`/api/v1/namespaces/${NS}/configmaps/one`)).status);
      };
      const flood = Array.from({ length: inFlight }, loop);
      await new Promise((r) => setTimeout(r, 200));
      const samples = await timeBob(n);
      flooding = false;
      await Promise.all(flood);
      h2.close();
      // Alice's excess waited in her queues: none refused (6 queues x 50 hold them).
      expect(statuses.filter((x) => x !== 200)).to.deep.equal([]);
      return samples;
    };
    const idle = await timeBob(50);
    const ratios: number[] = [];
    const atCapacity: number[] = [];
    const flooded: number[] = [];
    for (let round = 0; round < 8; round++) {
      const cap = await withAlice(3, 60);
      const flood = await withAlice(30, 60);
      atCapacity.push(...cap);
      flooded.push(...flood);
      ratios.push(p99(flood) / p99(cap));
    }
    // The lower quartile of the rounds: rounds disturbed by the machine's other work (on a shared
    // 2-core machine the round ratios spread from under 1 to 3+) do not decide. A dispatcher
    // with one FIFO queue would put bob behind alice's ~27 waiting requests in every round.
    const ratio = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 4)];
    const summary = `bob's p99: idle ${p99(idle).toFixed(1)} ms, alice at capacity ${p99(atCapacity).toFixed(1)} ms, alice at 10x ${p99(flooded).toFixed(1)} ms; `
      + `per-round ratios ${ratios.map((x) => x.toFixed(2)).join(' ')}`;
    console.log(`      ${summary}`);
    expect(ratio, summary).to.be.at.most(2);
  });

  it('exposes the apiserver_flowcontrol_* metrics with kube\'s names and labels', async () => {
    const m = await metrics();
    expect(m.value('apiserver_flowcontrol_nominal_limit_seats', { priority_level: 'global-default' })).to.equal(1);
    expect(m.value('apiserver_flowcontrol_nominal_limit_seats', { priority_level: 'workload-low' })).to.equal(2);
    expect(m.value('apiserver_flowcontrol_nominal_limit_seats', { priority_level: 'exempt' })).to.equal(0);
    expect(m.has('apiserver_flowcontrol_current_limit_seats', { priority_level: 'global-default' })).to.equal(true);
    expect(m.has('apiserver_flowcontrol_request_wait_duration_seconds_bucket', { priority_level: 'global-default', flow_schema: 'global-default', execute: 'true' })).to.equal(true);
    expect(m.has('apiserver_flowcontrol_request_execution_seconds_count', { priority_level: 'exempt', flow_schema: 'exempt', type: 'regular' })).to.equal(true);
    expect(m.has('apiserver_flowcontrol_request_queue_length_after_enqueue_bucket', { priority_level: 'global-default' })).to.equal(true);
    expect(m.value('apiserver_flowcontrol_current_executing_requests', { priority_level: 'global-default' })).to.equal(0);
    expect(m.value('apiserver_flowcontrol_current_inqueue_requests', { priority_level: 'global-default' })).to.equal(0);
    expect(m.value('apiserver_flowcontrol_current_executing_seats', { priority_level: 'global-default' })).to.equal(0);
    // Deprecated in 1.30: hidden in 1.32.
    expect(m.has('apiserver_flowcontrol_request_concurrency_limit')).to.equal(false);
  });
});

describe('API priority and fairness at the default limits (400 + 200)', function () {
  this.timeout(120_000);
  let t: TestServer;
  let bob: Identity;
  before(async () => {
    t = await startTestServer();
    bob = t.identity('bob');
    const r = await t.post(`${RBAC}/clusterrolebindings`, {
      metadata: { name: 'bob-admin' }, roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.orch.io', name: 'bob' }],
    });
    expect(r.status, r.text).to.equal(201);
    for (let i = 0; i < 100 && (await t.get('/api/v1/namespaces/default', { identity: bob })).status !== 200; i++) await new Promise((res) => setTimeout(res, 100));
  });
  after(async () => { await t?.stop(); });
  const metrics = async () => parseExposition((await t.get('/metrics', { headers: { accept: 'text/plain' } })).text);

  it('estimates a large list by the objects it reads', async () => {
    const created = await Promise.all(Array.from({ length: 450 }, (_, i) => t.post('/api/v1/namespaces/default/configmaps',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `bulk-${i}` } })));
    expect(created.every((r) => r.status === 201)).to.equal(true);
    const before = await metrics();
    const labels = { priority_level: 'global-default', flow_schema: 'global-default' };
    const le4 = before.value('apiserver_flowcontrol_work_estimated_seats_bucket', { ...labels, le: '4' });
    const le10 = before.value('apiserver_flowcontrol_work_estimated_seats_bucket', { ...labels, le: '10' });
    const list = await t.get('/api/v1/namespaces/default/configmaps', { identity: bob });
    expect(list.status).to.equal(200);
    const get = await t.get('/api/v1/namespaces/default/configmaps/bulk-0', { identity: bob });
    expect(get.status).to.equal(200);
    const after = await metrics();
    // The list (450+ objects: 5 seats; global-default's requests take at most 8) lands above 4; the get in the first bucket.
    expect(after.value('apiserver_flowcontrol_work_estimated_seats_bucket', { ...labels, le: '10' }) - le10).to.equal(2);
    expect(after.value('apiserver_flowcontrol_work_estimated_seats_bucket', { ...labels, le: '4' }) - le4).to.equal(1);
  });

  it('divides the 600 seats as kube-apiserver does', async () => {
    const m = await metrics();
    const nominal = (pl: string) => m.value('apiserver_flowcontrol_nominal_limit_seats', { priority_level: pl });
    expect(['catch-all', 'system', 'node-high', 'leader-election', 'workload-high', 'workload-low', 'global-default', 'exempt'].map(nominal))
      .to.deep.equal([13, 74, 98, 25, 98, 245, 49, 0]);
  });
});

describe('--enable-priority-and-fairness=false', function () {
  this.timeout(120_000);
  let t: TestServer;
  before(async () => { t = await startTestServer(['--enable-priority-and-fairness=false', '--max-requests-inflight=2', '--max-mutating-requests-inflight=1']); });
  after(async () => { await t?.stop(); });

  it('falls back to the in-flight limits: nothing is classified', async () => {
    const r = await t.get('/api/v1/namespaces/default');
    expect(r.status).to.equal(200);
    expect(r.headers).to.not.have.property(FS_HEADER);
    expect(r.headers).to.not.have.property(PL_HEADER);
    const m = parseExposition((await t.get('/metrics', { headers: { accept: 'text/plain' } })).text);
    expect(m.has('apiserver_flowcontrol_dispatched_requests_total')).to.equal(false);
  });
});
