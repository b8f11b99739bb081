/**
 * `--workers=N`: one server made of N worker processes (lib/server/workers.ts), run as an
 * operator runs it (`node dist/lib/server/main.js --workers=3`): worker 0 runs the controllers
 * and takes no connections, the others share the port. Connections are spread over the serving
 * workers; a write through one is read and watched through the other; a worker that dies is
 * started again while the other serves on; SIGTERM drains them all and leaves no
 * process behind; the in-flight limits are shared among the workers; /metrics merges them; one
 * audit log file for all; the embedded etcd belongs to the primary.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { Credentials, H1Client, H2Client, readKubeconfig, watchH2 } from '../helpers/process-client';
import { childPids, ServerProcess, startServerProcess, startFailureLine } from '../helpers/server-process';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid that holds the server side of each established connection to `port` (from `ss`), by the client's local port. */
function serverSideOwners(port: number): Map<number, number> {
  const out = execFileSync('ss', ['-tnpH', 'state', 'established', `( sport = :${port} )`], { encoding: 'utf8' });
  const owners = new Map<number, number>();
  for (const line of out.split('\n')) {
    const cols = line.trim().split(/\s+/);
    const pid = /pid=(\d+),/.exec(line)?.[1];
    if (!pid || cols.length < 4) continue;
    owners.set(Number(cols[3].split(':').pop()), Number(pid));
  }
  return owners;
}

/** An HTTP/2 session whose connection is served by worker process `pid`: new sessions until one lands there. */
async function sessionOn(creds: Credentials, port: number, pid: number): Promise<H2Client> {
  for (let i = 0; i < 20; i++) {
    const c = new H2Client(creds);
    const s = c.connect();
    await new Promise<void>((resolve, reject) => { s.once('connect', () => resolve()); s.once('error', reject); });
    const local = (s.socket as unknown as { localPort: number }).localPort;
    await sleep(20);
    if (serverSideOwners(port).get(local) === pid) return c;
    c.close();
  }
  throw new Error(`no connection landed on worker ${pid} in 20 tries`);
}

const portOf = (creds: Credentials) => Number(new URL(creds.url).port);

/**
 * A fresh etcd and a server process with `args` (data dir, port 0, quiet logs added), given to
 * `fn`; everything removed afterwards. `fn` may stop the server itself.
 */
