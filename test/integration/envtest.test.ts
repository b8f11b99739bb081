/**
 * controller-runtime's envtest against this server: the exact command line envtest gives the
 * kube-apiserver binary (pkg/internal/testing/controlplane: its default arguments, the client-cert
 * authenticator's --client-ca-file, --cert-dir holding the serving pair and the service-account
 * signer, the etcd URL), with the certificates made as envtest makes them (a CA of its own for
 * client certificates, another for the serving pair, a self-signed signer for service-account
 * tokens, an admin user "envtest-admin" in system:masters). The server must answer envtest's
 * health check and a real request made with the admin certificate; deploy/envtest/kube-apiserver,
 * the launcher a KUBEBUILDER_ASSETS directory holds, is run the same way. envtest up to v0.8
 * (controller-runtime 0.8.3, run against this server: docs/envtest.md) starts it as releases up
 * to 1.19 ran, with an insecure port its health check and its clients use without credentials.
 */
import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { issueCert, type Issued } from '../helpers/x509-certs';
import { startTestEtcd, type TestEtcd } from '../helpers/etcd-harness';
import { freeLoopbackPort } from '../helpers/free-port';

const MAIN_JS = path.resolve(__dirname, '../../lib/server/main.js');
const LAUNCHER = path.resolve(__dirname, '../../../deploy/envtest/kube-apiserver');

/** What envtest writes into its certificate directory before it starts kube-apiserver. */
interface EnvtestDir {
  dir: string;
  servingCa: Issued;
  clientCa: Issued;
  admin: Issued;
}

function envtestCertDir(withServingPair = true): EnvtestDir {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-envtest-'));
  // populateAPIServerCerts: a tiny CA and a serving certificate for localhost and 127.0.0.1.
  const servingCa = issueCert({ commonName: 'envtest-environment', ca: true });
  if (withServingPair) {
    const serving = issueCert({ commonName: 'localhost', extKeyUsage: ['serverAuth'], altNames: ['localhost', '127.0.0.1', '::1'] }, servingCa);
    writeFileSync(path.join(dir, 'apiserver.crt'), serving.certPem, { mode: 0o640 });
    writeFileSync(path.join(dir, 'apiserver.key'), serving.keyPem, { mode: 0o640 });
  }
  // The service-account signer: another tiny CA, its certificate as the key file, its key as the signing key.
  const signer = issueCert({ commonName: 'envtest-environment', ca: true });
  writeFileSync(path.join(dir, 'sa-signer.crt'), signer.certPem, { mode: 0o640 });
  writeFileSync(path.join(dir, 'sa-signer.key'), signer.keyPem, { mode: 0o640 });
  // CertAuthn: the client CA file, and the admin user envtest provisions.
  const clientCa = issueCert({ commonName: 'envtest-environment', ca: true });
  writeFileSync(path.join(dir, 'client-cert-auth-ca.crt'), clientCa.certPem, { mode: 0o600 });
  const admin = issueCert({ commonName: 'envtest-admin', organizations: ['system:masters'], extKeyUsage: ['clientAuth'] }, clientCa);
  return { dir, servingCa, clientCa, admin };
}

/** envtest's arguments to kube-apiserver 1.24 and later (no --insecure-port in its --help), as it renders them. */
function envtestArgs(dir: string, port: number, etcdUrl: string): string[] {
  return [
    '--allow-privileged=true',
    '--authorization-mode=RBAC',
    '--bind-address=127.0.0.1',
    `--cert-dir=${dir}`,
    `--client-ca-file=${path.join(dir, 'client-cert-auth-ca.crt')}`,
    '--disable-admission-plugins=ServiceAccount',
    `--etcd-servers=${etcdUrl}`,
    `--secure-port=${port}`,
    `--service-account-issuer=https://127.0.0.1:${port}/`,
    `--service-account-key-file=${path.join(dir, 'sa-signer.crt')}`,
    `--service-account-signing-key-file=${path.join(dir, 'sa-signer.key')}`,
    '--service-cluster-ip-range=10.0.0.0/24',
  ];
}

interface Reply { status: number; body: string; peerCert?: X509Certificate }

