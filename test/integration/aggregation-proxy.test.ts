/**
 * The aggregation proxy through HTTPS against a real etcd and extension API servers the test
 * serves, as kube-aggregator 1.32 forwards to them: Widgets of an extension server (test/helpers/
 * extension-apiserver.ts) created, read, listed, watched and deleted through this server; the
 * backend sees the front-proxy client certificate and the caller (or the impersonated user) in
 * X-Remote-User/-Group/-Extra-*, never the caller's credentials; RBAC refusals stay here;
 * Kubernetes' answers when the APIService is not Available, its caBundle does not verify the
 * backend, or the backend is down (and works again once it is back); HTTP/2 clients; all of it
 * with the extension server offering h2 (the proxy then speaks HTTP/2 to it: sequential requests
 * as streams of one connection, a watch left by its caller reset, GOAWAY followed by a new
 * connection) and with it speaking HTTP/1.1 only; a backend breaking HTTP/2 (malformed frames,
 * oversized header lists) answered 503 without harm to the server; the discovery and OpenAPI
 * fetches on the proxy's pooled connection; the HTTP/2 health check (client-go's PING after a
 * quiet read side) dropping a connection that stopped answering; and, from a
 * second backend of the test's own, an upgrade passed through both ways, a redirect refused or
 * passed, and --request-timeout kept for a request that is not a watch.
 *
 * The availability controller is paused here: each test sets the Available condition itself with
 * a /status write, so the proxy's answer to each state is tested alone (the controller has its own
 * suite, aggregation-availability.test.ts; the sample-apiserver e2e runs both together).
 */
import { expect } from 'chai';
import https from 'node:https';
import type http from 'node:http';
import http2 from 'node:http2';
import type { Duplex } from 'node:stream';
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, startTestServer, type TestServer } from '../helpers/server-harness';
import { startExtensionServer, type ExtensionServer } from '../helpers/extension-apiserver';
import { issueCert, type Issued } from '../helpers/x509-certs';
import { RawUpgrade } from '../helpers/kubelet-setup';
import { parseExposition } from '../helpers/prom-text';
import { encodeHeaderBlock } from '../../lib/http2/hpack';
import { CONTINUATION, DATA, FLAG_END_HEADERS, FLAG_END_STREAM, HEADERS, INTERNAL_ERROR, PREFACE, RST_STREAM, SETTINGS, FLAG_ACK, frameOf, settingsFrame } from '../../lib/http2/frames';

const NS = 'widgets';
const GROUP = 'widgets.example.test';
const VERSION = 'v1alpha1';
const GV = `/apis/${GROUP}/${VERSION}`;
const widgets = (name = '') => `${GV}/namespaces/${NS}/widgets${name ? `/${name}` : ''}`;
/** The harness's admin certificate (lib/server/pki.ts). */
const ADMIN = 'orch-admin';
const SPECIAL_GROUP = 'special.example.test';
const SPECIAL = `/apis/${SPECIAL_GROUP}/v1`;

type Body = Record<string, any>;

interface FrontProxy { ca: Issued; client: Issued; dir: string; flags: string[] }

function frontProxyPki(): FrontProxy {
  const ca = issueCert({ commonName: 'front-proxy-ca', ca: true });
  const client = issueCert({ commonName: 'front-proxy-client', extKeyUsage: ['clientAuth'] }, ca);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'front-proxy-'));
  writeFileSync(path.join(dir, 'client.crt'), client.certPem);
  writeFileSync(path.join(dir, 'client.key'), client.keyPem);
  return { ca, client, dir, flags: [`--proxy-client-cert-file=${path.join(dir, 'client.crt')}`, `--proxy-client-key-file=${path.join(dir, 'client.key')}`] };
}

/** A Service of type ExternalName to 127.0.0.1 (kube resolves it to `externalName:port`). */
async function externalService(t: TestServer, ns: string, name: string): Promise<void> {
  const r = await t.post(`/api/v1/namespaces/${ns}/services`, {
    apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type: 'ExternalName', externalName: '127.0.0.1' },
  });
  expect(r.status, r.text).to.equal(201);
}

function apiServices(t: TestServer, name = ''): string {
  return `/apis/${t.server.naming.group('apiregistration')}/v1/apiservices${name ? `/${name}` : ''}`;
}

/** Creates (or replaces the spec of) an APIService and sets its Available condition. */
async function registerApiService(t: TestServer, group: string, version: string, spec: Body, available = true): Promise<void> {
  const name = `${version}.${group}`;
  t.server.aggregation!.availability.pause();
  const existing = await t.get(apiServices(t, name));
  const body = { apiVersion: `${t.server.naming.group('apiregistration')}/v1`, kind: 'APIService', metadata: { name }, spec: { group, version, groupPriorityMinimum: 1000, versionPriority: 15, ...spec } };
  const w = existing.status === 200
    ? await t.put(apiServices(t, name), { ...body, metadata: existing.body.metadata })
    : await t.post(apiServices(t), body);
  expect(w.status, w.text).to.be.oneOf([200, 201]);
  await setAvailable(t, name, available);
}

async function setAvailable(t: TestServer, name: string, available: boolean): Promise<void> {
  t.server.aggregation!.availability.pause();
  // A status write of the controller's that was already on its way may land after pause(): on a
  // conflict the condition is written again over the current object.
  for (let attempt = 0; ; attempt++) {
    if (await writeAvailable(t, name, available) || attempt === 5) break;
  }
  // The proxy reads the APIService cache, which follows the watch cache.
  const aggregation = t.server.aggregation!;
  await eventually(async () => aggregation.context.cache.get(name)?.status?.conditions?.[0]?.status === (available ? 'True' : 'False'));
}