async function withWorkers(name: string, args: string[], fn: (server: ServerProcess) => Promise<void>): Promise<void> {
  const etcd = await startTestEtcd();
  const dir = mkdtempSync(path.join(os.tmpdir(), `orch-workers-${name}-`));
  let server: ServerProcess | undefined;
  try {
    server = await startServerProcess([`--data-dir=${path.join(dir, 'data')}`, '--secure-port=0', '--log-level=error',
      `--etcd-servers=${etcd.endpoint}`, ...args], { timeoutMs: 60_000 });
    await fn(server);
  } finally {
    await server?.stop(30_000);
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('--workers: one server in several processes', function () {
  this.timeout(120_000);
  let etcd: TestEtcd;
  let dir: string;
  let server: ServerProcess | undefined;
  let creds: Credentials;

  before(async function () {
    this.timeout(90_000);
    etcd = await startTestEtcd();
    dir = mkdtempSync(path.join(os.tmpdir(), 'orch-workers-'));
    server = await startServerProcess([`--data-dir=${path.join(dir, 'data')}`, '--secure-port=0', '--log-level=error',
      `--etcd-servers=${etcd.endpoint}`, '--workers=3', '--max-mutating-requests-inflight=3', '--max-inflight-exempt-masters=false',
      // The plain in-flight limits, whose per-worker share the last test checks (priority and fairness divides its seats too: test/integration/flow-control.test.ts).
      '--enable-priority-and-fairness=false'], { timeoutMs: 60_000 });
    creds = readKubeconfig(server.kubeconfigPath);
  });

  /** The workers that hold connections, after 8 new ones held open (round-robin gives each some). */
  async function servingWorkers(): Promise<number[]> {
    const clients = Array.from({ length: 8 }, () => new H1Client(creds, 1));
    try {
      const replies = await Promise.all(clients.map((c) => c.request('GET', '/api/v1/namespaces/default')));
      for (const r of replies) expect(r.status).to.equal(200);
      const owners = new Set(serverSideOwners(portOf(creds)).values());
      return childPids(server!.process.pid!).filter((p) => owners.has(p));
    } finally {
      for (const c of clients) c.close();
    }
  }
  after(async () => {
    await server?.stop(30_000);
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs three worker processes: two take connections on the one port, the controllers\' one none', async () => {
    const workers = childPids(server!.process.pid!);
    expect(workers).to.have.length(3);
    const serving = await servingWorkers();
    expect(serving, 'workers holding connections').to.have.length(2);
    // The one left out runs the controllers: a new namespace still gets its service account.
    const c = new H2Client(creds);
    try {
      expect((await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'workers-sa' } })).status).to.equal(201);
      const deadline = Date.now() + 15_000;
      let names: string[] = [];
      while (Date.now() < deadline && !names.includes('default')) {
        names = ((await c.request('GET', '/api/v1/namespaces/workers-sa/serviceaccounts')).body.items ?? []).map((o: any) => o.metadata.name);
        await sleep(100);
      }
      expect(names).to.include('default');
    } finally {
      c.close();
    }
  });

  it('a write through one worker is read and watched through the other at once', async () => {
    const [w0, w1] = await servingWorkers();
    const a = await sessionOn(creds, portOf(creds), w0);
    const b = await sessionOn(creds, portOf(creds), w1);
    try {
      const ns = 'workers-rw';
      expect((await a.request('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).to.equal(201);
      const list = await b.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
      expect(list.status).to.equal(200);
      const watch = await watchH2(b, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`);
      expect(watch.status).to.equal(200);
      for (let i = 0; i < 20; i++) {
        const created = await a.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `cm-${i}` }, data: { i: String(i) } });
        expect(created.status).to.equal(201);
        // Read-your-writes on the other worker: a consistent GET, and a GET at the returned resourceVersion.
        const got = await b.request('GET', `/api/v1/namespaces/${ns}/configmaps/cm-${i}`);
        expect(got.status, got.text).to.equal(200);
        expect(got.body.metadata.resourceVersion).to.equal(created.body.metadata.resourceVersion);
        const atRv = await b.request('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=${created.body.metadata.resourceVersion}&resourceVersionMatch=NotOlderThan`);
        expect(atRv.body.items.map((o: any) => o.metadata.name)).to.include(`cm-${i}`);
      }
      const deadline = Date.now() + 10_000;
      // Only ours: the namespace's controllers add their own ConfigMap (the root CA) meanwhile.
      const ours = () => watch.events.filter((e) => e.object.metadata.name.startsWith('cm-'));
      while (ours().length < 20 && Date.now() < deadline) await sleep(50);
      watch.cancel();
      expect(ours().map((e) => `${e.type} ${e.object.metadata.name}`)).to.deep.equal(Array.from({ length: 20 }, (_, i) => `ADDED cm-${i}`));
    } finally {
      a.close();
      b.close();
    }
  });

  it('shares --max-mutating-requests-inflight among the workers (3 over 2 workers: 2 each)', async () => {
    // A mutating request held open: a create whose body never ends, on each serving worker, twice.
    const workers = await servingWorkers();
    const held: http2.ClientHttp2Stream[] = [];
    const clients: H2Client[] = [];
    try {
      for (const w of workers) {
        for (let i = 0; i < 2; i++) {
          const c = await sessionOn(creds, portOf(creds), w);
          clients.push(c);
          const stream = c.connect().request({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps', 'content-type': 'application/json' });
          stream.on('error', () => undefined);
          stream.write('{"metadata":');
          held.push(stream);
        }
      }
      await sleep(300);
      // Each worker has its 2 in flight: the next mutating request anywhere is refused with 429.
      for (const w of workers) {
        const c = await sessionOn(creds, portOf(creds), w);
        clients.push(c);
        const r = await c.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `over-${w}` } });
        expect(r.status, r.text).to.equal(429);
        expect(r.headers['retry-after']).to.equal('1');
      }
    } finally {
      for (const c of clients) c.destroy();
    }
  });

  it('/metrics on either worker shows the whole server: counters summed, object counts not doubled', async () => {
    const [w0, w1] = await servingWorkers();
    const a = await sessionOn(creds, portOf(creds), w0);
    const b = await sessionOn(creds, portOf(creds), w1);
    try {
      const sample = (text: string, re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
      const listsOfSecrets = /^apiserver_request_total\{(?=[^}]*resource="secrets")(?=[^}]*verb="LIST")(?=[^}]*code="200")[^}]*\} (\d+)$/m;
      const before = sample((await a.request('GET', '/metrics')).text, listsOfSecrets) || 0;
      for (let i = 0; i < 7; i++) expect((await a.request('GET', '/api/v1/secrets')).status).to.equal(200);
      for (let i = 0; i < 5; i++) expect((await b.request('GET', '/api/v1/secrets')).status).to.equal(200);
      const viaA = await a.request('GET', '/metrics');
      const viaB = await b.request('GET', '/metrics');
      expect(viaA.status).to.equal(200);
      expect(sample(viaA.text, listsOfSecrets) - before, 'LISTs of secrets counted on both workers').to.equal(12);
      expect(sample(viaB.text, listsOfSecrets) - before).to.equal(12);
      const namespaces = (await a.request('GET', '/api/v1/namespaces')).body.items.length;
      const stored = sample(viaB.text, /^apiserver_storage_objects\{resource="namespaces"\} (\d+)$/m);
      expect(stored, 'apiserver_storage_objects of namespaces (each worker caches them all)').to.equal(namespaces);
      // The process metrics of both workers (and of no other process) add up.
      expect(sample(viaA.text, /^process_resident_memory_bytes (\d+)$/m)).to.be.greaterThan(0);
    } finally {
      a.close();
      b.close();
    }
  });

  it('/metrics/slis on either worker counts the health probes of both', async () => {
    const [w0, w1] = await servingWorkers();
    const a = await sessionOn(creds, portOf(creds), w0);
    const b = await sessionOn(creds, portOf(creds), w1);
    try {
      const etcdOk = /^kubernetes_healthchecks_total\{(?=[^}]*name="etcd")(?=[^}]*type="readyz")(?=[^}]*status="success")[^}]*\} (\d+)$/m;
      const count = async (c: H2Client) => {
        const res = await c.request('GET', '/metrics/slis');
        expect(res.status).to.equal(200);
        return Number(etcdOk.exec(res.text)?.[1] ?? 0);
      };
      const before = await count(a);
      for (let i = 0; i < 3; i++) expect((await a.request('GET', '/readyz')).status).to.equal(200);
      for (let i = 0; i < 2; i++) expect((await b.request('GET', '/readyz')).status).to.equal(200);
      // The outcomes reach the primary by one-way messages: wait for the last of them.
      let viaB = 0;
      for (let i = 0; i < 50 && viaB - before < 5; i++) viaB = await count(b);
      expect(viaB - before, 'probes of both workers').to.equal(5);
      expect(await count(a) - before).to.equal(5);
    } finally {
      a.close();
      b.close();
    }
  });

  it('a worker that dies is started again; the other serves on without an error', async () => {
    const [survivor, victim] = await servingWorkers();
    const client = await sessionOn(creds, portOf(creds), survivor);
    try {
      let failures = 0;
      let done = false;
      const load = (async () => {
        let n = 0;
        while (!done) {
          const r = await client.request('GET', `/api/v1/namespaces/default?n=${n++}`).catch(() => undefined);
          if (r?.status !== 200) failures++;
        }
      })();
      process.kill(victim, 'SIGKILL');
      const deadline = Date.now() + 30_000;
      let now: number[] = [];
      while (Date.now() < deadline) {
        now = childPids(server!.process.pid!);
        if (now.length === 3 && !now.includes(victim)) break;
        await sleep(100);
      }
      expect(now, 'a new worker in place of the killed one').to.have.length(3);
      expect(now).to.include(survivor);
      expect(now).to.not.include(victim);
      // The new worker (the newest pid) takes connections and answers.
      const newcomer = Math.max(...now);
      let fresh: H2Client | undefined;
      const readyBy = Date.now() + 30_000;
      while (!fresh && Date.now() < readyBy) {
        fresh = await sessionOn(creds, portOf(creds), newcomer).catch(() => undefined);
        if (!fresh) await sleep(200);
      }
      expect(fresh, 'a connection served by the new worker').to.not.equal(undefined);
      expect((await fresh!.request('GET', '/api/v1/namespaces/default')).status).to.equal(200);
      fresh!.close();
      done = true;
      await load;
      expect(failures, 'requests failed on the surviving worker').to.equal(0);
    } finally {
      client.close();
    }
  });

  it('SIGTERM drains every worker and the primary exits 0, leaving no worker behind', async () => {
    const workers = childPids(server!.process.pid!);
    const result = await server!.stop(30_000);
    expect(result.forced).to.equal(false);
    expect(result.code).to.equal(0);
    for (const w of workers) expect(alive(w), `worker ${w} still running`).to.equal(false);
    server = undefined;
  });
});

