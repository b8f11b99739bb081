/**
 * The APIService availability controller through HTTP on a real etcd, against an extension API
 * server the test serves (TLS with its own CA, identity only from X-Remote-* with the front-proxy
 * client certificate): a remote APIService is ServiceNotFound until its Service exists, Passed once
 * discovery answers, FailedDiscoveryCheck while the backend is stopped or failing and Passed again
 * when it is back; ClusterIP services are checked for their port and endpoints; the condition's
 * time moves only with its status, nothing is written when nothing changes; and the
 * aggregator_unavailable_apiservice metrics follow; the Table (kubectl get apiservices) prints
 * AVAILABLE as True or False (<reason>); the checks reuse pooled connections. All of it with the
 * extension server offering h2 (the checks go as HTTP/2 streams) and speaking HTTP/1.1 only.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, TestServer, eventually } from '../helpers/server-harness';
import { startExtensionServer, ExtensionServer } from '../helpers/extension-apiserver';
import { createTestCa, issueTestCert } from '../helpers/test-ca';
import { parseExposition } from '../helpers/prom-text';
import { TABLE } from '../helpers/kind-checks';

type Obj = Record<string, any>;

const APIS = '/apis/apiregistration.orch.io/v1/apiservices';
const GROUP = 'widgets.example.test';
const NAME = `v1alpha1.${GROUP}`;

const BACKENDS: [string, boolean][] = [['HTTP/2', true], ['HTTP/1.1', false]];

for (const [backendName, backendH2] of BACKENDS) {
  describe(`aggregation: APIService availability, the backend over ${backendName}`, function () {
    this.timeout(120_000);
    let t: TestServer;
    let ext: ExtensionServer;
    let dir: string;
    const proxyCa = createTestCa('front-proxy-ca');
    const proxyClient = issueTestCert(proxyCa, { commonName: 'front-proxy-client' });

    const condition = async (name: string) => {
      const r = await t.get(`${APIS}/${name}`);
      expect(r.status, r.text).to.equal(200);
      return { obj: r.body as Obj, cond: (r.body.status?.conditions ?? []).find((c: Obj) => c.type === 'Available') as Obj | undefined };
    };
    const until = (name: string, reason: string, ms = 20_000) =>
      eventually(async () => { const c = await condition(name); return c.cond?.reason === reason && c; }, ms, 50);
    /** The AVAILABLE cell `kubectl get apiservices` prints for `name`. */
    const availableCell = async (name: string) => {
      const r = await t.get(`${APIS}/${name}`, TABLE);
      expect(r.status, r.text).to.equal(200);
      return r.body.rows[0].cells[2] as string;
    };
    const metrics = async () => {
      const r = await t.get('/metrics', { headers: { accept: 'text/plain' } });
      expect(r.status, r.text).to.equal(200);
      return parseExposition(r.text);
    };

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'agg-avail-'));
      writeFileSync(path.join(dir, 'proxy-ca.crt'), proxyCa.certPem);
      writeFileSync(path.join(dir, 'proxy-client.crt'), proxyClient.certPem);
      writeFileSync(path.join(dir, 'proxy-client.key'), proxyClient.keyPem);
      ext = await startExtensionServer({
        group: GROUP, version: 'v1alpha1', service: 'widgets-api', namespace: 'default',
        frontProxyCaPem: proxyCa.certPem, allowedNames: ['front-proxy-client'], http2: backendH2,
      });
      t = await startTestServer([
        `--requestheader-client-ca-file=${path.join(dir, 'proxy-ca.crt')}`, '--requestheader-allowed-names=front-proxy-client',
        '--requestheader-username-headers=X-Remote-User', '--requestheader-group-headers=X-Remote-Group',
        '--requestheader-extra-headers-prefix=X-Remote-Extra-',
        `--proxy-client-cert-file=${path.join(dir, 'proxy-client.crt')}`, `--proxy-client-key-file=${path.join(dir, 'proxy-client.key')}`,
      ]);
      // The informer resync (30 s in kube-aggregator) shortened for the test.
      t.server.aggregation!.availability.setResyncPeriod(250);
    });
    after(async () => {
      await t?.stop();
      await ext?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('ServiceNotFound until the Service exists, then Passed with the discovery GET made as system:kube-aggregator with the front-proxy certificate', async () => {
      const created = await t.post(APIS, {
        apiVersion: 'apiregistration.orch.io/v1', kind: 'APIService', metadata: { name: NAME },
        spec: {
          group: GROUP, version: 'v1alpha1', service: { namespace: 'default', name: 'widgets-api', port: ext.port },
          caBundle: ext.caBundle, groupPriorityMinimum: 2000, versionPriority: 10,
        },
      });
      expect(created.status, created.text).to.equal(201);
      const missing = await until(NAME, 'ServiceNotFound');
      expect(missing.cond).to.deep.include({ status: 'False', message: 'service/widgets-api in "default" is not present' });
      expect(await availableCell(NAME)).to.equal('False (ServiceNotFound)');

      const svc = await t.post('/api/v1/namespaces/default/services', {
        apiVersion: 'v1', kind: 'Service', metadata: { name: 'widgets-api' },
        spec: { type: 'ExternalName', externalName: '127.0.0.1' },
      });
      expect(svc.status, svc.text).to.equal(201);
      const passed = await until(NAME, 'Passed');
      expect(passed.cond).to.deep.include({ status: 'True', message: 'all checks passed' });
      expect(await availableCell(NAME)).to.equal('True');
      const checks = ext.callsTo(`/apis/${GROUP}/v1alpha1`);
      expect(checks.length).to.be.greaterThan(0);
      expect(checks[0]).to.deep.include({ method: 'GET', clientCn: 'front-proxy-client', user: 'system:kube-aggregator' });
      expect(checks[0].groups).to.include('system:masters');
    });

    it('keeps the condition and writes nothing while nothing changes; the checks reuse their connections', async () => {
      const a = await until(NAME, 'Passed');
      const checks = ext.callsTo(`/apis/${GROUP}/v1alpha1`).length;
      await new Promise((r) => setTimeout(r, 1200));
      const b = await condition(NAME);
      expect(b.cond?.lastTransitionTime).to.equal(a.cond?.lastTransitionTime);
      expect(b.obj.metadata.resourceVersion).to.equal(a.obj.metadata.resourceVersion);
      // Several rounds of five checks at once, on kept connections: over HTTP/1.1 one per check
      // in flight, each used again and again; over HTTP/2 the same one all along.
      const all = ext.callsTo(`/apis/${GROUP}/v1alpha1`);
      const later = all.slice(checks);
      expect(later.length).to.be.greaterThan(10);
      if (backendH2) expect(new Set(all.map((c) => c.remotePort)).size).to.equal(1);
      else expect(new Set(later.map((c) => c.remotePort)).size).to.be.at.most(later.length / 2);
      expect(new Set(later.map((c) => c.httpVersion))).to.deep.equal(new Set([backendH2 ? '2.0' : '1.1']));
    });

    it('FailedDiscoveryCheck while the backend is stopped, Passed again once it is back', async () => {
      const before = await until(NAME, 'Passed');
      await ext.stop();
      const failed = await until(NAME, 'FailedDiscoveryCheck');
      const url = `https://127.0.0.1:${ext.port}/apis/${GROUP}/v1alpha1`;
      expect(failed.cond).to.deep.include({
        status: 'False',
        message: `failing or missing response from ${url}: Get "${url}": dial tcp 127.0.0.1:${ext.port}: connect: connection refused`,
      });
      expect(failed.cond!.lastTransitionTime >= before.cond!.lastTransitionTime).to.equal(true);
      expect(await availableCell(NAME)).to.equal('False (FailedDiscoveryCheck)');
      let m = await metrics();
      expect(m.value('aggregator_unavailable_apiservice', { name: NAME })).to.equal(1);
      expect(m.value('aggregator_unavailable_apiservice_total', { name: NAME, reason: 'FailedDiscoveryCheck' })).to.equal(1);

      await ext.start();
      await until(NAME, 'Passed');
      m = await metrics();
      expect(m.value('aggregator_unavailable_apiservice', { name: NAME })).to.equal(0);
      expect(m.value('aggregator_unavailable_apiservice', { name: 'v1.apps' })).to.equal(0);
    });

    it('FailedDiscoveryCheck with the status when discovery answers an error, Passed when it recovers', async () => {
      ext.failDiscovery = 500;
      const failed = await until(NAME, 'FailedDiscoveryCheck');
      const url = `https://127.0.0.1:${ext.port}/apis/${GROUP}/v1alpha1`;
      expect(failed.cond!.message).to.equal(`failing or missing response from ${url}: bad status from ${url}: 500`);
      ext.failDiscovery = 403;
      await eventually(async () => (await condition(NAME)).cond?.message?.endsWith(': 403'), 20_000, 50);
      ext.failDiscovery = undefined;
      await until(NAME, 'Passed');
      const m = await metrics();
      expect(m.value('aggregator_unavailable_apiservice_total', { name: NAME, reason: 'FailedDiscoveryCheck' })).to.equal(2);
    });

    it('a ClusterIP Service: ServicePortError, EndpointsNotFound, MissingEndpoints, following the Service and Endpoints', async () => {
      const name = 'v1.gadgets.example.test';
      const created = await t.post(APIS, {
        apiVersion: 'apiregistration.orch.io/v1', kind: 'APIService', metadata: { name },
        spec: { group: 'gadgets.example.test', version: 'v1', service: { namespace: 'default', name: 'gadgets', port: 443 }, insecureSkipTLSVerify: true, groupPriorityMinimum: 2000, versionPriority: 10 },
      });
      expect(created.status, created.text).to.equal(201);
      await until(name, 'ServiceNotFound');
      const svc = await t.post('/api/v1/namespaces/default/services', {
        apiVersion: 'v1', kind: 'Service', metadata: { name: 'gadgets' },
        spec: { ports: [{ name: 'https', port: 8443, targetPort: 8443 }] },
      });
      expect(svc.status, svc.text).to.equal(201);
      expect((await until(name, 'ServicePortError')).cond!.message).to.equal('service/gadgets in "default" is not listening on port 443');
      const cur = (await t.get('/api/v1/namespaces/default/services/gadgets')).body;
      const put = await t.put('/api/v1/namespaces/default/services/gadgets', { ...cur, spec: { ...cur.spec, ports: [{ name: 'https', port: 443, targetPort: 8443, protocol: 'TCP' }] } });
      expect(put.status, put.text).to.equal(200);
      expect((await until(name, 'EndpointsNotFound')).cond!.message).to.equal('cannot find endpoints for service/gadgets in "default"');
      const ep = await t.post('/api/v1/namespaces/default/endpoints', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'gadgets' }, subsets: [] });
      expect(ep.status, ep.text).to.equal(201);
      const missing = await until(name, 'MissingEndpoints');
      expect(missing.cond).to.deep.include({ status: 'False', message: 'endpoints for service/gadgets in "default" have no addresses with port name "https"' });
      const m = await metrics();
      expect(m.value('aggregator_unavailable_apiservice', { name })).to.equal(1);
      // Deleted: its gauge goes.
      expect((await t.del(`${APIS}/${name}`)).status).to.equal(200);
      await eventually(async () => !(await metrics()).has('aggregator_unavailable_apiservice', { name }), 10_000, 50);
    });
  });
}