/** One /status write of the Available condition: false on a conflict. */
async function writeAvailable(t: TestServer, name: string, available: boolean): Promise<boolean> {
  const cur = await t.get(apiServices(t, name));
  const condition = available
    ? { type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }
    : { type: 'Available', status: 'False', reason: 'FailedDiscoveryCheck', message: 'failing', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
  const r = await t.put(`${apiServices(t, name)}/status`, { ...cur.body, status: { conditions: [condition] } });
  if (r.status === 409) return false;
  expect(r.status, r.text).to.equal(200);
  return true;
}

/** GET over HTTP/2 (node:http2 client) with a client certificate. */
function h2Request(t: TestServer, method: string, p: string, who: { certPem: string; keyPem: string }, body?: Body): Promise<{ status: number; headers: http2.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(t.server.url, { ca: t.server.pki.caCertPem, cert: who.certPem, key: who.keyPem, servername: 'localhost' });
    session.on('error', reject);
    const payload = body ? Buffer.from(JSON.stringify(body)) : undefined;
    const req = session.request({ ':method': method, ':path': p, accept: 'application/json', ...(payload ? { 'content-type': 'application/json' } : {}) });
    let status = 0;
    let headers: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    req.on('response', (h) => { status = Number(h[':status']); headers = h; });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => { session.close(); resolve({ status, headers, text: Buffer.concat(chunks).toString('utf8') }); });
    req.on('error', reject);
    req.end(payload);
  });
}

const BACKENDS: [string, boolean][] = [['HTTP/2', true], ['HTTP/1.1', false]];

