/**
 * --runtime-config and --feature-gates against the real server: a group switched off is gone
 * from discovery, OpenAPI and its paths, its controllers do not run, and its objects come back
 * when it is switched on again on the same etcd; bad keys and gates stop the start with one line.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startTestServer, TestServer } from '../helpers/server-harness';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { startFailureLine, startServerProcess } from '../helpers/server-process';
import { captureLog } from '../helpers/log-capture';
import { makeCsrPem } from '../helpers/csr-request';

const KUBECTL_DISCOVERY_ACCEPT = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
const CSRS = '/apis/certificates.orch.io/v1/certificatesigningrequests';
const CSR_CONTROLLERS = ['csrsigning', 'csrapproving', 'csrcleaner'];

describe('--runtime-config', function () {
  this.timeout(120_000);
  let etcd: TestEtcd;
  let t: TestServer | undefined;
  before(async () => { etcd = await startTestEtcd(); });
  afterEach(async () => { await t?.stop(); t = undefined; });
  after(async () => { await etcd.stop(); });

  it('switches a group-version off (discovery, OpenAPI, 404, controllers) and on again with its objects back', async () => {
    t = await startTestServer([], { etcd });
    const csr = { apiVersion: 'certificates.orch.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'kept' },
      spec: { request: Buffer.from(makeCsrPem()).toString('base64'), signerName: 'example.com/x', usages: ['digital signature'] } };
    const created = await t.post(CSRS, csr);
    expect(created.status, created.text).to.equal(201);
    await t.stop();

    t = await startTestServer(['--runtime-config=certificates.orch.io/v1=false'], { etcd });
    const groups = await t.get('/apis');
    expect(groups.body.groups.map((g: any) => g.name)).not.to.include('certificates.orch.io');
    expect(groups.body.groups.map((g: any) => g.name)).to.include('coordination.orch.io');
    const aggregated = await t.get('/apis', { headers: { accept: KUBECTL_DISCOVERY_ACCEPT } });
    expect(aggregated.body.items.map((g: any) => g.metadata.name)).not.to.include('certificates.orch.io');
    expect((await t.get('/apis/certificates.orch.io/v1')).status).to.equal(404);
    expect((await t.get(CSRS)).status).to.equal(404);
    expect((await t.post(CSRS, csr)).status).to.equal(404);
    const v2 = await t.get('/openapi/v2');
    expect(Object.keys(v2.body.paths).some((p) => p.includes('certificates.orch.io'))).to.equal(false);
    expect(Object.keys(v2.body.paths).some((p) => p.includes('coordination.orch.io'))).to.equal(true);
    const v3 = await t.get('/openapi/v3');
    expect(Object.keys(v3.body.paths)).not.to.include('apis/certificates.orch.io/v1');
    expect(t.server.controllers.runningNames()).not.to.include.members(CSR_CONTROLLERS);
    expect(t.server.controllers.unavailableNames()).to.include.members(CSR_CONTROLLERS);
    await t.stop();

    t = await startTestServer(['--runtime-config=certificates.orch.io/v1=true'], { etcd });
    expect((await t.get('/apis/certificates.orch.io/v1')).status).to.equal(200);
    expect(t.server.controllers.runningNames()).to.include.members(CSR_CONTROLLERS);
    expect((await t.get(`${CSRS}/kept`)).status).to.equal(200);
  });

  it('switches a single resource off and leaves the rest of its version', async () => {
    t = await startTestServer(['--runtime-config=storage.orch.io/v1/csinodes=false'], { etcd });
    const version = await t.get('/apis/storage.orch.io/v1');
    const names = version.body.resources.map((r: any) => r.name);
    expect(names).not.to.include('csinodes');
    expect(names).to.include('csidrivers');
    expect((await t.get('/apis/storage.orch.io/v1/csinodes')).status).to.equal(404);
    expect((await t.get('/apis/storage.orch.io/v1/csidrivers')).status).to.equal(200);
  });

  it('leaves admissionregistration v1beta1 off by default, as kube-apiserver 1.32; its key or api/beta=true switches it on', async () => {
    t = await startTestServer([], { etcd });
    let group = await t.get('/apis/admissionregistration.orch.io');
    expect(group.body.versions.map((v: any) => v.version)).to.deep.equal(['v1']);
    expect((await t.get('/apis/admissionregistration.orch.io/v1beta1/validatingwebhookconfigurations')).status).to.equal(404);
    expect((await t.get('/apis/admissionregistration.orch.io/v1/validatingwebhookconfigurations')).status).to.equal(200);
    await t.stop();

    t = await startTestServer(['--runtime-config=admissionregistration.orch.io/v1beta1=true'], { etcd });
    group = await t.get('/apis/admissionregistration.orch.io');
    expect(group.body.versions.map((v: any) => v.version)).to.deep.equal(['v1', 'v1beta1']);
    expect((await t.get('/apis/admissionregistration.orch.io/v1beta1/validatingwebhookconfigurations')).status).to.equal(200);
    await t.stop();

    t = await startTestServer(['--runtime-config=api/beta=true'], { etcd });
    group = await t.get('/apis/admissionregistration.orch.io');
    expect(group.body.versions.map((v: any) => v.version)).to.deep.equal(['v1', 'v1beta1']);
  });

  it('stops the start with one line on an unknown key or a switch the server cannot run with', async () => {
    expect(await startFailureLine(['--runtime-config=nosuchgroup/v1=false'])).to.equal('orch-apiserver: unknown api groups nosuchgroup/v1');
    expect(await startFailureLine(['--runtime-config=certificates.orch.io/v2=true']))
      .to.equal('orch-apiserver: group version certificates.orch.io/v2 that has not been registered');
    expect(await startFailureLine(['--runtime-config=coordination.orch.io/v1=false']))
      .to.equal('orch-apiserver: --leader-elect needs leases.coordination.orch.io/v1, which --runtime-config disables; set --leader-elect=false');
  });
});

describe('--feature-gates', function () {
  this.timeout(120_000);

  it('stops the start on an unknown gate and on a locked gate set to the other value, in kube words', async () => {
    expect(await startFailureLine(['--feature-gates=NoSuchGate=true'])).to.equal('orch-apiserver: unrecognized feature gate: NoSuchGate');
    expect(await startFailureLine(['--feature-gates=WatchBookmark=false']))
      .to.equal('orch-apiserver: cannot set feature gate WatchBookmark to false, feature is locked to true');
  });

  it('logs a warning when a GA gate is set', async () => {
    const log = captureLog();
    let t: TestServer | undefined;
    try {
      t = await startTestServer(['--feature-gates=WatchBookmark=true', '--log-level=warn']);
    } finally {
      log.stop();
      await t?.stop();
    }
    expect(log.lines.join('\n')).to.include('Setting GA feature gate WatchBookmark=true. It will be removed in a future release.');
  });

  it('--help lists each alpha and beta gate with its stage and default', () => {
    const help = execFileSync(process.execPath, [path.resolve(__dirname, '../../lib/server/main.js'), '--help'], { encoding: 'utf8' });
    expect(help).to.match(/--feature-gates mapStringBool +A set of key=value pairs that describe feature gates for alpha\/experimental features\. Options are:\n +APIResponseCompression=true\|false \(BETA - default=true\)/);
    expect(help).to.match(/\n +AllAlpha=true\|false \(ALPHA - default=false\)\n/);
    expect(help).to.match(/\n +AnyVolumeDataSource=true\|false \(BETA - default=true\)\n/);
  });
});