function get(port: number, urlPath: string, opts: { ca?: string; client?: Issued }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    let peerCert: X509Certificate | undefined;
    const req = https.get({
      host: '127.0.0.1', port, path: urlPath, servername: 'localhost', agent: false,
      ca: opts.ca, rejectUnauthorized: opts.ca !== undefined, cert: opts.client?.certPem, key: opts.client?.keyPem, timeout: 5_000,
    }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => resolve({ status: res.statusCode ?? 0, body, peerCert }));
    });
    req.on('socket', (s) => s.once('secureConnect', () => { peerCert = (s as TLSSocket).getPeerX509Certificate(); }));
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/** A request over plain HTTP without credentials, as envtest up to v0.8 makes them (its rest.Config has only a Host). */
function plain(port: number, method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({
      host: '127.0.0.1', port, path: urlPath, method, agent: false, timeout: 5_000,
      headers: data === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => { text += c; }).on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(data);
  });
}

interface Started { child: ChildProcess; stderr: () => string; stop(): Promise<void> }

/** Starts `command args` in `cwd` and waits, as envtest does, for GET /healthz to answer 200 over HTTPS (30 s at most). */
function startAndWaitHealthy(command: string, args: string[], cwd: string, port: number, ca?: string): Promise<Started> {
  return startAndWait(command, args, cwd, async () => (await get(port, '/healthz', { ca }).catch(() => undefined))?.status === 200);
}