for (const [backendName, backendH2] of BACKENDS) {
  describe(`aggregation proxy (kube-aggregator's proxyHandler), the backend over ${backendName}`, function () {
    this.timeout(60_000);
    let t: TestServer;
    let ext: ExtensionServer;
    let fp: FrontProxy;
    let rbac: string;

    before(async () => {
      fp = frontProxyPki();
      ext = await startExtensionServer({ group: GROUP, version: VERSION, service: 'api', namespace: NS, frontProxyCaPem: fp.ca.certPem, allowedNames: ['front-proxy-client'], http2: backendH2 });
      t = await startTestServer([...fp.flags, '--request-timeout=3s']);
      rbac = t.server.naming.group('rbac.authorization');
      expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
      await externalService(t, NS, 'api');
      await registerApiService(t, GROUP, VERSION, { service: { namespace: NS, name: 'api', port: ext.port }, caBundle: ext.caBundle });
      // alice and the group team-c may work with widgets in the namespace; bob may not.
      const role = await t.post(`/apis/${rbac}/v1/namespaces/${NS}/roles`, {
        apiVersion: `${rbac}/v1`, kind: 'Role', metadata: { name: 'widget-editor' },
        rules: [{ apiGroups: [GROUP], resources: ['widgets'], verbs: ['get', 'list', 'watch', 'create', 'delete'] }],
      });
      expect(role.status, role.text).to.equal(201);
      const binding = await t.post(`/apis/${rbac}/v1/namespaces/${NS}/rolebindings`, {
        apiVersion: `${rbac}/v1`, kind: 'RoleBinding', metadata: { name: 'alice-widgets' },
        roleRef: { apiGroup: rbac, kind: 'Role', name: 'widget-editor' },
        subjects: [{ apiGroup: rbac, kind: 'User', name: 'alice' }, { apiGroup: rbac, kind: 'Group', name: 'team-c' }],
      });
      expect(binding.status, binding.text).to.equal(201);
    });

    after(async () => {
      await t?.stop();
      await ext?.stop();
      if (fp) rmSync(fp.dir, { recursive: true, force: true });
    });

    it('creates, gets, lists and deletes through the proxy as the admin: the backend sees the front-proxy certificate and X-Remote-*, no Authorization', async () => {
      const created = await t.post(widgets(), { apiVersion: `${GROUP}/${VERSION}`, kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } }, { headers: { authorization: 'Bearer must-not-reach-the-backend' } });
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.deep.include({ kind: 'Widget', apiVersion: `${GROUP}/${VERSION}` });
      expect(created.body.metadata).to.include({ name: 'w1', namespace: NS });
      const call = ext.callsTo(widgets()).at(-1)!;
      expect(call.method).to.equal('POST');
      expect(call.httpVersion).to.equal(backendH2 ? '2.0' : '1.1');
      expect(call.clientCn).to.equal('front-proxy-client');
      expect(call.user).to.equal(ADMIN);
      expect(call.groups).to.include('system:masters');
      expect(call.headers.authorization).to.equal(undefined);
      expect(call.headers['audit-id']).to.equal(created.headers['audit-id']);
      expect(call.headers['x-forwarded-for']).to.be.a('string');

      const got = await t.get(widgets('w1'));
      expect(got.status, got.text).to.equal(200);
      expect(got.body.spec).to.deep.equal({ size: 3 });
      expect(got.headers['content-type']).to.equal('application/json');

      const list = await t.get(`${widgets()}?limit=5&labelSelector=a%20b`);
      expect(list.status, list.text).to.equal(200);
      expect(list.body.items.map((w: Body) => w.metadata.name)).to.deep.equal(['w1']);
      const listCall = ext.callsTo(widgets()).at(-1)!;
      expect(listCall.query.get('labelSelector')).to.equal('a b');
      expect(listCall.query.get('limit')).to.equal('5');

      const missing = await t.get(widgets('nope'));
      expect(missing.status).to.equal(404);
      expect(missing.body).to.deep.include({ reason: 'NotFound', message: `widgets.${GROUP} "nope" not found` });

      const deleted = await t.del(widgets('w1'));
      expect(deleted.status, deleted.text).to.equal(200);
      expect((await t.get(widgets('w1'))).status).to.equal(404);
    });

    it('re-encodes the query as Go\'s url.Values (keys sorted) and drops X-Remote-* headers a caller sends', async () => {
      await t.get(`${widgets()}?watch=false&b=2&a=1&a=0`, { headers: { 'x-remote-user': 'system:admin', 'x-remote-group': 'system:masters', 'x-remote-extra-scopes': 'all', 'x-other': 'kept' } });
      const call = ext.callsTo(widgets()).at(-1)!;
      expect(call.query.toString()).to.equal('a=1&a=0&b=2&watch=false');
      expect(call.user).to.equal(ADMIN);
      expect(call.extra).to.deep.equal({});
      expect(call.headers['x-other']).to.equal('kept');
    });

    it('as another user: the backend sees that user and groups; a user without RBAC rights gets 403 here and the backend no call', async () => {
      const alice = t.identity('alice', ['team-a', 'team-b']);
      const r = await t.post(widgets(), { apiVersion: `${GROUP}/${VERSION}`, kind: 'Widget', metadata: { name: 'by-alice' } }, { identity: alice });
      expect(r.status, r.text).to.equal(201);
      const call = ext.callsTo(widgets()).at(-1)!;
      expect(call.user).to.equal('alice');
      expect(call.groups).to.deep.equal(['team-a', 'team-b', 'system:authenticated']);
      expect((await t.get(widgets('by-alice'), { identity: alice })).status).to.equal(200);

      const before = ext.calls.length;
      const bob = t.identity('bob');
      const denied = await t.get(widgets('by-alice'), { identity: bob });
      expect(denied.status, denied.text).to.equal(403);
      expect(denied.body).to.deep.include({ kind: 'Status', reason: 'Forbidden' });
      expect(denied.body.message).to.include(`User "bob" cannot get resource "widgets" in API group "${GROUP}" in the namespace "${NS}"`);
      const post = await t.post(widgets(), { metadata: { name: 'by-bob' } }, { identity: bob });
      expect(post.status).to.equal(403);
      expect(ext.calls.length).to.equal(before);
    });

    it('an impersonated request reaches the backend as the impersonated user, groups and extra (key %-escaped), without Impersonate-* headers', async () => {
      const r = await t.get(widgets(), { headers: {
        'impersonate-user': 'carol', 'impersonate-group': 'team-c', 'impersonate-extra-scopes': 'view',
        'impersonate-extra-acme.com%2fproject': 'p1', 'impersonate-uid': 'uid-1',
      } });
      expect(r.status, r.text).to.equal(200);
      const call = ext.callsTo(widgets()).at(-1)!;
      expect(call.user).to.equal('carol');
      expect(call.groups).to.deep.equal(['team-c', 'system:authenticated']);
      expect(call.extra).to.deep.equal({ scopes: ['view'], 'acme.com/project': ['p1'] });
      // Without the RemoteRequestHeaderUID gate (alpha, off) the uid is not sent.
      expect(call.headers['x-remote-uid']).to.equal(undefined);
      expect(Object.keys(call.headers).filter((h) => h.startsWith('impersonate-'))).to.deep.equal([]);
      // The key %-escaped on the wire (node:http lowercases header names as it reads them).
      expect(Object.keys(call.headers)).to.include('x-remote-extra-acme.com%2fproject');
    });

    it('a watch through the proxy streams an event made afterwards, past --request-timeout', async () => {
      const admin = t.identity('watcher', ['system:masters']);
      expect((await t.post(widgets(), { apiVersion: `${GROUP}/${VERSION}`, kind: 'Widget', metadata: { name: 'before-watch' } })).status).to.equal(201);
      const lines: Body[] = [];
      let buf = '';
      let status = 0;
      const req = https.request(`${t.server.url}${widgets()}?watch=true`, { ca: t.server.pki.caCertPem, cert: admin.certPem, key: admin.keyPem, headers: { accept: 'application/json' } }, (res) => {
        status = res.statusCode ?? 0;
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) { lines.push(JSON.parse(buf.slice(0, nl))); buf = buf.slice(nl + 1); }
        });
      });
      req.on('error', () => undefined);
      req.end();
      try {
        await eventually(async () => status === 200 && lines.some((l) => l.object?.metadata?.name === 'before-watch'));
        // Longer than --request-timeout=3s: the watch is long-running.
        await new Promise((r) => setTimeout(r, 3_500));
        const c = await t.post(widgets(), { apiVersion: `${GROUP}/${VERSION}`, kind: 'Widget', metadata: { name: 'watched' } });
        expect(c.status, c.text).to.equal(201);
        const ev = await eventually(async () => lines.find((l) => l.object?.metadata?.name === 'watched'));
        expect(ev.type).to.equal('ADDED');
      } finally {
        req.destroy();
      }
    });

    it(`sequential GETs go on one connection to the backend${backendH2 ? ' (one HTTP/2 session, a stream each)' : ''}`, async () => {
      expect((await t.get(widgets())).status).to.equal(200);
      const from = ext.callsTo(widgets()).length;
      for (let i = 0; i < 20; i++) expect((await t.get(widgets())).status).to.equal(200);
      const calls = ext.callsTo(widgets()).slice(from);
      expect(calls).to.have.length(20);
      expect(new Set(calls.map((c) => c.remotePort)).size).to.equal(1);
      expect(new Set(calls.map((c) => c.httpVersion))).to.deep.equal(new Set([backendH2 ? '2.0' : '1.1']));
    });

    it(`discovery and OpenAPI documents are fetched on the proxy's pooled connection${backendH2 ? ' (streams of its HTTP/2 session)' : ''}, with the front-proxy certificate and If-None-Match`, async () => {
      const agg = t.server.aggregation!;
      const DOCUMENTS = ['/apis', '/openapi/v2', '/openapi/v3'];
      const refetch = async () => {
        const from = ext.calls.length;
        agg.discovery.refreshAll();
        agg.openapi.refreshAll();
        await eventually(async () => DOCUMENTS.every((p) => ext.calls.slice(from).some((c) => c.path === p)));
        await Promise.all([agg.discovery.settled(), agg.openapi.settled()]);
        return ext.calls.slice(from).filter((c) => DOCUMENTS.includes(c.path));
      };
      expect((await t.get(widgets())).status).to.equal(200);
      // The first round may add a kept-alive HTTP/1.1 socket for fetches made at once; the next opens none.
      await refetch();
      const connections = ext.connections;
      const fetched = await refetch();
      expect(ext.connections).to.equal(connections);
      expect((await t.get(widgets())).status).to.equal(200);
      expect(ext.connections).to.equal(connections);
      for (const c of fetched) {
        expect(c.clientCn, c.path).to.equal('front-proxy-client');
        expect(c.httpVersion, c.path).to.equal(backendH2 ? '2.0' : '1.1');
      }
      expect(fetched.find((c) => c.path === '/apis')!.user).to.equal('system:kube-aggregator');
      expect(fetched.find((c) => c.path === '/openapi/v2')!.user).to.equal('system:aggregator');
      expect(fetched.find((c) => c.path === '/openapi/v2')!.headers['if-none-match']).to.match(/^".+"$/);
      if (backendH2) {
        const proxied = ext.callsTo(widgets()).at(-1)!.remotePort;
        expect(new Set(fetched.map((c) => c.remotePort))).to.deep.equal(new Set([proxied]));
      }
    });

    it('a caller going away mid-watch ends the watch on the backend', async () => {
      const admin = t.identity('watch-leaver', ['system:masters']);
      const closedBefore = ext.watchesClosed;
      let status = 0;
      const req = https.request(`${t.server.url}${widgets()}?watch=true`, { ca: t.server.pki.caCertPem, cert: admin.certPem, key: admin.keyPem });
      req.on('response', (res) => { status = res.statusCode ?? 0; res.resume(); });
      req.on('error', () => undefined);
      req.end();
      await eventually(async () => status === 200);
      const port = ext.callsTo(widgets()).at(-1)!.remotePort;
      req.destroy();
      await eventually(async () => ext.watchesClosed > closedBefore);
      expect((await t.get(widgets())).status).to.equal(200);
      // Over HTTP/2 only the watch's stream was reset: the connection goes on.
      if (backendH2) expect(ext.callsTo(widgets()).at(-1)!.remotePort).to.equal(port);
    });

    if (backendH2) {
      it('the backend saying GOAWAY: requests go on, on a new connection', async () => {
        expect((await t.get(widgets())).status).to.equal(200);
        const port = ext.callsTo(widgets()).at(-1)!.remotePort;
        const connections = ext.connections;
        ext.goaway();
        expect((await t.get(widgets())).status).to.equal(200);
        await eventually(async () => (await t.get(widgets())).status === 200 && ext.callsTo(widgets()).at(-1)!.remotePort !== port);
        expect(ext.connections).to.be.greaterThan(connections);
      });
    }

    it('over HTTP/2: get, list, create and watch through the proxy', async () => {
      const admin = t.identity('h2-admin', ['system:masters']);
      const created = await h2Request(t, 'POST', widgets(), admin, { apiVersion: `${GROUP}/${VERSION}`, kind: 'Widget', metadata: { name: 'over-h2' } });
      expect(created.status, created.text).to.equal(201);
      expect(ext.callsTo(widgets()).at(-1)!.user).to.equal('h2-admin');
      const got = await h2Request(t, 'GET', widgets('over-h2'), admin);
      expect(got.status, got.text).to.equal(200);
      // The backend's Content-Length arrives as it sent it, matching the body (Go's HTTP/2 client refuses a mismatch).
      expect(Number(got.headers['content-length']), 'content-length').to.equal(Buffer.byteLength(got.text));
      expect(JSON.parse(got.text).metadata.name).to.equal('over-h2');
      const list = await h2Request(t, 'GET', widgets(), admin);
      expect(JSON.parse(list.text).items.map((w: Body) => w.metadata.name)).to.include('over-h2');
      // A watch over HTTP/2 streams as well.
      const session = http2.connect(t.server.url, { ca: t.server.pki.caCertPem, cert: admin.certPem, key: admin.keyPem, servername: 'localhost' });
      try {
        const watch = session.request({ ':method': 'GET', ':path': `${widgets()}?watch=true`, accept: 'application/json' });
        let text = '';
        watch.setEncoding('utf8');
        watch.on('data', (c: string) => { text += c; });
        await eventually(async () => text.includes('"over-h2"'));
        expect((await h2Request(t, 'POST', widgets(), admin, { apiVersion: `${GROUP}/${VERSION}`, kind: 'Widget', metadata: { name: 'h2-watched' } })).status).to.equal(201);
        await eventually(async () => text.includes('"h2-watched"'));
        watch.close();
      } finally {
        session.close();
      }
      const notAvailableElsewhere = await h2Request(t, 'GET', '/apis/nothing.example.test/v1/things', admin);
      expect(notAvailableElsewhere.status).to.equal(404);
    });

    it('discovery of the group-version comes from the backend', async () => {
      const r = await t.get(GV);
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.deep.include({ kind: 'APIResourceList', groupVersion: `${GROUP}/${VERSION}` });
      expect(ext.callsTo(GV).at(-1)!.user).to.equal(ADMIN);
    });

    it('a group-version without an APIService is not proxied: this server answers 404', async () => {
      const before = ext.calls.length;
      const r = await t.get(`/apis/${GROUP}/v9/namespaces/${NS}/widgets`);
      expect(r.status).to.equal(404);
      expect(r.body).to.deep.include({ kind: 'Status', reason: 'NotFound' });
      expect(ext.calls.length).to.equal(before);
    });

    it('not Available: 503 `service unavailable` as Go\'s http.Error writes it, and the backend gets no call', async () => {
      const name = `${VERSION}.${GROUP}`;
      await setAvailable(t, name, false);
      try {
        const before = ext.calls.length;
        const r = await t.get(widgets());
        expect(r.status).to.equal(503);
        expect(r.text).to.equal('service unavailable\n');
        expect(r.headers['content-type']).to.equal('text/plain; charset=utf-8');
        expect(r.headers['x-content-type-options']).to.equal('nosniff');
        expect(ext.calls.length).to.equal(before);
        // Counted as kube-aggregator's proxyError counts it.
        const m = parseExposition((await t.get('/metrics', { headers: { accept: 'text/plain' } })).text);
        expect(m.value('apiserver_request_terminations_total', { component: 'aggregator', code: '503', verb: 'LIST', group: GROUP, version: VERSION })).to.equal(1);
      } finally {
        await setAvailable(t, name, true);
      }
      expect((await t.get(widgets())).status).to.equal(200);
    });

    it('the backend stopped: 503 with the dial error; started again: served again', async () => {
      await ext.stop();
      try {
        const r = await t.get(widgets());
        expect(r.status).to.equal(503);
        expect(r.text).to.equal(`dial tcp 127.0.0.1:${ext.port}: connect: connection refused\n`);
        expect(r.headers['content-type']).to.equal('text/plain; charset=utf-8');
      } finally {
        await ext.start();
      }
      const back = await eventually(async () => { const r = await t.get(widgets()); return r.status === 200 && r; });
      expect(back.body.kind).to.equal('WidgetList');
    });

    it('a caBundle that does not verify the backend: 503 with the TLS error, and the body never reaches it', async () => {
      const other = await startExtensionServer({ group: 'other.example.test', version: 'v1', service: 'other', namespace: NS, frontProxyCaPem: fp.ca.certPem });
      try {
        await externalService(t, NS, 'other');
        // Another CA than the one that signed the backend's serving certificate.
        await registerApiService(t, 'other.example.test', 'v1', { service: { namespace: NS, name: 'other', port: other.port }, caBundle: ext.caBundle });
        const r = await t.post(`/apis/other.example.test/v1/namespaces/${NS}/widgets`, { metadata: { name: 'secret-widget' }, spec: { token: 'do-not-leak' } });
        expect(r.status).to.equal(503);
        expect(r.text).to.equal('tls: failed to verify certificate: x509: certificate signed by unknown authority\n');
        expect(r.text).to.not.include('do-not-leak');
        expect(other.calls).to.deep.equal([]);
        // A caBundle with no certificate in it: no transport can be built (client-go's text, 500).
        await registerApiService(t, 'other.example.test', 'v1', { service: { namespace: NS, name: 'other', port: other.port }, caBundle: Buffer.from('not a certificate').toString('base64') });
        await eventually(async () => (await t.get(`/apis/other.example.test/v1/namespaces/${NS}/widgets`)).status === 500);
        const bad = await t.get(`/apis/other.example.test/v1/namespaces/${NS}/widgets`);
        expect(bad.text).to.equal('unable to load root certificates: unable to parse bytes as PEM block\n');
        // The service gone: 503 `service unavailable`.
        await registerApiService(t, 'other.example.test', 'v1', { service: { namespace: NS, name: 'no-such-service', port: other.port }, caBundle: other.caBundle });
        await eventually(async () => (await t.get(`/apis/other.example.test/v1/namespaces/${NS}/widgets`)).text === 'service unavailable\n');
        expect(other.calls).to.deep.equal([]);
      } finally {
        await other.stop();
      }
    });
  });
}