describe('--workers: the primary killed', function () {
  this.timeout(120_000);

  it('SIGKILL of the primary takes its workers down at once: nothing is left serving on the port', async () => {
    await withWorkers('kill', ['--workers=2'], async (server) => {
    const workers = childPids(server.process.pid!);
    expect(workers).to.have.length(2);
    const creds = readKubeconfig(server.kubeconfigPath);
    server.process.kill('SIGKILL');
    const deadline = Date.now() + 10_000;
    while (workers.some(alive) && Date.now() < deadline) await sleep(50);
    expect(workers.filter(alive), 'workers still running 10 s after the primary died').to.deep.equal([]);
    const c = new H1Client(creds, 1);
    const err = await c.request('GET', '/healthz').then(() => undefined, (e: Error) => e);
    c.close();
    expect(err, 'a request answered after the primary and its workers were gone').to.be.instanceOf(Error);
    });
  });
});

describe('--workers: SIGTERM to every process at once', function () {
  this.timeout(120_000);

  it('one drain (as systemd\'s default KillMode signals the whole group): served through the shutdown delay, watches end cleanly, exit 0', async () => {
    await withWorkers('group-term', ['--workers=3', '--shutdown-delay-duration=3s'], async (server) => {
      const creds = readKubeconfig(server.kubeconfigPath);
      const workers = childPids(server.process.pid!);
      const clients = Array.from({ length: 4 }, () => new H2Client(creds));
      try {
        // Four sessions: round-robin puts watches on both serving workers.
        const watches = await Promise.all(clients.map((c) => watchH2(c, '/api/v1/namespaces/default/configmaps?watch=true')));
        for (const w of watches) expect(w.status).to.equal(200);
        for (const pid of [...workers, server.process.pid!]) process.kill(pid, 'SIGTERM');
        // The shutdown delay: every worker still answers on its open connections (readyz fails).
        const until = Date.now() + 1_500;
        while (Date.now() < until) {
          const replies = await Promise.all(clients.map((c) => c.request('GET', '/api/v1/namespaces/default').catch((e: Error) => ({ status: 0, text: e.message }))));
          for (const r of replies) expect(r.status, `during the shutdown delay: ${r.text}`).to.equal(200);
          await sleep(100);
        }
        const ends = await Promise.all(watches.map((w) => w.ended));
        expect(ends, 'how each watch ended').to.deep.equal(['clean', 'clean', 'clean', 'clean']);
        // Wait for the exit (server.stop() would send the primary a second SIGTERM: exit at once, 1).
        const child = server.process;
        const code = child.exitCode ?? await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
        expect(code, server.stderrTail()).to.equal(0);
        for (const w of workers) expect(alive(w), `worker ${w} still running`).to.equal(false);
      } finally {
        for (const c of clients) c.destroy();
      }
    });
  });
});