/** Starts `command args` in `cwd` and waits until `healthy()` (30 s at most). */
async function startAndWait(command: string, args: string[], cwd: string, healthy: () => Promise<boolean>): Promise<Started> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => { err = (err + c).slice(-8_000); });
  child.stdout!.resume();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const started: Started = {
    child, stderr: () => err,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(t);
    },
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited during start-up (${child.exitCode}):\n${err}`);
    if (await healthy()) return started;
    if (Date.now() > deadline) {
      await started.stop();
      throw new Error(`not healthy in 30 s:\n${err}`);
    }
    await new Promise((res) => setTimeout(res, 100));
  }
}

describe('envtest\'s kube-apiserver command line', function () {
  this.timeout(120_000);
  let etcd: TestEtcd;
  const cleanup: (() => Promise<void> | void)[] = [];
  // A fresh etcd for each start, as envtest starts its own beside each kube-apiserver.
  beforeEach(async () => { etcd = await startTestEtcd(); });
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
    await etcd.stop();
  });

  it('starts with exactly envtest\'s arguments, serves its pair from --cert-dir and a client with its admin certificate', async () => {
    const env = envtestCertDir();
    cleanup.push(() => rmSync(env.dir, { recursive: true, force: true }));
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'orch-envtest-cwd-'));
    cleanup.push(() => rmSync(cwd, { recursive: true, force: true }));
    const port = await freeLoopbackPort();
    // Nothing but envtest's own arguments; the server runs in the directory envtest runs it in.
    const server = await startAndWaitHealthy(process.execPath, [MAIN_JS, ...envtestArgs(env.dir, port, etcd.endpoint)], cwd, port, env.servingCa.certPem);
    cleanup.push(() => server.stop());

    // The serving certificate is the one envtest wrote into --cert-dir (verified with its CA above).
    const health = await get(port, '/healthz', { ca: env.servingCa.certPem });
    expect(health.peerCert?.fingerprint256).to.equal(new X509Certificate(readFileSync(path.join(env.dir, 'apiserver.crt'))).fingerprint256);
    // envtest's admin (system:masters, from its own client CA) may do anything; anonymous may not.
    const namespaces = await get(port, '/api/v1/namespaces', { ca: env.servingCa.certPem, client: env.admin });
    expect(namespaces.status, namespaces.body).to.equal(200);
    expect(JSON.parse(namespaces.body).items.map((n: { metadata: { name: string } }) => n.metadata.name)).to.include('default');
    expect((await get(port, '/api/v1/namespaces', { ca: env.servingCa.certPem })).status).to.equal(403);
    // AddUser (envtest from v0.9): a certificate of its client CA for a user of the test's own, whom RBAC decides on.
    const alice = issueCert({ commonName: 'alice', organizations: ['devs'], extKeyUsage: ['clientAuth'] }, env.clientCa);
    const refused = await get(port, '/api/v1/namespaces/default/configmaps', { ca: env.servingCa.certPem, client: alice });
    expect(refused.status, refused.body).to.equal(403);
    expect(JSON.parse(refused.body).message).to.contain('User "alice" cannot list resource "configmaps"');
  });

  it('issues the serving pair into --cert-dir when envtest\'s directory has none, as kube-apiserver does', async () => {
    const env = envtestCertDir(false);
    cleanup.push(() => rmSync(env.dir, { recursive: true, force: true }));
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'orch-envtest-cwd-'));
    cleanup.push(() => rmSync(cwd, { recursive: true, force: true }));
    const port = await freeLoopbackPort();
    const server = await startAndWaitHealthy(process.execPath, [MAIN_JS, ...envtestArgs(env.dir, port, etcd.endpoint)], cwd, port);
    cleanup.push(() => server.stop());
    expect(existsSync(path.join(env.dir, 'apiserver.crt'))).to.equal(true);
    expect(existsSync(path.join(env.dir, 'apiserver.key'))).to.equal(true);
    const health = await get(port, '/healthz', {});
    expect(health.peerCert?.fingerprint256).to.equal(new X509Certificate(readFileSync(path.join(env.dir, 'apiserver.crt'))).fingerprint256);
    expect((await get(port, '/api/v1/namespaces', { client: env.admin })).status).to.equal(200);
  });

  describe('deploy/envtest/kube-apiserver, the launcher in KUBEBUILDER_ASSETS', () => {
    it('answers envtest\'s --help flag probe (no --insecure-port: a 1.24+ server) and --version', () => {
      const help = spawnSync(LAUNCHER, ['--help'], { encoding: 'utf8' });
      expect(help.status, help.stderr).to.equal(0);
      expect(help.stdout).to.contain('Secure serving flags:');
      expect(help.stdout).to.contain('--cert-dir');
      expect(help.stdout).not.to.contain('--insecure-port');
      const version = spawnSync(LAUNCHER, ['--version'], { encoding: 'utf8' });
      expect(version.stdout.trim()).to.match(/^Kubernetes v1\.32\.\d+/);
    });

    it('starts the server with envtest\'s arguments, the kubernetes flavor, and its data under --cert-dir', async () => {
      const env = envtestCertDir();
      cleanup.push(() => rmSync(env.dir, { recursive: true, force: true }));
      const cwd = mkdtempSync(path.join(os.tmpdir(), 'orch-envtest-cwd-'));
      cleanup.push(() => rmSync(cwd, { recursive: true, force: true }));
      const port = await freeLoopbackPort();
      const server = await startAndWaitHealthy(LAUNCHER, envtestArgs(env.dir, port, etcd.endpoint), cwd, port, env.servingCa.certPem);
      cleanup.push(() => server.stop());
      const rbac = await get(port, '/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin', { ca: env.servingCa.certPem, client: env.admin });
      expect(rbac.status, rbac.body).to.equal(200);
      const ns = await get(port, '/api/v1/namespaces/kube-system', { ca: env.servingCa.certPem, client: env.admin });
      expect(ns.status, ns.body).to.equal(200);
      // Nothing written where the tests run; the server's own files are under --cert-dir.
      expect(existsSync(path.join(cwd, '.data'))).to.equal(false);
      expect(existsSync(path.join(env.dir, 'orch-apiserver-data', 'pki'))).to.equal(true);
    });
  });

  describe('envtest up to v0.8 (controller-runtime 0.8.3): the insecure port of releases up to 1.19', () => {
    /** What pkg/internal/testing/integration of controller-runtime 0.8.3 writes and passes (its APIServerDefaultArgs, in order). */
    function envtestV08(dir: string, insecurePort: number, securePort: number, etcdUrl: string): string[] {
      return [
        '--advertise-address=127.0.0.1',
        `--etcd-servers=${etcdUrl}`,
        `--cert-dir=${dir}`,
        `--insecure-port=${insecurePort}`,
        '--insecure-bind-address=127.0.0.1',
        `--secure-port=${securePort}`,
        '--disable-admission-plugins=ServiceAccount',
        '--service-cluster-ip-range=10.0.0.0/24',
        '--allow-privileged=true',
      ];
    }

    it('serves envtest\'s health check and credential-less clients on --insecure-port, CRDs installed as envtest installs them', async () => {
      // populateAPIServerCerts: only the serving pair, from a tiny CA of its own.
      const dir = mkdtempSync(path.join(os.tmpdir(), 'k8s_test_framework_'));
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      const servingCa = issueCert({ commonName: 'envtest-environment', ca: true });
      const serving = issueCert({ commonName: 'localhost', extKeyUsage: ['serverAuth'], altNames: ['localhost', '127.0.0.1'] }, servingCa);
      writeFileSync(path.join(dir, 'apiserver.crt'), serving.certPem, { mode: 0o640 });
      writeFileSync(path.join(dir, 'apiserver.key'), serving.keyPem, { mode: 0o640 });
      const cwd = mkdtempSync(path.join(os.tmpdir(), 'orch-envtest-cwd-'));
      cleanup.push(() => rmSync(cwd, { recursive: true, force: true }));
      const [insecurePort, securePort] = [await freeLoopbackPort(), await freeLoopbackPort()];

      // envtest polls http://127.0.0.1:<insecure port>/healthz every 100 ms until it answers 200.
      const server = await startAndWait(LAUNCHER, envtestV08(dir, insecurePort, securePort, etcd.endpoint), cwd,
        async () => (await plain(insecurePort, 'GET', '/healthz').catch(() => undefined))?.status === 200);
      cleanup.push(() => server.stop());

      // Its clients carry no credential: every request there is the insecure superuser's.
      const review = await plain(insecurePort, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
      expect(review.status, review.body).to.equal(201);
      expect(JSON.parse(review.body).status.userInfo).to.deep.include({ username: 'system:unsecured', groups: ['system:masters', 'system:authenticated'] });

      // InstallCRDs: create, then poll discovery until the group-version lists the resource.
      const crd = {
        apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
        spec: {
          group: 'example.com', scope: 'Namespaced', names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
        },
      };
      const created = await plain(insecurePort, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
      expect(created.status, created.body).to.equal(201);
      for (;;) {
        const discovery = await plain(insecurePort, 'GET', '/apis/example.com/v1');
        if (discovery.status === 200 && JSON.parse(discovery.body).resources.some((r: { name: string }) => r.name === 'widgets')) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } };
      expect((await plain(insecurePort, 'POST', '/apis/example.com/v1/namespaces/default/widgets', widget)).status).to.equal(201);
      expect(JSON.parse((await plain(insecurePort, 'GET', '/apis/example.com/v1/namespaces/default/widgets/w1')).body).spec).to.deep.equal({ size: 3 });
      const bad = await plain(insecurePort, 'POST', '/apis/example.com/v1/namespaces/default/widgets', { ...widget, metadata: { name: 'w2' }, spec: { size: 'three' } });
      expect(bad.status, bad.body).to.equal(422);

      // The secure port serves envtest's pair from --cert-dir, and there a request without credentials stays anonymous.
      const anonymous = await get(securePort, '/api/v1/namespaces', { ca: servingCa.certPem });
      expect(anonymous.status).to.equal(403);
      expect(anonymous.peerCert?.fingerprint256).to.equal(serving.cert.fingerprint256);

      // envtest's Stop: SIGTERM, then it waits for the process to exit.
      await server.stop();
      expect(server.child.exitCode).to.equal(0);
    });

    it('refuses an --insecure-port bound off loopback, with one line', () => {
      const r = spawnSync(LAUNCHER, ['--insecure-port=8080', '--insecure-bind-address=0.0.0.0'], { encoding: 'utf8' });
      expect(r.status).to.not.equal(0);
      expect(r.stderr).to.contain('invalid value "0.0.0.0" for --insecure-http-bind-address: must be a loopback IP address (127.0.0.0/8 or ::1)');
    });
  });
});