/** A backend of the test's own: upgrades echoed, redirects, an answer that never comes. */
interface SpecialBackend { port: number; caBundle: string; seen: string[]; hangsClosed: number; lastHeaders?: Record<string, string | string[] | undefined>; stop(): Promise<void> }

/** `offerH2`: h2 offered by ALPN (HTTP/1.1 besides, for upgrades), as a Go server offers it. */
async function startSpecialBackend(service: string, ns: string, host = '127.0.0.1', offerH2 = false): Promise<SpecialBackend> {
  const ca = issueCert({ commonName: 'special-ca', ca: true });
  const serving = issueCert({ commonName: `${service}.${ns}.svc`, extKeyUsage: ['serverAuth'], altNames: [`${service}.${ns}.svc`] }, ca);
  const seen: string[] = [];
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    sb.lastHeaders = req.headers;
    if (req.url?.endsWith('/redirect')) {
      res.writeHead(302, { location: 'https://elsewhere.example.test/x', 'content-type': 'text/html' });
      res.end('<a href="https://elsewhere.example.test/x">Found</a>');
      return;
    }
    if (req.url?.split('?')[0].endsWith('/hang')) {
      // Never answered; the proxy's going away is noted.
      res.on('close', () => { sb.hangsClosed++; });
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  };
  const server = offerH2
    ? http2.createSecureServer({ cert: serving.certPem, key: serving.keyPem, allowHTTP1: true }, onRequest as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void)
    : https.createServer({ cert: serving.certPem, key: serving.keyPem }, onRequest);
  const sockets = new Set<tls.TLSSocket>();
  server.on('secureConnection', (socket: tls.TLSSocket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex) => {
    seen.push(`UPGRADE ${req.method} ${req.url} ${req.headers['x-remote-user']} ${req.headers.authorization ?? '-'}`);
    if (req.url?.includes('refuse')) {
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 7\r\n\r\nrefused');
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${req.headers.upgrade}\r\n\r\n`);
    socket.pipe(socket);
  });
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  const sb: SpecialBackend = {
    port: (server.address() as AddressInfo).port, caBundle: Buffer.from(ca.certPem).toString('base64'), seen, hangsClosed: 0,
    stop: async () => { for (const socket of sockets) socket.destroy(); await new Promise((r) => server.close(r)); },
  };
  return sb;
}

const STACKS: [string, string[], boolean][] = [
  ['own HTTP/1.1', ['--http1-server=own'], false],
  ['node:http', ['--http1-server=node'], false],
  ['own HTTP/1.1, the backend offering h2', ['--http1-server=own'], true],
];

for (const [stackName, stackFlags, offerH2] of STACKS) {
  describe(`aggregation proxy upgrades, redirects and timeouts over ${stackName}`, function () {
    this.timeout(60_000);
    let t: TestServer;
    let backend: SpecialBackend;
    let fp: FrontProxy;

    before(async () => {
      fp = frontProxyPki();
      backend = await startSpecialBackend('special', 'default', '127.0.0.1', offerH2);
      t = await startTestServer([...fp.flags, '--request-timeout=2s', ...stackFlags]);
      await externalService(t, 'default', 'special');
      await registerApiService(t, SPECIAL_GROUP, 'v1', { service: { namespace: 'default', name: 'special', port: backend.port }, caBundle: backend.caBundle });
    });

    after(async () => {
      await t?.stop();
      await backend?.stop();
      if (fp) rmSync(fp.dir, { recursive: true, force: true });
    });

    it('an upgrade is passed through: the 101 comes back, bytes are echoed both ways, the identity is in X-Remote-User', async () => {
      const admin = t.identity('upgrader', ['system:masters']);
      const raw = await RawUpgrade.connect(t.server.url, { ca: t.server.pki.caCertPem, cert: admin.certPem, key: admin.keyPem });
      try {
        raw.write(`POST ${SPECIAL}/namespaces/default/things/x/exec?command=cat HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer nope\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n`);
        const head = await raw.head();
        expect(head.status, head.text).to.equal(101);
        expect(head.text).to.match(/\r\nUpgrade: SPDY\/3\.1/i);
        const payload = Buffer.from('hello through the aggregator');
        raw.write(payload);
        expect((await raw.read(payload.length)).toString()).to.equal(payload.toString());
        expect(backend.seen.at(-1)).to.equal(`UPGRADE POST ${SPECIAL}/namespaces/default/things/x/exec?command=cat upgrader -`);
      } finally {
        raw.close();
      }
    });

    it('a backend refusing the upgrade: its answer is relayed as it is', async () => {
      const admin = t.identity('upgrader', ['system:masters']);
      const raw = await RawUpgrade.connect(t.server.url, { ca: t.server.pki.caCertPem, cert: admin.certPem, key: admin.keyPem });
      try {
        raw.write(`GET ${SPECIAL}/refuse HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
        const head = await raw.head();
        expect(head.status, head.text).to.equal(403);
        expect((await raw.rest()).toString()).to.equal('refused');
      } finally {
        raw.close();
      }
    });

    it('a redirect from the backend: 502 with Kubernetes\' text (--aggregator-reject-forwarding-redirect defaults to true)', async () => {
      const r = await t.get(`${SPECIAL}/redirect`);
      expect(r.status).to.equal(502);
      expect(r.text).to.equal('the backend attempted to redirect this request, which is not permitted');
      expect(r.headers.location).to.equal(undefined);
    });

    it('a client going away aborts the request to the backend', async () => {
      const admin = t.identity('leaver', ['system:masters']);
      const closedBefore = backend.hangsClosed;
      const seenBefore = backend.seen.length;
      const req = https.request(`${t.server.url}${SPECIAL}/hang?watch=true`, { ca: t.server.pki.caCertPem, cert: admin.certPem, key: admin.keyPem });
      req.on('error', () => undefined);
      req.end();
      await eventually(async () => backend.seen.length > seenBefore);
      req.destroy();
      await eventually(async () => backend.hangsClosed > closedBefore);
    });

    it('a request that is not a watch is cut by --request-timeout (504), and its backend request abandoned', async () => {
      const closedBefore = backend.hangsClosed;
      const r = await t.get(`${SPECIAL}/hang`);
      expect(r.status).to.equal(504);
      expect(r.body).to.deep.include({ reason: 'Timeout' });
      await eventually(async () => backend.hangsClosed > closedBefore);
    });
  });
}

