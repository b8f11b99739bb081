/**
 * OpenAPI of extension API servers merged into the server's (issue 43, kube-aggregator's OpenAPI
 * v2 and v3 controllers): `/openapi/v2` carries the extension server's paths and definitions
 * beside the server's own, refetched with If-None-Match when the APIService changes and every
 * refresh interval, the last document kept while the backend is unavailable; `/openapi/v3` lists
 * the extension server's group-version with its URL and hash, and a request for that document is
 * forwarded to the backend as the caller (kube-aggregator's v3 proxy), never cached here. `kubectl
 * explain` then describes the extension server's kind.
 *
 * Until the availability controller lands, the tests set the APIService's Available condition
 * themselves with a /status write.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { ExtensionServer, startExtensionServer } from '../helpers/extension-apiserver';
import { kubectlFor } from '../helpers/kubectl';
import { refreshTimings } from '../../lib/aggregation/refresh';
import { decodeOpenApiV2Protobuf } from '../../lib/api/openapi/v2-protobuf';

const GROUP = 'widgets.example.test';
const VERSION = 'v1alpha1';
const NAME = `${VERSION}.${GROUP}`;
const WIDGET = 'test.example.widgets.v1alpha1.Widget';
const LIST_PATH = `/apis/${GROUP}/${VERSION}/namespaces/{namespace}/widgets`;
const V3_KEY = `apis/${GROUP}/${VERSION}`;

interface Setup { t: TestServer; ext: ExtensionServer; apiServices: string }

async function setUp(openApiV3 = true): Promise<Setup> {
  const ext = await startExtensionServer({ group: GROUP, version: VERSION, service: 'api', namespace: 'widgets', openApiV3 });
  const t = await startTestServer();
  const apiServices = `/apis/${t.server.naming.group('apiregistration')}/v1/apiservices`;
  expect((await t.post('/api/v1/namespaces', { metadata: { name: 'widgets' } })).status).to.equal(201);
  const svc = await t.post('/api/v1/namespaces/widgets/services', {
    metadata: { name: 'api' }, spec: { type: 'ExternalName', externalName: '127.0.0.1', ports: [{ port: ext.port }] },
  });
  expect(svc.status, svc.text).to.equal(201);
  const created = await t.post(apiServices, {
    metadata: { name: NAME },
    spec: { group: GROUP, version: VERSION, service: { namespace: 'widgets', name: 'api', port: ext.port }, caBundle: ext.caBundle, groupPriorityMinimum: 2000, versionPriority: 10 },
  });
  expect(created.status, created.text).to.equal(201);
  const s = { t, ext, apiServices };
  await setAvailable(s, 'True');
  return s;
}

/** Sets the Available condition (the availability controller's work, until it lands). */
async function setAvailable({ t, apiServices }: Setup, status: 'True' | 'False'): Promise<void> {
  // Retried on a conflict: the availability controller, once there, writes the same condition.
  await eventually(async () => {
    const obj = (await t.get(`${apiServices}/${NAME}`)).body;
    obj.status = { conditions: [{ type: 'Available', status, reason: status === 'True' ? 'Passed' : 'FailedDiscoveryCheck', message: 'set by the test', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] };
    const r = await t.put(`${apiServices}/${NAME}/status`, obj);
    if (r.status === 409) return undefined;
    expect(r.status, r.text).to.equal(200);
    return true;
  });
}

/** A change of the APIService (a label): what makes kube-aggregator fetch its documents again. */
async function touch({ t, apiServices }: Setup, label: string): Promise<void> {
  await eventually(async () => {
    const obj = (await t.get(`${apiServices}/${NAME}`)).body;
    obj.metadata.labels = { touched: label };
    const r = await t.put(`${apiServices}/${NAME}`, obj);
    if (r.status === 409) return undefined;
    expect(r.status, r.text).to.equal(200);
    return true;
  });
}

async function v2WithWidget(t: TestServer, operationId: string) {
  return eventually(async () => {
    const r = await t.get('/openapi/v2');
    return r.status === 200 && r.body.paths?.[LIST_PATH]?.get?.operationId === operationId ? r : undefined;
  });
}

describe('aggregation layer: OpenAPI of extension API servers', function () {
  this.timeout(120_000);
  let s: Setup;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'agg-openapi-'));
    s = await setUp();
  });
  after(async () => {
    await s?.t.stop();
    await s?.ext.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('/openapi/v2 carries the extension server paths and definitions beside the server own', async () => {
    const r = await v2WithWidget(s.t, 'listWidgets1');
    expect(r.body.definitions[WIDGET].properties.spec.properties.size).to.deep.equal({ type: 'integer', format: 'int32', description: 'How big.' });
    expect(r.body.definitions[`${WIDGET}List`]).to.exist;
    expect(r.body.paths['/api/v1/namespaces']).to.exist;
    expect(r.body.info.title).to.equal('Orch');
    const fetches = s.ext.callsTo('/openapi/v2');
    expect(fetches[0].headers['x-remote-user']).to.equal('system:aggregator');
  });

  it('is fetched again with If-None-Match when the APIService changes; a new document changes the ETag', async () => {
    const first = await v2WithWidget(s.t, 'listWidgets1');
    const calls = s.ext.callsTo('/openapi/v2').length;
    await touch(s, 'one');
    await eventually(async () => s.ext.callsTo('/openapi/v2').length > calls);
    const again = s.ext.callsTo('/openapi/v2').slice(calls)[0];
    expect(again.headers['if-none-match']).to.match(/^".+"$/);
    expect((await s.t.get('/openapi/v2')).headers.etag).to.equal(first.headers.etag);
    s.ext.openApiRevision++;
    await touch(s, 'two');
    const second = await v2WithWidget(s.t, 'listWidgets2');
    expect(second.headers.etag).to.not.equal(first.headers.etag);
    expect((await s.t.get('/openapi/v2', { headers: { 'If-None-Match': String(second.headers.etag) } })).status).to.equal(304);
  });

  it('the protobuf /openapi/v2 follows a new document of the backend, encoded before any request asks', async () => {
    const forms = s.t.server.openApiV2;
    const pb = { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' };
    expect((await s.t.get('/openapi/v2', { headers: pb })).status).to.equal(200);
    await forms.settled();
    const before = { ...forms.encodes };
    s.ext.openApiRevision++;
    await touch(s, 'pb');
    const next = `listWidgets${s.ext.openApiRevision}`;
    await v2WithWidget(s.t, next);
    await eventually(async () => forms.encodes.background > before.background);
    await forms.settled();
    const res = await s.t.get('/openapi/v2', { headers: pb });
    expect(forms.encodes.onRequest, 'the request found the form ready').to.equal(before.onRequest);
    const doc = decodeOpenApiV2Protobuf(res.raw!) as { paths: { path: Array<{ name: string; value: { get: { operation_id: string } } }> } };
    const list = doc.paths.path.find((p) => p.name === LIST_PATH);
    expect(list?.value.get.operation_id).to.equal(next);
  });

  it('/openapi/v3 lists the extension group-version with its hash; its document is the backend one', async () => {
    const index = await eventually(async () => {
      const r = await s.t.get('/openapi/v3');
      return r.body.paths?.[V3_KEY]?.serverRelativeURL === `/openapi/v3/${V3_KEY}?hash=R${s.ext.openApiRevision}` ? r : undefined;
    });
    expect(index.body.paths['api/v1'].serverRelativeURL).to.match(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]+$/);
    const doc = await s.t.get(index.body.paths[V3_KEY].serverRelativeURL);
    expect(doc.status, doc.text).to.equal(200);
    expect(doc.body.openapi).to.equal('3.0.0');
    expect(doc.body.components.schemas[WIDGET].properties.spec.properties.size.description).to.equal('How big.');
    expect((await s.t.get(`/openapi/v3/apis/${GROUP}/v9`)).status).to.equal(404);
  });

  it('a v3 document request is forwarded to the backend as the caller, every time (kube-aggregator proxies it; nothing cached)', async () => {
    const url = `/openapi/v3/${V3_KEY}?hash=R${s.ext.openApiRevision}`;
    const docPath = `/openapi/v3/${V3_KEY}`;
    const before = s.ext.callsTo(docPath).length;
    const admin = await s.t.get(url);
    expect(admin.status, admin.text).to.equal(200);
    const seen = s.ext.callsTo(docPath).slice(before);
    expect(seen).to.have.length(1);
    expect(seen[0].headers['x-remote-user']).to.not.equal('system:aggregator');
    expect(seen[0].headers['x-remote-user']).to.be.a('string').and.not.empty;
    expect(seen[0].query.get('hash')).to.equal(`R${s.ext.openApiRevision}`);

    // Another caller: the backend sees that user (and decides for itself), not a cached answer.
    s.ext.refusedOpenApiUser = 'mallory';
    try {
      const mallory = await s.t.get(url, { headers: { 'Impersonate-User': 'mallory' } });
      expect(mallory.status, mallory.text).to.equal(403);
      expect(mallory.body.message).to.equal(`forbidden: User "mallory" cannot get path "${docPath}"`);
      const last = s.ext.callsTo(docPath).at(-1)!;
      expect(last.headers['x-remote-user']).to.equal('mallory');
      expect(last.headers['x-remote-group']).to.include('system:authenticated');
      expect(last.headers['impersonate-user'], 'credentials are not passed on').to.equal(undefined);
    } finally {
      s.ext.refusedOpenApiUser = undefined;
    }

    // The caller's If-None-Match reaches the backend, whose 304 comes back.
    const again = await s.t.get(url, { headers: { 'If-None-Match': String(admin.headers.etag) } });
    expect(again.status).to.equal(304);
    expect(s.ext.callsTo(docPath).at(-1)!.headers['if-none-match']).to.equal(admin.headers.etag);
    expect(s.ext.callsTo(docPath).length - before).to.equal(3);
  });

  it('kubectl explain describes a field of the extension server kind', async () => {
    const kubectl = kubectlFor(s.t.server.kubeconfigPath, mkdtempSync(path.join(dir, 'kubectl-')));
    const r = await kubectl(['explain', 'widgets.spec.size']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include(`GROUP:      ${GROUP}`);
    expect(r.stdout).to.match(/FIELD:\s+size <integer>/);
    expect(r.stdout).to.include('How big.');
  });

  it('while the backend is gone and its APIService unavailable, its v3 document is 503 and the last v2 document stays merged', async () => {
    await s.ext.stop();
    await setAvailable(s, 'False');
    const url = `/openapi/v3/${V3_KEY}`;
    const r = await eventually(async () => {
      const x = await s.t.get(url);
      return x.status === 503 ? x : undefined;
    });
    expect(r.text).to.equal('service unavailable\n');
    expect((await s.t.get('/openapi/v2')).body.definitions[WIDGET]).to.exist;
    await s.ext.start();
    await setAvailable(s, 'True');
    await eventually(async () => (await s.t.get(url)).status === 200);
  });

  it('a deleted APIService leaves both documents', async () => {
    expect((await s.t.del(`${s.apiServices}/${NAME}`)).status).to.equal(200);
    await eventually(async () => {
      const [v2, v3] = await Promise.all([s.t.get('/openapi/v2'), s.t.get('/openapi/v3')]);
      return !v2.body.definitions[WIDGET] && !v2.body.paths[LIST_PATH] && !v3.body.paths[V3_KEY];
    });
    expect((await s.t.get(`/openapi/v3/${V3_KEY}`)).status).to.equal(404);
  });
});

describe('aggregation layer: OpenAPI refetched every refresh interval', function () {
  this.timeout(120_000);
  let s: Setup;
  const interval = refreshTimings.intervalMs;

  before(async () => {
    // kube-aggregator's minute, shortened for the test.
    refreshTimings.intervalMs = 300;
    s = await setUp();
  });
  after(async () => {
    refreshTimings.intervalMs = interval;
    await s?.t.stop();
    await s?.ext.stop();
  });

  it('a new document of the backend shows without any change of the APIService', async () => {
    await v2WithWidget(s.t, 'listWidgets1');
    s.ext.openApiRevision++;
    await v2WithWidget(s.t, 'listWidgets2');
    await eventually(async () => (await s.t.get('/openapi/v3')).body.paths?.[V3_KEY]?.serverRelativeURL.endsWith('hash=R2'));
  });
});

describe('aggregation layer: an extension server with OpenAPI v2 only', function () {
  this.timeout(120_000);
  let s: Setup;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'agg-openapi-v2-'));
    s = await setUp(false);
  });
  after(async () => {
    await s?.t.stop();
    await s?.ext.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('its v2 document is converted to v3 and served here under its own hash', async () => {
    const index = await eventually(async () => {
      const r = await s.t.get('/openapi/v3');
      return r.body.paths?.[V3_KEY] ? r : undefined;
    });
    const url: string = index.body.paths[V3_KEY].serverRelativeURL;
    expect(url).to.match(new RegExp(`^/openapi/v3/${V3_KEY}\\?hash=[0-9A-F]{128}$`));
    const doc = await s.t.get(url);
    expect(doc.status, doc.text).to.equal(200);
    expect(doc.headers['cache-control']).to.equal('public, immutable');
    expect(doc.body.openapi).to.equal('3.0.0');
    expect(doc.body.components.schemas[`${WIDGET}List`].properties.items.items).to.deep.equal({ $ref: `#/components/schemas/${WIDGET}` });
    const list = doc.body.paths[LIST_PATH];
    expect(list.get['x-kubernetes-group-version-kind']).to.deep.equal({ group: GROUP, version: VERSION, kind: 'Widget' });
    expect(list.get.responses['200'].content['application/json'].schema).to.deep.equal({ $ref: `#/components/schemas/${WIDGET}List` });
    const stale = await s.t.get(`/openapi/v3/${V3_KEY}?hash=0123`);
    expect(stale.status).to.equal(301);
    expect(stale.headers.location).to.equal(url);
  });

  it('kubectl explain works on it', async () => {
    const kubectl = kubectlFor(s.t.server.kubeconfigPath, mkdtempSync(path.join(dir, 'kubectl-')));
    const r = await kubectl(['explain', 'widgets.spec.size']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include('How big.');
  });
});
