/**
 * The built server process (`node dist/lib/server/main.js`) as an operator runs it: flag errors,
 * a start with an embedded etcd, what it writes to its data dir, HTTP/2 and HTTP/1.1 on one port,
 * graceful shutdown (with and without a shutdown delay), and the kubernetes flavor.
 */
import { expect } from 'chai';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import YAML from 'yaml';

const MAIN = path.resolve(__dirname, '../../lib/server/main.js');
const START_TIMEOUT_MS = 30_000;

interface Spawned {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnServer(args: string[]): Spawned {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => { out += c; });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => { err += c; });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A deadline for Promise.race that does not keep mocha alive once the race is won. */
const deadline = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());
const running = (p: Spawned) => p.child.exitCode === null && p.child.signalCode === null;

/** Waits for the start banner and returns the kubeconfig path it prints. */
async function waitForKubeconfigPath(p: Spawned): Promise<string> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const m = /admin kubeconfig: (\S+)/.exec(p.stdout());
    if (m) return m[1];
    if (!running(p)) throw new Error(`server exited during start-up:\n${p.stderr()}`);
    if (Date.now() > deadline) throw new Error(`server did not start in time:\n${p.stderr()}`);
    await sleep(100);
  }
}

/** PIDs of etcd processes whose command line names `dataDir` (only ever ours: the dir is fresh). */
function etcdPids(dataDir: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', `etcd.*${dataDir}/etcd`], { encoding: 'utf8' })
      .split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

interface Kubeconfig { server: string; ca: string; cert: string; key: string }

function readKubeconfig(file: string): Kubeconfig {
  const doc = YAML.parse(readFileSync(file, 'utf8'));
  const ctx = doc.contexts.find((c: any) => c.name === doc['current-context']).context;
  const cluster = doc.clusters.find((c: any) => c.name === ctx.cluster).cluster;
  const user = doc.users.find((u: any) => u.name === ctx.user).user;
  const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
  return {
    server: cluster.server, ca: b64(cluster['certificate-authority-data']),
    cert: b64(user['client-certificate-data']), key: b64(user['client-key-data']),
  };
}

interface Reply { status: number; text: string; httpVersion: string; alpnProtocol: string | false | null }

/** One HTTPS/1.1 request with the kubeconfig's credentials, no keep-alive. */
function get11(kc: Kubeconfig, urlPath: string, alpn?: string[]): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const opts: https.RequestOptions & tls.ConnectionOptions = {
      ca: kc.ca, cert: kc.cert, key: kc.key, agent: false, ALPNProtocols: alpn, timeout: 10_000,
    };
    const req = https.request(`${kc.server}${urlPath}`, opts, (res) => {
      let text = '';
      const alpnProtocol = (res.socket as tls.TLSSocket).alpnProtocol;
      res.setEncoding('utf8').on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, httpVersion: res.httpVersion, alpnProtocol }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** Stops a server we started (SIGTERM, then SIGKILL) and any etcd left under its dir; removes the dir. */
async function cleanUp(p: Spawned | undefined, dataDir: string | undefined): Promise<void> {
  if (p && running(p)) {
    p.child.kill('SIGTERM');
    await Promise.race([p.exited, deadline(15_000)]);
    if (running(p)) {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  }
  if (dataDir) {
    for (const pid of etcdPids(dataDir)) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const tempDir = () => mkdtempSync(path.join(os.tmpdir(), 'orch-proc-'));

describe('server process', function () {
  this.timeout(60_000);

  before(() => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build with tsc first`);
  });

  describe('flag errors', () => {
    for (const [flag, named] of [['--foo', '--foo'], ['--secure-port=abc', '--secure-port']] as const) {
      it(`${flag} exits non-zero with one stderr line naming the flag`, async () => {
        const dir = tempDir();
        const p = spawnServer([`--data-dir=${dir}`, flag]);
        try {
          const { code } = await p.exited;
          expect(code).to.be.a('number').and.not.equal(0);
          const lines = p.stderr().trimEnd().split('\n');
          expect(lines, p.stderr()).to.have.length(1);
          expect(lines[0]).to.contain(named);
          expect(existsSync(path.join(dir, 'pki'))).to.equal(false);
        } finally {
          await cleanUp(p, dir);
        }
      });
    }
  });

  describe('flags accepted without effect', () => {
    it('are named in one warning whenever given, at their default values too', async () => {
      const dir = tempDir();
      // A --runtime-config naming no group stops the start right after the warning, before etcd or the PKI.
      const p = spawnServer([`--data-dir=${dir}`, '--profiling', '--enable-priority-and-fairness=true', '-v', '0', '--vmodule=',
        '--cors-allowed-origins=.*', '--runtime-config=nosuch/v1=true']);
      try {
        expect((await p.exited).code).to.equal(1);
        const warnings = p.stderr().split('\n').filter((l) => l.includes('"level":"warn"')).map((l) => JSON.parse(l));
        expect(warnings.map((w) => [w.message, Object.keys(w.flags)])).to.deep.equal([['these flags are accepted but have no effect here',
          ['--cors-allowed-origins', '--profiling', '--vmodule']]]);
        // Each with why, in one line.
        expect(warnings[0].flags['--profiling']).to.match(/nothing is served under \/debug/);
        expect(p.stderr()).to.contain('unknown api groups nosuch/v1');
      } finally {
        await cleanUp(p, dir);
      }
    });
  });

  describe('--etcd-binary', () => {
    it('is the etcd run when --etcd-servers is empty: a missing one stops the start, named', async () => {
      const dir = tempDir();
      const binary = path.join(dir, 'no-such-etcd');
      const p = spawnServer([`--data-dir=${dir}`, '--secure-port=0', `--etcd-binary=${binary}`]);
      try {
        expect((await p.exited).code).to.equal(1);
        expect(p.stderr()).to.contain(`cannot run etcd binary ${JSON.stringify(binary)} (ENOENT)`);
      } finally {
        await cleanUp(p, dir);
      }
    });
  });

  describe('start with an embedded etcd, serve, stop on SIGTERM', () => {
    let dir: string;
    let p: Spawned;
    let kubeconfigPath: string;
    let kc: Kubeconfig;

    before(async () => {
      dir = tempDir();
      p = spawnServer([`--data-dir=${dir}`, '--secure-port=0']);
      kubeconfigPath = await waitForKubeconfigPath(p);
      kc = readKubeconfig(kubeconfigPath);
    });
    after(async () => { await cleanUp(p, dir); });

    it('prints the kubeconfig path and writes the kubeconfig and PKI into the data dir', () => {
      expect(kubeconfigPath).to.equal(path.join(dir, 'admin.kubeconfig'));
      for (const f of ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key', 'admin.crt', 'admin.key']) {
        expect(existsSync(path.join(dir, 'pki', f)), f).to.equal(true);
      }
      expect(kc.server).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(kc.ca).to.equal(readFileSync(path.join(dir, 'pki', 'ca.crt'), 'utf8'));
    });

    it('runs its etcd as a child under <data-dir>/etcd', () => {
      expect(etcdPids(dir)).to.have.length(1);
      expect(existsSync(path.join(dir, 'etcd'))).to.equal(true);
    });

    it('serves /readyz over HTTPS, verified by the kubeconfig CA', async () => {
      const res = await get11(kc, '/readyz');
      expect(res.status).to.equal(200);
      expect(res.text).to.equal('ok');
    });

    it('offers HTTP/2 by ALPN: GET /api/v1/namespaces with the admin certificate is 200', async () => {
      const session = http2.connect(kc.server, { ca: kc.ca, cert: kc.cert, key: kc.key });
      try {
        await new Promise<void>((resolve, reject) => { session.once('connect', () => resolve()); session.once('error', reject); });
        expect(session.alpnProtocol).to.equal('h2');
        const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
          const req = session.request({ ':method': 'GET', ':path': '/api/v1/namespaces', accept: 'application/json' });
          let status = 0;
          let text = '';
          req.on('response', (h) => { status = Number(h[':status']); });
          req.setEncoding('utf8').on('data', (c: string) => { text += c; });
          req.on('end', () => resolve({ status, text }));
          req.on('error', reject);
          req.end();
        });
        expect(status, text).to.equal(200);
        const body = JSON.parse(text);
        expect(body.kind).to.equal('NamespaceList');
        expect(body.items.map((n: any) => n.metadata.name)).to.include.members(['default', 'orch-system', 'orch-public']);
      } finally {
        session.close();
      }
    });

    it('serves HTTP/1.1 on the same port (with and without ALPN)', async () => {
      for (const alpn of [['http/1.1'], undefined]) {
        const res = await get11(kc, '/api/v1/namespaces', alpn);
        expect(res.status, res.text).to.equal(200);
        expect(res.httpVersion).to.equal('1.1');
        expect(res.alpnProtocol).to.equal(alpn ? 'http/1.1' : false);
        expect(JSON.parse(res.text).kind).to.equal('NamespaceList');
      }
    });

    it('on SIGTERM exits 0 and its etcd is gone', async () => {
      const [etcdPid] = etcdPids(dir);
      p.child.kill('SIGTERM');
      const { code, signal } = await Promise.race([p.exited, deadline(20_000).then(() => ({ code: null, signal: null }))]);
      expect({ code, signal }, p.stderr().slice(-2000)).to.deep.equal({ code: 0, signal: null });
      expect(etcdPids(dir)).to.deep.equal([]);
      expect(() => process.kill(etcdPid, 0)).to.throw(/ESRCH/);
    });
  });

  describe('--shutdown-delay-duration=2s', () => {
    let dir: string;
    let p: Spawned;
    let kc: Kubeconfig;

    before(async () => {
      dir = tempDir();
      p = spawnServer([`--data-dir=${dir}`, '--secure-port=0', '--shutdown-delay-duration=2s']);
      kc = readKubeconfig(await waitForKubeconfigPath(p));
    });
    after(async () => { await cleanUp(p, dir); });

    it('after SIGTERM /readyz fails while the listener still answers, then the process exits 0', async () => {
      expect((await get11(kc, '/readyz')).status).to.equal(200);
      const signalledAt = Date.now();
      p.child.kill('SIGTERM');
      await sleep(200);
      const ready = await get11(kc, '/readyz?verbose');
      expect(ready.status, ready.text).to.equal(500);
      expect(ready.text).to.contain('[-]shutdown failed');
      const live = await get11(kc, '/livez');
      expect(live.status).to.equal(200);
      const ns = await get11(kc, '/api/v1/namespaces');
      expect(ns.status).to.equal(200);
      expect(Date.now() - signalledAt, 'checks ran inside the delay').to.be.below(2000);

      const { code } = await p.exited;
      expect(code).to.equal(0);
      expect(Date.now() - signalledAt).to.be.at.least(1900);
      expect(etcdPids(dir)).to.deep.equal([]);
    });
  });

  describe('--flavor=kubernetes', () => {
    let dir: string;
    let p: Spawned;
    let kc: Kubeconfig;

    before(async () => {
      dir = tempDir();
      p = spawnServer([`--data-dir=${dir}`, '--secure-port=0', '--flavor=kubernetes']);
      kc = readKubeconfig(await waitForKubeconfigPath(p));
    });
    after(async () => { await cleanUp(p, dir); });

    it('creates default, kube-system and kube-public (and no orch-* namespaces)', async () => {
      const res = await get11(kc, '/api/v1/namespaces');
      expect(res.status).to.equal(200);
      const items = JSON.parse(res.text).items;
      const names = items.map((n: any) => n.metadata.name);
      expect(names).to.include.members(['default', 'kube-system', 'kube-public']);
      expect(names.filter((n: string) => n.startsWith('orch-'))).to.deep.equal([]);
      const kubeSystem = items.find((n: any) => n.metadata.name === 'kube-system');
      expect(kubeSystem.spec.finalizers).to.deep.equal(['kubernetes']);
      expect(kubeSystem.metadata.labels['kubernetes.io/metadata.name']).to.equal('kube-system');
    });
  });
});