describe('aggregation proxy with --aggregator-reject-forwarding-redirect=false and RemoteRequestHeaderUID', function () {
  this.timeout(60_000);
  let t: TestServer;
  let backend: SpecialBackend;
  let fp: FrontProxy;

  before(async () => {
    fp = frontProxyPki();
    backend = await startSpecialBackend('special', 'default');
    t = await startTestServer([...fp.flags, '--aggregator-reject-forwarding-redirect=false', '--feature-gates=RemoteRequestHeaderUID=true']);
    await externalService(t, 'default', 'special');
    await registerApiService(t, SPECIAL_GROUP, 'v1', { service: { namespace: 'default', name: 'special', port: backend.port }, caBundle: backend.caBundle });
  });

  after(async () => {
    await t?.stop();
    await backend?.stop();
    if (fp) rmSync(fp.dir, { recursive: true, force: true });
  });

  it('the backend\'s redirect is passed to the client as it is', async () => {
    const r = await t.get(`${SPECIAL}/redirect`);
    expect(r.status).to.equal(302);
    expect(r.headers.location).to.equal('https://elsewhere.example.test/x');
    expect(r.text).to.equal('<a href="https://elsewhere.example.test/x">Found</a>');
  });

  it('with the RemoteRequestHeaderUID gate, the user\'s uid goes in X-Remote-Uid', async () => {
    const r = await t.get(`${SPECIAL}/things`, { headers: { 'impersonate-user': 'dave', 'impersonate-group': 'system:masters', 'impersonate-uid': 'uid-42', 'x-remote-uid': 'forged' } });
    expect(r.status, r.text).to.equal(200);
    expect(backend.lastHeaders).to.include({ 'x-remote-user': 'dave', 'x-remote-uid': 'uid-42' });
  });
});

