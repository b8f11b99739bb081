/**
 * Discovery of groups served by extension API servers (issue 43, kube-aggregator's apisHandler,
 * apiGroupHandler and discovery manager): `/apis` lists every APIService group by priority with
 * its versions in kube's order (unavailable ones too), `/apis/<group>` is answered from the
 * APIServices, and the aggregated document carries the extension server's resources, fetched with
 * the front-proxy identity, marked Stale while the APIService is unavailable. kubectl's
 * `api-resources` then lists the extension server's kind.
 *
 * Until the availability controller lands, the tests set each APIService's Available condition
 * themselves with a /status write.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { ExtensionServer, startExtensionServer } from '../helpers/extension-apiserver';
import { issueCert } from '../helpers/x509-certs';
import { kubectlFor, parseTable } from '../helpers/kubectl';

const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const AGGREGATED_V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
const GROUP = 'widgets.example.test';
const VERSION = 'v1alpha1';

describe('aggregation layer: discovery of extension API servers', function () {
  this.timeout(120_000);
  let t: TestServer;
  let ext: ExtensionServer;
  let dir: string;
  let apiServices: string;

  const apiService = (group: string, version: string, service: { namespace: string; name: string; port: number }, priorities: [number, number], caBundle: string) => ({
    metadata: { name: `${version}.${group}` },
    spec: { group, version, service, caBundle, groupPriorityMinimum: priorities[0], versionPriority: priorities[1] },
  });

  /** Sets the Available condition (the availability controller's work, until it lands). */
  async function setAvailable(name: string, status: 'True' | 'False', reason = status === 'True' ? 'Passed' : 'FailedDiscoveryCheck'): Promise<void> {
    // Retried on a conflict: the availability controller, once there, writes the same condition.
    await eventually(async () => {
      const current = await t.get(`${apiServices}/${name}`);
      expect(current.status, current.text).to.equal(200);
      const obj = current.body;
      obj.status = { conditions: [{ type: 'Available', status, reason, message: status === 'True' ? 'all checks passed' : 'failing', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] };
      const r = await t.put(`${apiServices}/${name}/status`, obj);
      if (r.status === 409) return undefined;
      expect(r.status, r.text).to.equal(200);
      return true;
    });
  }

  async function aggregated(accept = AGGREGATED_V2) {
    const r = await t.get('/apis', { headers: { Accept: accept } });
    expect(r.status, r.text).to.equal(200);
    return r;
  }

  const versionOf = (doc: any, group: string, version: string) =>
    doc.items.find((i: any) => i.metadata.name === group)?.versions.find((v: any) => v.version === version);

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'agg-discovery-'));
    const frontProxyCa = issueCert({ commonName: 'front-proxy-ca', ca: true });
    const client = issueCert({ commonName: 'front-proxy-client', extKeyUsage: ['clientAuth'] }, frontProxyCa);
    writeFileSync(path.join(dir, 'proxy.crt'), client.certPem);
    writeFileSync(path.join(dir, 'proxy.key'), client.keyPem);
    ext = await startExtensionServer({ group: GROUP, version: VERSION, service: 'api', namespace: 'widgets', frontProxyCaPem: frontProxyCa.certPem, allowedNames: ['front-proxy-client'] });
    t = await startTestServer([`--proxy-client-cert-file=${path.join(dir, 'proxy.crt')}`, `--proxy-client-key-file=${path.join(dir, 'proxy.key')}`]);
    apiServices = `/apis/${t.server.naming.group('apiregistration')}/v1/apiservices`;
    expect((await t.post('/api/v1/namespaces', { metadata: { name: 'widgets' } })).status).to.equal(201);
    // Nothing routes cluster IPs here: an ExternalName service to the extension server's address.
    const svc = await t.post('/api/v1/namespaces/widgets/services', {
      metadata: { name: 'api' }, spec: { type: 'ExternalName', externalName: '127.0.0.1', ports: [{ port: ext.port }] },
    });
    expect(svc.status, svc.text).to.equal(201);
    const created = await t.post(apiServices, apiService(GROUP, VERSION, { namespace: 'widgets', name: 'api', port: ext.port }, [2000, 10], ext.caBundle));
    expect(created.status, created.text).to.equal(201);
    await setAvailable(`${VERSION}.${GROUP}`, 'True');
    // A group whose service does not exist: three versions, to check the order; never available.
    for (const [version, vp] of [['v1', 5], ['v2alpha1', 5], ['v1beta1', 100]] as const) {
      const r = await t.post(apiServices, apiService('gadgets.example.test', version, { namespace: 'widgets', name: 'missing', port: 443 }, [17900, vp], ext.caBundle));
      expect(r.status, r.text).to.equal(201);
    }
  });

  after(async () => {
    await t?.stop();
    await ext?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('/apis lists the APIService groups by group priority, their versions by versionPriority then version order', async () => {
    const r = await eventually(async () => {
      const x = await t.get('/apis');
      return x.body.groups?.find((g: any) => g.name === 'gadgets.example.test')?.versions.length === 3 ? x : undefined;
    });
    const names: string[] = r.body.groups.map((g: any) => g.name);
    // 17900 sits between apiregistration (18000) and apps (17800); 2000 after every built-in group.
    expect(names.indexOf('gadgets.example.test')).to.equal(names.indexOf(t.server.naming.group('apiregistration')) + 1);
    expect(names[names.indexOf('gadgets.example.test') + 1]).to.equal('apps');
    const builtinAfter = names.slice(names.indexOf(GROUP) + 1).filter((n) => !n.endsWith('.example.test'));
    expect(builtinAfter, 'only groups of lower priority follow').to.deep.equal([]);
    const gadgets = r.body.groups.find((g: any) => g.name === 'gadgets.example.test');
    expect(gadgets.versions.map((v: any) => v.version)).to.deep.equal(['v1beta1', 'v1', 'v2alpha1']);
    expect(gadgets.preferredVersion).to.deep.equal({ groupVersion: 'gadgets.example.test/v1beta1', version: 'v1beta1' });
    const widgets = r.body.groups.find((g: any) => g.name === GROUP);
    expect(widgets).to.deep.equal({ name: GROUP, versions: [{ groupVersion: `${GROUP}/${VERSION}`, version: VERSION }], preferredVersion: { groupVersion: `${GROUP}/${VERSION}`, version: VERSION } });
  });

  it('/apis/<group> is answered from the APIServices; an unknown group is 404', async () => {
    const r = await t.get(`/apis/${GROUP}`);
    expect(r.status, r.text).to.equal(200);
    expect(r.body).to.deep.equal({ kind: 'APIGroup', apiVersion: 'v1', name: GROUP, versions: [{ groupVersion: `${GROUP}/${VERSION}`, version: VERSION }], preferredVersion: { groupVersion: `${GROUP}/${VERSION}`, version: VERSION } });
    const g = await t.get('/apis/gadgets.example.test');
    expect(g.body.versions.map((v: any) => v.version)).to.deep.equal(['v1beta1', 'v1', 'v2alpha1']);
    expect((await t.get('/apis/nothing.example.test')).status).to.equal(404);
  });

  it('aggregated discovery (v2 and v2beta1) carries the extension server resources, fetched with the front-proxy identity', async () => {
    const r = await eventually(async () => {
      const x = await aggregated();
      return versionOf(x.body, GROUP, VERSION)?.resources ? x : undefined;
    });
    expect(r.headers['content-type']).to.equal(AGGREGATED_V2);
    const v = versionOf(r.body, GROUP, VERSION);
    expect(v.freshness).to.equal('Current');
    expect(v.resources).to.deep.equal([{
      resource: 'widgets', responseKind: { group: GROUP, version: VERSION, kind: 'Widget' }, scope: 'Namespaced', singularResource: 'widget',
      verbs: ['create', 'delete', 'get', 'list', 'watch'], shortNames: ['wd'],
    }]);
    const names: string[] = r.body.items.map((i: any) => i.metadata.name);
    expect(names.indexOf('gadgets.example.test')).to.equal(names.indexOf(t.server.naming.group('apiregistration')) + 1);
    const beta = await aggregated(AGGREGATED_V2BETA1);
    expect(beta.headers['content-type']).to.equal(AGGREGATED_V2BETA1);
    expect(versionOf(beta.body, GROUP, VERSION).resources[0].resource).to.equal('widgets');
    const call = ext.callsTo('/apis').find((c) => String(c.headers.accept).includes('as=APIGroupDiscoveryList'));
    expect(call, 'the backend was asked for aggregated discovery').to.exist;
    expect(call!.clientCn).to.equal('front-proxy-client');
    expect(call!.user).to.equal('system:kube-aggregator');
    expect(call!.groups).to.deep.equal(['system:masters']);
    expect(call!.headers.authorization).to.equal(undefined);
  });

  it('an APIService that is not available stays in the aggregated document as Stale, without resources', async () => {
    const r = await aggregated();
    const gadgets = r.body.items.find((i: any) => i.metadata.name === 'gadgets.example.test');
    expect(gadgets.versions).to.deep.equal([
      { version: 'v1beta1', freshness: 'Stale' }, { version: 'v1', freshness: 'Stale' }, { version: 'v2alpha1', freshness: 'Stale' },
    ]);
  });

  it('follows the Available condition: Stale while unavailable, Current again after, with a new ETag each time', async () => {
    const before = await aggregated();
    const etag = before.headers.etag;
    expect(etag).to.match(/^".+"$/);
    expect((await t.get('/apis', { headers: { Accept: AGGREGATED_V2, 'If-None-Match': String(etag) } })).status).to.equal(304);
    // The backend goes away (and its APIService is marked so, as the availability controller would).
    await ext.stop();
    await setAvailable(`${VERSION}.${GROUP}`, 'False');
    const stale = await eventually(async () => {
      const x = await aggregated();
      return versionOf(x.body, GROUP, VERSION)?.freshness === 'Stale' ? x : undefined;
    });
    expect(versionOf(stale.body, GROUP, VERSION)).to.deep.equal({ version: VERSION, freshness: 'Stale' });
    expect(stale.headers.etag).to.not.equal(etag);
    // The legacy list keeps it, as kube-aggregator's apisHandler does.
    expect((await t.get('/apis')).body.groups.map((g: any) => g.name)).to.include(GROUP);
    await ext.start();
    await setAvailable(`${VERSION}.${GROUP}`, 'True');
    const back = await eventually(async () => {
      const x = await aggregated();
      return versionOf(x.body, GROUP, VERSION)?.freshness === 'Current' ? x : undefined;
    });
    expect(versionOf(back.body, GROUP, VERSION).resources[0].resource).to.equal('widgets');
    expect(back.headers.etag).to.equal(etag);
  });

  it('a deleted APIService leaves /apis, /apis/<group> and the aggregated document', async () => {
    for (const v of ['v1', 'v2alpha1', 'v1beta1']) expect((await t.del(`${apiServices}/${v}.gadgets.example.test`)).status).to.equal(200);
    await eventually(async () => !(await t.get('/apis')).body.groups.some((g: any) => g.name === 'gadgets.example.test'));
    expect((await t.get('/apis/gadgets.example.test')).status).to.equal(404);
    await eventually(async () => !(await aggregated()).body.items.some((i: any) => i.metadata.name === 'gadgets.example.test'));
  });

  it('kubectl api-resources lists the extension server kind', async () => {
    const cache = mkdtempSync(path.join(dir, 'kubectl-'));
    const kubectl = kubectlFor(t.server.kubeconfigPath, cache);
    const r = await kubectl(['api-resources', `--api-group=${GROUP}`]);
    expect(r.code, r.stderr).to.equal(0);
    const table = parseTable(r.stdout);
    expect(table.rows).to.deep.equal([{ NAME: 'widgets', SHORTNAMES: 'wd', APIVERSION: `${GROUP}/${VERSION}`, NAMESPACED: 'true', KIND: 'Widget' }]);
  });
});