describe('--workers with kubectl', function () {
  this.timeout(120_000);

  it('kubectl invocations land on either worker and see one consistent server', async () => {
    await withWorkers('kubectl', ['--workers=2', '--controllers=*,bootstrapsigner'], async (server) => {
    const kubectl = (...args: string[]) => execFileSync('kubectl', [`--kubeconfig=${server!.kubeconfigPath}`, ...args], { encoding: 'utf8' });
    kubectl('create', 'namespace', 'kc');
    // Each invocation is a new connection: round-robin alternates the workers.
    for (let i = 0; i < 6; i++) {
      kubectl('-n', 'kc', 'create', 'configmap', `c${i}`, `--from-literal=i=${i}`);
      const names = kubectl('-n', 'kc', 'get', 'configmaps', '-o', 'jsonpath={.items[*].metadata.name}').split(' ');
      for (let j = 0; j <= i; j++) expect(names, `after creating c${i}`).to.include(`c${j}`);
      expect(kubectl('-n', 'kc', 'get', 'configmap', `c${i}`, '-o', 'jsonpath={.data.i}')).to.equal(String(i));
    }
    kubectl('-n', 'kc', 'patch', 'configmap', 'c0', '--type=merge', '-p', '{"data":{"i":"patched"}}');
    expect(kubectl('-n', 'kc', 'get', 'configmap', 'c0', '-o', 'jsonpath={.data.i}')).to.equal('patched');
    // The namespace's service account comes from the controllers, in worker 0 only, once.
    const deadline = Date.now() + 15_000;
    let accounts = '';
    while (Date.now() < deadline && !(accounts = kubectl('-n', 'kc', 'get', 'serviceaccounts', '-o', 'jsonpath={.items[*].metadata.name}'))) await sleep(200);
    expect(accounts).to.equal('default');
    // Worker 0 does not listen: it hears the URL from the primary and publishes it in cluster-info.
    const url = readKubeconfig(server.kubeconfigPath).url;
    const infoBy = Date.now() + 15_000;
    let info = '';
    while (Date.now() < infoBy && !info.includes(url)) {
      try {
        info = execFileSync('kubectl', [`--kubeconfig=${server.kubeconfigPath}`, '-n', 'orch-public', 'get', 'configmap', 'cluster-info', '-o', 'jsonpath={.data.kubeconfig}'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      } catch {
        info = '';
      }
      if (!info.includes(url)) await sleep(200);
    }
    expect(info, 'cluster-info names the URL the workers serve at').to.include(`server: ${url}`);
    });
  });
});

describe('--workers and the audit log', function () {
  this.timeout(120_000);

  it('one file for all workers, rotated once by size: every request logged once, every line whole', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-workers-audit-policy-'));
    const policy = path.join(dir, 'policy.yaml');
    writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: RequestResponse\n    namespaces: ["audited"]\n');
    const logDir = path.join(dir, 'audit');
    try {
      await withWorkers('audit', ['--workers=3', `--audit-policy-file=${policy}`, `--audit-log-path=${path.join(logDir, 'audit.log')}`, '--audit-log-maxsize=1'], async (server) => {
        const creds = readKubeconfig(server.kubeconfigPath);
        const setup = new H2Client(creds);
        expect((await setup.request('POST', '/api/v1/namespaces', { metadata: { name: 'audited' } })).status).to.equal(201);
        setup.close();
        // 16 connections (both workers get some), 30 creates of ~8 KiB each: ~2.5 MiB of events with their bodies.
        const clients = Array.from({ length: 16 }, () => new H1Client(creds, 1));
        const ids: string[] = [];
        const value = 'x'.repeat(8_000);
        await Promise.all(clients.map(async (c, ci) => {
          for (let i = 0; i < 30; i++) {
            const r = await c.request('POST', '/api/v1/namespaces/audited/configmaps', { metadata: { name: `c${ci}-${i}` }, data: { value } });
            expect(r.status).to.equal(201);
            ids.push(String(r.headers['audit-id']));
          }
        }));
        const owners = new Set(serverSideOwners(portOf(creds)).values());
        expect(owners.size, 'connections on both serving workers').to.equal(2);
        for (const c of clients) c.close();
        await server.stop(30_000);
        const files = readdirSync(logDir);
        expect(files.length, `rotated into backups: ${files.join(', ')}`).to.be.greaterThan(1);
        const complete = new Map<string, number>();
        for (const f of files) {
          const text = readFileSync(path.join(logDir, f), 'utf8');
          expect(Buffer.byteLength(text), `${f} within --audit-log-maxsize`).to.be.at.most(1024 * 1024);
          for (const line of text.split('\n').filter(Boolean)) {
            const ev = JSON.parse(line);
            if (ev.stage === 'ResponseComplete') complete.set(ev.auditID, (complete.get(ev.auditID) ?? 0) + 1);
          }
        }
        for (const id of ids) expect(complete.get(id), `ResponseComplete events of ${id}`).to.equal(1);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('--workers with the embedded etcd', function () {
  this.timeout(120_000);

  it('the primary starts etcd for its workers and stops it last', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-workers-embedded-'));
    let server: ServerProcess | undefined;
    try {
      server = await startServerProcess([`--data-dir=${path.join(dir, 'data')}`, '--secure-port=0', '--log-level=error', '--workers=2'], { timeoutMs: 60_000 });
      const etcdPids = () => { try { return execFileSync('pgrep', ['-f', `etcd.*${dir}`], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number); } catch { return []; } };
      expect(etcdPids()).to.have.length(1);
      // etcd is the primary's child beside the two workers.
      expect(childPids(server.process.pid!)).to.include(etcdPids()[0]);
      const c = new H2Client(readKubeconfig(server.kubeconfigPath));
      expect((await c.request('GET', '/api/v1/namespaces/default')).status).to.equal(200);
      c.close();
      const result = await server.stop(30_000);
      expect(result.code).to.equal(0);
      expect(etcdPids()).to.deep.equal([]);
    } finally {
      await server?.stop(5_000);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses --workers=0 with one line', async () => {
    expect(await startFailureLine(['--workers=0'])).to.match(/--workers.*must be an integer/);
  });
});