/** A non-loopback IPv4 address of this machine (Endpoints refuse loopback addresses), if any. */
function outsideAddress(): string | undefined {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

describe('aggregation proxy with --enable-aggregator-routing', function () {
  this.timeout(60_000);
  let t: TestServer;
  let backend: SpecialBackend;
  let fp: FrontProxy;
  const address = outsideAddress();

  before(async function () {
    if (!address) this.skip();
    fp = frontProxyPki();
    backend = await startSpecialBackend('special', 'default', address);
    t = await startTestServer([...fp.flags, '--enable-aggregator-routing']);
    const svc = await t.post('/api/v1/namespaces/default/services', {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'special' }, spec: { ports: [{ name: 'https', port: 443, targetPort: backend.port }] },
    });
    expect(svc.status, svc.text).to.equal(201);
    await registerApiService(t, SPECIAL_GROUP, 'v1', { service: { namespace: 'default', name: 'special', port: 443 }, caBundle: backend.caBundle });
  });

  after(async () => {
    await t?.stop();
    await backend?.stop();
    if (fp) rmSync(fp.dir, { recursive: true, force: true });
  });

  it('goes to an endpoint address of the service port, and answers 503 `service unavailable` while there is none', async () => {
    const none = await t.get(`${SPECIAL}/things`);
    expect(none.status).to.equal(503);
    expect(none.text).to.equal('service unavailable\n');
    const eps = await t.post('/api/v1/namespaces/default/endpoints', {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'special' },
      subsets: [{ addresses: [{ ip: address }], ports: [{ name: 'https', port: backend.port }] }],
    });
    expect(eps.status, eps.text).to.equal(201);
    const r = await eventually(async () => { const x = await t.get(`${SPECIAL}/things`); return x.status === 200 && x; });
    expect(r.body).to.deep.equal({});
    expect(backend.seen.at(-1)).to.equal(`GET ${SPECIAL}/things`);
  });
});

/** How the raw HTTP/2 backend answers each request. */
type RawMode = 'ok' | 'garbage' | 'bad-status' | 'huge-headers' | 'continuation-flood' | 'reset';

/** An HTTP/2 backend written frame by frame (ALPN h2 only), answering as `mode` says. */
interface RawH2Backend { port: number; caBundle: string; mode: RawMode; requests: number; stop(): Promise<void> }

async function startRawH2Backend(service: string, ns: string): Promise<RawH2Backend> {
  const ca = issueCert({ commonName: 'raw-ca', ca: true });
  const serving = issueCert({ commonName: `${service}.${ns}.svc`, extKeyUsage: ['serverAuth'], altNames: [`${service}.${ns}.svc`] }, ca);
  const sockets = new Set<tls.TLSSocket>();
  const answer = (socket: tls.TLSSocket, id: number) => {
    switch (rb.mode) {
      case 'ok': {
        const body = Buffer.from('{}');
        socket.write(frameOf(HEADERS, FLAG_END_HEADERS, id, encodeHeaderBlock([[':status', '200'], ['content-type', 'application/json'], ['content-length', String(body.length)]])));
        socket.write(frameOf(DATA, FLAG_END_STREAM, id, body));
        return;
      }
      // DATA on stream 0: a connection error.
      case 'garbage': socket.write(frameOf(DATA, 0, 0, Buffer.from('x'))); return;
      case 'bad-status': socket.write(frameOf(HEADERS, FLAG_END_HEADERS | FLAG_END_STREAM, id, encodeHeaderBlock([[':status', 'abc']]))); return;
      case 'huge-headers': {
        // 40 KB of header list, over the 16 KB taken, in a HEADERS and CONTINUATION frames.
        const block = encodeHeaderBlock([[':status', '200'], ['x-big', 'a'.repeat(40_000)]]);
        for (let pos = 0; pos < block.length; pos += 16_384) {
          const last = pos + 16_384 >= block.length;
          socket.write(frameOf(pos === 0 ? HEADERS : CONTINUATION, last ? FLAG_END_HEADERS : 0, id, block.subarray(pos, pos + 16_384)));
        }
        return;
      }
      case 'continuation-flood': {
        socket.write(frameOf(HEADERS, 0, id, encodeHeaderBlock([[':status', '200']])));
        for (let i = 0; i < 1_000; i++) socket.write(frameOf(CONTINUATION, 0, id, Buffer.alloc(16, 0x40)));
        return;
      }
      case 'reset': {
        const code = Buffer.alloc(4);
        code.writeUInt32BE(INTERNAL_ERROR);
        socket.write(frameOf(RST_STREAM, 0, id, code));
      }
    }
  };
  const server = tls.createServer({ cert: serving.certPem, key: serving.keyPem, ALPNProtocols: ['h2'] }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.write(settingsFrame([]));
    let buf = Buffer.alloc(0);
    let preface = false;
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (!preface) {
        if (buf.length < PREFACE.length) return;
        buf = buf.subarray(PREFACE.length);
        preface = true;
      }
      while (buf.length >= 9) {
        const length = buf.readUIntBE(0, 3);
        if (buf.length < 9 + length) break;
        const [type, flags] = [buf[3], buf[4]];
        const id = buf.readUInt32BE(5) & 0x7fffffff;
        buf = buf.subarray(9 + length);
        if (type === SETTINGS && !(flags & FLAG_ACK)) socket.write(frameOf(SETTINGS, FLAG_ACK, 0));
        if (type === HEADERS) {
          rb.requests++;
          answer(socket, id);
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const rb: RawH2Backend = {
    port: (server.address() as AddressInfo).port, caBundle: Buffer.from(ca.certPem).toString('base64'), mode: 'ok', requests: 0,
    stop: async () => { for (const s of sockets) s.destroy(); await new Promise((r) => server.close(r)); },
  };
  return rb;
}

describe('aggregation proxy: a backend breaking HTTP/2', function () {
  this.timeout(60_000);
  let t: TestServer;
  let backend: RawH2Backend;
  let fp: FrontProxy;
  const RAW_GROUP = 'raw.example.test';
  const RAW = `/apis/${RAW_GROUP}/v1/things`;

  before(async () => {
    fp = frontProxyPki();
    backend = await startRawH2Backend('raw', 'default');
    t = await startTestServer(fp.flags);
    await externalService(t, 'default', 'raw');
    await registerApiService(t, RAW_GROUP, 'v1', { service: { namespace: 'default', name: 'raw', port: backend.port }, caBundle: backend.caBundle });
  });

  after(async () => {
    await t?.stop();
    await backend?.stop();
    if (fp) rmSync(fp.dir, { recursive: true, force: true });
  });

  const cases: [RawMode, string][] = [
    ['garbage', 'HTTP/2 protocol error from the peer: DATA on stream 0\n'],
    ['bad-status', 'malformed response from server: invalid status pseudo header\n'],
    ['huge-headers', `a header list larger than ${16 * 1024} bytes\n`],
    ['continuation-flood', 'HTTP/2 protocol error from the peer: a header block too large\n'],
    ['reset', 'stream error: stream ID 1; INTERNAL_ERROR; received from peer\n'],
  ];
  for (const [mode, text] of cases) {
    it(`${mode}: 503 with the error's text, the server unharmed, and served again once the backend behaves`, async () => {
      backend.mode = 'ok';
      expect((await t.get(RAW)).status).to.equal(200);
      backend.mode = mode;
      const r = await t.get(RAW);
      expect(r.status).to.equal(503);
      expect(r.headers['content-type']).to.equal('text/plain; charset=utf-8');
      // A reset names its stream, whose id depends on the connection's history.
      if (mode === 'reset') expect(r.text).to.match(/^stream error: stream ID \d+; INTERNAL_ERROR; received from peer\n$/);
      else expect(r.text).to.equal(text);
      expect((await t.get('/healthz')).status).to.equal(200);
      backend.mode = 'ok';
      expect((await t.get(RAW)).status).to.equal(200);
    });
  }
});

/** A TCP relay in front of a backend whose connections can be frozen one by one: bytes still read, none passed on either way. */
interface FreezingRelay {
  port: number;
  /** Freezes the connection whose side towards the backend has this local port (the backend's `remotePort` of a call). */
  freeze(backendSidePort: number): void;
  /** Whether the connection with that backend-side port was closed by the client (this server). */
  closedByClient(backendSidePort: number): boolean;
  stop(): Promise<void>;
}

async function startFreezingRelay(backendPort: number): Promise<FreezingRelay> {
  const pairs: { client: net.Socket; backend: net.Socket; backendSidePort?: number; frozen: boolean; clientClosed: boolean }[] = [];
  const server = net.createServer((client) => {
    const backend = net.connect(backendPort, '127.0.0.1');
    const pair = { client, backend, backendSidePort: undefined as number | undefined, frozen: false, clientClosed: false };
    pairs.push(pair);
    backend.once('connect', () => { pair.backendSidePort = backend.localPort; });
    client.on('data', (c: Buffer) => { if (!pair.frozen) backend.write(c); });
    backend.on('data', (c: Buffer) => { if (!pair.frozen) client.write(c); });
    client.on('close', () => { pair.clientClosed = true; backend.destroy(); });
    backend.on('close', () => { if (!pair.frozen) client.destroy(); });
    client.on('error', () => undefined);
    backend.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const find = (p: number) => pairs.find((x) => x.backendSidePort === p);
  return {
    port: (server.address() as AddressInfo).port,
    freeze: (p) => { find(p)!.frozen = true; },
    closedByClient: (p) => find(p)?.clientClosed === true,
    stop: async () => {
      for (const p of pairs) { p.client.destroy(); p.backend.destroy(); }
      await new Promise((r) => server.close(r));
    },
  };
}

describe('aggregation proxy: the HTTP/2 health check on a backend connection that stops answering', function () {
  this.timeout(60_000);
  const PING_GROUP = 'pings.example.test';
  const PATH = `/apis/${PING_GROUP}/v1/namespaces/default/widgets`;
  let t: TestServer;
  let ext: ExtensionServer;
  let relay: FreezingRelay;
  let fp: FrontProxy;

  before(async () => {
    fp = frontProxyPki();
    ext = await startExtensionServer({ group: PING_GROUP, version: 'v1', service: 'pings', namespace: 'default', frontProxyCaPem: fp.ca.certPem, allowedNames: ['front-proxy-client'], http2: true });
    relay = await startFreezingRelay(ext.port);
    // client-go's variables, read when the server starts: a PING after 1 s without a read, 1 s for its ACK.
    process.env.HTTP2_READ_IDLE_TIMEOUT_SECONDS = '1';
    process.env.HTTP2_PING_TIMEOUT_SECONDS = '1';
    try {
      t = await startTestServer([...fp.flags, '--request-timeout=30s']);
    } finally {
      delete process.env.HTTP2_READ_IDLE_TIMEOUT_SECONDS;
      delete process.env.HTTP2_PING_TIMEOUT_SECONDS;
    }
    await externalService(t, 'default', 'pings');
    await registerApiService(t, PING_GROUP, 'v1', { service: { namespace: 'default', name: 'pings', port: relay.port }, caBundle: ext.caBundle });
  });

  after(async () => {
    await t?.stop();
    await relay?.stop();
    await ext?.stop();
    if (fp) rmSync(fp.dir, { recursive: true, force: true });
  });

  it('a quiet connection whose PINGs are answered is kept', async () => {
    expect((await t.get(PATH)).status).to.equal(200);
    const first = ext.callsTo(PATH).at(-1)!.remotePort;
    // Quiet past several health checks.
    await new Promise((r) => setTimeout(r, 3_500));
    expect((await t.get(PATH)).status).to.equal(200);
    expect(ext.callsTo(PATH).at(-1)!.remotePort).to.equal(first);
  });

  it('a connection that stops answering is closed and dropped: the request on it gets 503 `http2: client connection lost`, the next one a new connection', async () => {
    expect((await t.get(PATH)).status).to.equal(200);
    const port = ext.callsTo(PATH).at(-1)!.remotePort!;
    relay.freeze(port);
    // Lost within about 2 s (1 s quiet, 1 s for the ACK); without the check --request-timeout would answer 504.
    const r = await t.get(PATH);
    expect(r.status, r.text).to.equal(503);
    expect(r.text).to.equal('http2: client connection lost\n');
    expect(r.headers['content-type']).to.equal('text/plain; charset=utf-8');
    await eventually(async () => relay.closedByClient(port));
    const again = await t.get(PATH);
    expect(again.status, again.text).to.equal(200);
    expect(ext.callsTo(PATH).at(-1)!.remotePort).to.not.equal(port);
  });
});
