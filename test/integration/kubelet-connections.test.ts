/**
 * The node agent's connections through HTTPS against a real etcd and kubelets the test serves
 * (test/helpers/fake-kubelet.ts), as kube-apiserver 1.32 answers them: pods/log (the kubelet's
 * query, PodLogOptions validation, follow streaming, a kubelet's error as a Status), pods/exec,
 * attach and portforward upgrades passed through byte-exact (SPDY/3.1 and websocket, a kubelet's
 * refusal relayed, large payloads both ways), nodes/proxy and pods/proxy (paths, bodies,
 * hop-by-hop headers, Location rewriting, loopback refused), container choice and unbound pods,
 * the kubelet down or presenting a certificate of another CA, authorization of the connect verbs,
 * and discovery. The upgrade and log paths run on each HTTP/1.1 stack.
 */
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import https from 'node:https';
import http2 from 'node:http2';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readAuditEvents } from '../helpers/audit-log';
import { startTestServer, type TestServer } from '../helpers/server-harness';
import { startFakeKubelet, makeCert, type FakeKubelet } from '../helpers/fake-kubelet';
import { kubeletPki, nodeFor, RawUpgrade, type KubeletPki } from '../helpers/kubelet-setup';
import { freeLoopbackPort } from '../helpers/free-port';

const NS = 'kubelet-conn';
type Body = Record<string, any>;
const pods = (sub = '') => `/api/v1/namespaces/${NS}/pods${sub ? `/${sub}` : ''}`;
/** A non-loopback address of this machine, for the proxies (kube-apiserver refuses loopback there). */
const OUTSIDE = '192.0.2.2';

function podBody(name: string, nodeName: string | undefined, extra: Body = {}): Body {
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'app', image: 'registry.example.com/app:1', ports: [{ containerPort: 8443 }] }], ...extra },
  };
}

async function setup(t: TestServer, kubelet: FakeKubelet): Promise<void> {
  expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  const node = await t.post('/api/v1/nodes', nodeFor('node-1', kubelet));
  expect(node.status, node.text).to.equal(201);
  const status = await t.put('/api/v1/nodes/node-1/status', { ...node.body, status: nodeFor('node-1', kubelet).status });
  expect(status.status, status.text).to.equal(200);
  for (const [name, nodeName] of [['p', 'node-1'], ['missing', 'node-1'], ['unbound', undefined]] as const) {
    const r = await t.post(pods(), podBody(name, nodeName));
    expect(r.status, r.text).to.equal(201);
  }
}

/** A raw upgrade request to `path` as the admin; the answer head read. */
async function upgrade(t: TestServer, path: string, protocol: 'spdy' | 'websocket', method = 'POST', identity?: { certPem: string; keyPem: string }) {
  const who = identity ?? t.identity('admin-upgrader', ['system:masters']);
  const raw = await RawUpgrade.connect(t.server.url, { ca: t.server.pki.caCertPem, cert: who.certPem, key: who.keyPem });
  const headers = protocol === 'spdy'
    ? 'Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n'
    : `Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Protocol: base64.binary.k8s.io\r\n`;
  raw.write(`${method} ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer must-not-reach-the-kubelet\r\n${headers}\r\n`);
  return { raw, head: await raw.head() };
}

const STACKS: [string, string[]][] = [
  ['own HTTP/1.1', ['--http2-server=own', '--http1-server=own']],
  ['node:http beside the own HTTP/2', ['--http2-server=own', '--http1-server=node']],
  ['node:http2 fallback', ['--http2-server=node']],
];

for (const [stackName, stackFlags] of STACKS) {
  describe(`kubelet connections over ${stackName}`, () => {
    let t: TestServer;
    let pki: KubeletPki;
    let kubelet: FakeKubelet;
    before(async () => {
      pki = kubeletPki();
      kubelet = await startFakeKubelet({ clientCaPem: pki.clientCa.certPem, ca: pki.servingCa });
      t = await startTestServer([...pki.flags, ...stackFlags]);
      await setup(t, kubelet);
    });
    after(async () => {
      await t?.stop();
      await kubelet?.stop();
      if (pki) rmSync(pki.dir, { recursive: true, force: true });
    });

    it('pods/log: the kubelet\'s /containerLogs with its query, over the server\'s client certificate, without the client\'s credentials', async () => {
      const r = await t.get(pods('p/log?tailLines=5&timestamps=true&limitBytes=10&sinceSeconds=3&previous=false'), { headers: { authorization: 'Bearer nope' } });
      expect(r.status, r.text).to.equal(200);
      expect(r.headers['content-type']).to.equal('text/plain');
      expect(r.text).to.equal(`log ${NS}/p/app ?limitBytes=10&sinceSeconds=3&tailLines=5&timestamps=true\n`);
      const seen = kubelet.requests.filter((q) => q.url.startsWith(`/containerLogs/${NS}/p/app`)).at(-1)!;
      expect(seen.clientCn).to.equal('kube-apiserver-kubelet-client');
      expect(seen.headers.authorization).to.equal(undefined);
    });

    it('pods/log?follow=true streams each line as the kubelet writes it', async () => {
      const u = new URL(`${t.server.url}${pods('p/log?follow=true')}`);
      const admin = t.identity('admin-follower', ['system:masters']);
      const chunks: string[] = [];
      let ended = false;
      const req = https.request(u, { ca: t.server.pki.caCertPem, cert: admin.certPem, key: admin.keyPem }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (c: string) => chunks.push(c));
        res.on('end', () => { ended = true; });
      });
      req.end();
      const deadline = Date.now() + 10_000;
      while (!chunks.join('').includes('line 1') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(chunks.join('')).to.equal('line 1\n');
      expect(ended).to.equal(false);
      kubelet.releaseFollow();
      while (!ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(ended).to.equal(true);
      expect(chunks.join('')).to.equal('line 1\nline 2\n');
    });

    it('pods/exec over SPDY/3.1: the 101 comes back and bytes are echoed byte-exact both ways', async () => {
      const { raw, head } = await upgrade(t, pods('p/exec?command=cat&stdin=true&stdout=true&tty=false'), 'spdy');
      expect(head.status, head.text).to.equal(101);
      expect(head.text).to.match(/\r\nUpgrade: SPDY\/3\.1/i);
      expect(head.text).to.match(/\r\nX-Stream-Protocol-Version: v4\.channel\.k8s\.io/i);
      const payload = randomBytes(3 * 1024 * 1024);
      raw.write(payload);
      const echoed = await raw.read(payload.length, 30_000);
      expect(echoed.length).to.equal(payload.length);
      expect(createHash('sha256').update(echoed).digest('hex')).to.equal(createHash('sha256').update(payload).digest('hex'));
      raw.close();
      const seen = kubelet.requests.filter((q) => q.url.startsWith(`/exec/${NS}/p/app`)).at(-1)!;
      expect(seen.url).to.equal(`/exec/${NS}/p/app?command=cat&input=1&output=1`);
      expect(seen.method).to.equal('POST');
      expect(seen.headers.authorization).to.equal(undefined);
      expect(seen.clientCn).to.equal('kube-apiserver-kubelet-client');
    });

    it('an upgrade request on any other route is answered as usual, then the connection closes', async () => {
      const { raw, head } = await upgrade(t, `/api/v1/namespaces/${NS}`, 'websocket', 'GET');
      expect(head.status, head.text).to.equal(200);
      expect(JSON.parse((await raw.rest()).toString())).to.deep.include({ kind: 'Namespace' });
      expect(raw.closed).to.equal(true);
    });

    it('over HTTP/2 there is no upgrade: exec answers 400 `Upgrade request required`', async () => {
      const admin = t.identity('h2-admin', ['system:masters']);
      const session = http2.connect(t.server.url, { ca: t.server.pki.caCertPem, cert: admin.certPem, key: admin.keyPem, servername: 'localhost' });
      try {
        const stream = session.request({ ':method': 'POST', ':path': pods('p/exec?command=ls&stdout=true') });
        stream.end();
        let status = 0;
        const chunks: Buffer[] = [];
        stream.on('response', (h) => { status = Number(h[':status']); });
        stream.on('data', (c: Buffer) => chunks.push(c));
        await new Promise((r) => stream.on('end', r));
        expect(status).to.equal(400);
        expect(JSON.parse(Buffer.concat(chunks).toString())).to.deep.include({ reason: 'BadRequest', message: 'Upgrade request required' });
      } finally {
        session.close();
      }
    });

    it('pods/attach and pods/portforward over websocket: passed through to /attach and /portForward', async () => {
      const a = await upgrade(t, pods('p/attach?container=app&stdout=true'), 'websocket', 'GET');
      expect(a.head.status, a.head.text).to.equal(101);
      a.raw.write('attach-bytes');
      expect((await a.raw.read(12)).toString()).to.equal('attach-bytes');
      a.raw.close();
      const f = await upgrade(t, pods('p/portforward?ports=8080'), 'spdy');
      expect(f.head.status, f.head.text).to.equal(101);
      f.raw.write('pf');
      expect((await f.raw.read(2)).toString()).to.equal('pf');
      f.raw.close();
      const urls = kubelet.requests.map((q) => q.url);
      expect(urls).to.include(`/attach/${NS}/p/app?output=1`);
      expect(urls).to.include(`/portForward/${NS}/p?port=8080`);
    });
  });
}

describe('kubelet connections', () => {
  let t: TestServer;
  let pki: KubeletPki;
  let kubelet: FakeKubelet;
  /** Serves at a non-loopback address (the proxies refuse loopback ones). */
  let outside: FakeKubelet;
  /** Serves with a certificate of a CA the server does not trust. */
  let untrusted: FakeKubelet;
  before(async () => {
    pki = kubeletPki();
    kubelet = await startFakeKubelet({ clientCaPem: pki.clientCa.certPem, ca: pki.servingCa });
    outside = await startFakeKubelet({ host: OUTSIDE, clientCaPem: pki.clientCa.certPem, ca: pki.servingCa });
    untrusted = await startFakeKubelet();
    writeFileSync(path.join(pki.dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n');
    t = await startTestServer([...pki.flags, `--audit-policy-file=${path.join(pki.dir, 'policy.yaml')}`, `--audit-log-path=${path.join(pki.dir, 'audit.log')}`]);
    await setup(t, kubelet);
  });
  after(async () => {
    await t?.stop();
    await kubelet?.stop();
    await outside?.stop();
    await untrusted?.stop();
    if (pki) rmSync(pki.dir, { recursive: true, force: true });
  });

  async function node(name: string, k: { host: string; port: number }, type = 'InternalIP'): Promise<void> {
    const created = await t.post('/api/v1/nodes', nodeFor(name, k, type));
    expect(created.status, created.text).to.equal(201);
    const r = await t.put(`/api/v1/nodes/${name}/status`, { ...created.body, status: nodeFor(name, k, type).status });
    expect(r.status, r.text).to.equal(200);
  }

  describe('pods/log', () => {
    const TABLE: [string, string, { field: string; message: string; reason: string }[]][] = [
      ['tailLines=-1', 'tailLines: Invalid value: -1: must be greater than or equal to 0', [{ field: 'tailLines', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' }]],
      ['limitBytes=0', 'limitBytes: Invalid value: 0: must be greater than 0', [{ field: 'limitBytes', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0' }]],
      ['sinceSeconds=0', 'sinceSeconds: Invalid value: 0: must be greater than 0', [{ field: 'sinceSeconds', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0' }]],
      ['sinceSeconds=5&sinceTime=2026-01-02T03:04:05Z', ': Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified',
        [{ field: '', reason: 'FieldValueForbidden', message: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified' }]],
    ];
    for (const [q, message, causes] of TABLE) {
      it(`?${q}: 422 PodLogOptions with Kubernetes' cause, the kubelet not asked`, async () => {
        const before = kubelet.requests.length;
        const r = await t.get(pods(`p/log?${q}`));
        expect(r.status, r.text).to.equal(422);
        expect(r.body).to.deep.include({ reason: 'Invalid', message: `PodLogOptions "p" is invalid: ${message}`, code: 422 });
        expect(r.body.details.causes).to.deep.equal(causes);
        expect(kubelet.requests.length).to.equal(before);
      });
    }

    it('tailLines=0 is valid and sinceTime goes on as RFC 3339 seconds', async () => {
      const r = await t.get(pods('p/log?tailLines=0&sinceTime=2026-01-02T03:04:05.123Z&follow=false'));
      expect(r.status, r.text).to.equal(200);
      expect(r.text).to.equal(`log ${NS}/p/app ?sinceTime=2026-01-02T03%3A04%3A05Z&tailLines=0\n`);
    });

    it('a bad number is 400 with Go\'s parse error', async () => {
      const r = await t.get(pods('p/log?tailLines=ten'));
      expect(r.status).to.equal(400);
      expect(r.body).to.deep.include({ reason: 'BadRequest', message: 'strconv.ParseInt: parsing "ten": invalid syntax' });
    });

    it('the kubelet\'s 404 becomes NewGenericServerResponse\'s Status', async () => {
      const r = await t.get(pods('missing/log'));
      expect(r.status, r.text).to.equal(404);
      expect(r.body).to.deep.include({ reason: 'NotFound', message: 'the server could not find the requested resource ( pods/log missing)', code: 404 });
      expect(r.body.details).to.deep.equal({ name: 'missing', kind: 'pods/log', causes: [{ reason: 'UnexpectedServerResponse', message: 'pods "missing" not found' }] });
    });

    it('an unbound pod has no logs yet: 204, nothing dialled', async () => {
      const r = await t.get(pods('unbound/log'));
      expect(r.status).to.equal(204);
      expect(r.text).to.equal('');
    });

    it('a pod or node that does not exist: 404', async () => {
      const r = await t.get(pods('nope/log'));
      expect(r.status).to.equal(404);
      expect(r.body.message).to.equal('pods "nope" not found');
      expect((await t.post(pods(), podBody('orphan', 'no-such-node'))).status).to.equal(201);
      const o = await t.get(pods('orphan/log'));
      expect(o.status).to.equal(404);
      expect(o.body.message).to.equal('nodes "no-such-node" not found');
    });
  });

  describe('container choice', () => {
    before(async () => {
      const two = podBody('two', 'node-1', { initContainers: [{ name: 'init', image: 'registry.example.com/init:1' }] });
      two.spec.containers.push({ name: 'side', image: 'registry.example.com/side:1' });
      expect((await t.post(pods(), two)).status).to.equal(201);
    });
    for (const sub of ['log', 'exec?command=ls']) {
      it(`${sub.split('?')[0]}: no container of several, or an unknown one, is 400 with Kubernetes' message`, async () => {
        const [s, q] = sub.split('?');
        const none = await t.request(s === 'log' ? 'GET' : 'POST', pods(`two/${s}${q ? `?${q}` : ''}`));
        expect(none.status, none.text).to.equal(400);
        expect(none.body.message).to.equal('a container name must be specified for pod two, choose one of: [init app side]');
        const bad = await t.request(s === 'log' ? 'GET' : 'POST', pods(`two/${s}?container=nope${q ? `&${q}` : ''}`));
        expect(bad.status).to.equal(400);
        expect(bad.body.message).to.equal('container nope is not valid for pod two');
      });
    }
    it('the init container may be named', async () => {
      const r = await t.get(pods('two/log?container=init'));
      expect(r.status, r.text).to.equal(200);
      expect(r.text).to.equal(`log ${NS}/two/init \n`);
    });
  });

  describe('exec, attach, portforward', () => {
    it('an unbound pod: 400 `pod ... does not have a host assigned`', async () => {
      const { raw, head } = await upgrade(t, pods('unbound/exec?command=ls&stdout=true'), 'spdy');
      expect(head.status).to.equal(400);
      const body = JSON.parse((await raw.rest()).toString());
      expect(body).to.deep.include({ reason: 'BadRequest', message: 'pod unbound does not have a host assigned', code: 400 });
    });

    it('without an upgrade: 400 `Upgrade request required`', async () => {
      const r = await t.post(pods('p/exec?command=ls&stdout=true'), undefined);
      expect(r.status).to.equal(400);
      expect(r.body).to.deep.include({ reason: 'BadRequest', message: 'Upgrade request required' });
    });

    it('a kubelet refusing the upgrade: its answer is relayed as it is', async () => {
      const k = { host: kubelet.host, port: kubelet.port };
      await node('refusing', k);
      expect((await t.post(pods(), podBody('refuse', 'refusing', { containers: [{ name: 'refuse', image: 'registry.example.com/app:1' }] }))).status).to.equal(201);
      const { raw, head } = await upgrade(t, pods('refuse/exec?command=ls&stdout=true'), 'websocket', 'GET');
      expect(head.status, head.text).to.equal(403);
      expect((await raw.rest()).toString()).to.equal('forbidden');
    });

    it('the kubelet down: 500 `error dialing backend: ...` with no reason, as kube-apiserver', async () => {
      const port = await freeLoopbackPort();
      await node('down', { host: '127.0.0.1', port });
      expect((await t.post(pods(), podBody('on-down', 'down'))).status).to.equal(201);
      const { raw, head } = await upgrade(t, pods('on-down/exec?command=ls&stdout=true'), 'spdy');
      expect(head.status).to.equal(500);
      const body = JSON.parse((await raw.rest()).toString());
      expect(body).to.deep.equal({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
        message: `error dialing backend: dial tcp 127.0.0.1:${port}: connect: connection refused`, code: 500 });
      const log = await t.get(pods('on-down/log'));
      expect(log.status).to.equal(500);
      expect(log.body.message).to.equal(`Get "https://127.0.0.1:${port}/containerLogs/${NS}/on-down/app": dial tcp 127.0.0.1:${port}: connect: connection refused`);
    });

    it('a kubelet whose certificate is not signed by --kubelet-certificate-authority is refused', async () => {
      await node('untrusted', untrusted);
      expect((await t.post(pods(), podBody('on-untrusted', 'untrusted'))).status).to.equal(201);
      const { raw, head } = await upgrade(t, pods('on-untrusted/exec?command=ls&stdout=true'), 'spdy');
      expect(head.status).to.equal(500);
      expect(JSON.parse((await raw.rest()).toString()).message)
        .to.equal('error dialing backend: tls: failed to verify certificate: x509: certificate signed by unknown authority');
      expect(untrusted.requests).to.have.length(0);
      const log = await t.get(pods('on-untrusted/log'));
      expect(log.status).to.equal(500);
      expect(log.body.message).to.equal(`Get "https://127.0.0.1:${untrusted.port}/containerLogs/${NS}/on-untrusted/app": tls: failed to verify certificate: x509: certificate signed by unknown authority`);
      // pods/log may waive the check for one request, as kube-apiserver's insecureSkipTLSVerifyBackend does.
      const waived = await t.get(pods('on-untrusted/log?insecureSkipTLSVerifyBackend=true'));
      expect(waived.status, waived.text).to.equal(200);
      expect(waived.text).to.equal(`log ${NS}/on-untrusted/app \n`);
    });

    it('a kubelet requiring a client certificate of another CA refuses the server: 500, error dialing backend', async () => {
      const strict = await startFakeKubelet({ clientCaPem: makeCert({ cn: 'other-ca', ca: true }).certPem, ca: pki.servingCa });
      try {
        await node('strict', strict);
        expect((await t.post(pods(), podBody('on-strict', 'strict'))).status).to.equal(201);
        const { raw, head } = await upgrade(t, pods('on-strict/exec?command=ls&stdout=true'), 'spdy');
        expect(head.status).to.equal(500);
        // TLS 1.3: the kubelet's refusal arrives after the handshake, as the answer is read (Go reads it as EOF too).
        expect(JSON.parse((await raw.rest()).toString()).message).to.match(/^error dialing backend: |^EOF$/);
        expect(strict.requests).to.have.length(0);
      } finally {
        await strict.stop();
      }
    });
  });

  describe('authorization', () => {
    let logReader: { certPem: string; keyPem: string };
    before(async () => {
      const rbac = t.server.naming.group('rbac.authorization');
      const role = await t.post(`/apis/${rbac}/v1/namespaces/${NS}/roles`, {
        apiVersion: `${rbac}/v1`, kind: 'Role', metadata: { name: 'log-reader' },
        rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get'] }],
      });
      expect(role.status, role.text).to.equal(201);
      const binding = await t.post(`/apis/${rbac}/v1/namespaces/${NS}/rolebindings`, {
        apiVersion: `${rbac}/v1`, kind: 'RoleBinding', metadata: { name: 'log-reader' },
        roleRef: { apiGroup: rbac, kind: 'Role', name: 'log-reader' }, subjects: [{ kind: 'User', name: 'reader' }],
      });
      expect(binding.status, binding.text).to.equal(201);
      logReader = t.identity('reader');
    });

    it('get pods/log is enough for logs; exec (POST) needs create on pods/exec: 403 before anything is dialled', async () => {
      const ok = await t.get(pods('p/log'), { identity: logReader });
      expect(ok.status, ok.text).to.equal(200);
      const before = kubelet.requests.length;
      const { raw, head } = await upgrade(t, pods('p/exec?command=ls&stdout=true'), 'spdy', 'POST', logReader);
      expect(head.status).to.equal(403);
      expect(JSON.parse((await raw.rest()).toString()).message)
        .to.equal(`pods "p" is forbidden: User "reader" cannot create resource "pods/exec" in API group "" in the namespace "${NS}"`);
      const ws = await upgrade(t, pods('p/exec?command=ls&stdout=true'), 'websocket', 'GET', logReader);
      expect(ws.head.status).to.equal(403);
      expect(JSON.parse((await ws.raw.rest()).toString()).message)
        .to.equal(`pods "p" is forbidden: User "reader" cannot get resource "pods/exec" in API group "" in the namespace "${NS}"`);
      expect(kubelet.requests.length).to.equal(before);
    });

    it('connect requests are audited as their verb on the subresource, refused ones too', async () => {
      await upgrade(t, pods('p/exec?command=ls&stdout=true'), 'spdy', 'POST', logReader).then(({ raw }) => raw.rest());
      const logs = await t.get(pods('p/log'), { identity: logReader });
      expect(logs.status).to.equal(200);
      let events: Body[] = [];
      const deadline = Date.now() + 10_000;
      const mine = () => readAuditEvents(path.join(pki.dir, 'audit.log')).filter((e) => e.user?.username === 'reader' && e.stage === 'ResponseComplete');
      while (Date.now() < deadline && (events = mine()).filter((e) => ['exec', 'log'].includes(e.objectRef?.subresource)).length < 2) await new Promise((r) => setTimeout(r, 100));
      const exec = events.find((e) => e.objectRef?.subresource === 'exec')!;
      expect(exec).to.deep.include({ verb: 'create' });
      expect(exec.objectRef).to.deep.include({ resource: 'pods', namespace: NS, name: 'p', subresource: 'exec' });
      expect(exec.responseStatus.code).to.equal(403);
      const log = events.find((e) => e.objectRef?.subresource === 'log')!;
      expect(log).to.deep.include({ verb: 'get' });
      expect(log.responseStatus.code).to.equal(200);
    });

    it('nodes/proxy is authorized as get on nodes/proxy', async () => {
      const r = await t.get('/api/v1/nodes/node-1/proxy/healthz', { identity: logReader });
      expect(r.status).to.equal(403);
      expect(r.body.message).to.equal('nodes "node-1" is forbidden: User "reader" cannot get resource "nodes/proxy" in API group "" at the cluster scope');
    });
  });

  describe('nodes/proxy and pods/proxy', () => {
    before(async () => {
      await node('outside', outside);
      const p = podBody('web', 'outside');
      expect((await t.post(pods(), p)).status).to.equal(201);
      const cur = await t.get(pods('web'));
      const s = await t.put(pods('web/status'), { ...cur.body, status: { ...cur.body.status, phase: 'Running', podIP: OUTSIDE, podIPs: [{ ip: OUTSIDE }] } });
      expect(s.status, s.text).to.equal(200);
    });

    it('nodes/proxy: the path below /proxy and the query reach the kubelet; the answer comes back without CORS headers', async () => {
      const r = await t.get('/api/v1/nodes/outside/proxy/stats/summary?only_cpu_and_memory=true');
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.deep.equal({ method: 'GET', path: '/stats/summary', query: '?only_cpu_and_memory=true', body: '' });
      expect(r.headers['access-control-allow-origin']).to.equal(undefined);
    });

    it('nodes/proxy: a body is passed on, and a Location on the kubelet\'s host is put under the proxy path', async () => {
      const post = await t.post('/api/v1/nodes/outside/proxy/run/x', { hello: 'kubelet' });
      expect(post.status).to.equal(200);
      expect(post.body).to.include({ method: 'POST', path: '/run/x', body: '{"hello":"kubelet"}' });
      const redirect = await t.get('/api/v1/nodes/outside/proxy/redirect');
      expect(redirect.status).to.equal(302);
      expect(redirect.headers.location).to.equal('/api/v1/nodes/outside/proxy/elsewhere');
      expect(redirect.headers['x-hop']).to.equal(undefined);
    });

    it('an empty proxy path is redirected to one ending in /', async () => {
      const r = await t.get('/api/v1/nodes/outside/proxy?a=1');
      expect(r.status).to.equal(301);
      expect(r.headers.location).to.equal('/api/v1/nodes/outside/proxy/?a=1');
    });

    it('a node or pod on a loopback address: 400 `address not allowed`', async () => {
      const n = await t.get('/api/v1/nodes/node-1/proxy/healthz');
      expect(n.status).to.equal(400);
      expect(n.body).to.deep.include({ reason: 'BadRequest', message: 'address not allowed' });
      const p = await t.get(pods('p/proxy/'));
      expect(p.status).to.equal(400);
      expect(p.body.message).to.equal('address not allowed');
    });

    it('pods/proxy goes to the pod\'s IP and the port asked for (https:name:port), its certificate not checked', async () => {
      const app = await startFakeKubelet({ host: OUTSIDE });
      try {
        const r = await t.request('PUT', pods(`https:web:${app.port}/proxy/api/thing?x=y`), { body: { v: 1 } });
        expect(r.status, r.text).to.equal(200);
        expect(r.body).to.deep.equal({ method: 'PUT', path: '/api/thing', query: '?x=y', body: '{"v":1}' });
        // A backend that wants a client certificate does not get the kubelet client's.
        const strict = await t.get(pods(`https:web:${outside.port}/proxy/`));
        expect(strict.status).to.equal(500);
        expect(strict.body.message).to.equal('remote error: tls: certificate required');
      } finally {
        await app.stop();
      }
    });

    it('a malformed proxy name is 400 as kube answers it', async () => {
      const r = await t.get(pods('ftp:web:80/proxy/'));
      expect(r.status).to.equal(400);
      expect(r.body.message).to.equal('invalid pod request "ftp:web:80"');
      const n = await t.get('/api/v1/nodes/a:b:c:d/proxy/');
      expect(n.status).to.equal(400);
      expect(n.body.message).to.equal('invalid node request "a:b:c:d"');
    });
  });

  describe('services/proxy', () => {
    let app: FakeKubelet;
    const svc = (name: string, port = 80) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ name: 'web', port, targetPort: 8443 }] } });
    const eps = (name: string, subsets: Body[]) => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name }, subsets });
    before(async () => {
      app = await startFakeKubelet({ host: OUTSIDE });
      if (!(await t.get(pods('web'))).body?.status?.podIP) throw new Error('pods/proxy set-up did not run');
      for (const name of ['svc', 'empty', 'stray']) {
        const r = await t.post(`/api/v1/namespaces/${NS}/services`, svc(name));
        expect(r.status, r.text).to.equal(201);
      }
      const ready = (ref: string) => [{ addresses: [{ ip: OUTSIDE, targetRef: { kind: 'Pod', namespace: NS, name: ref } }], ports: [{ name: 'web', port: app.port }] }];
      for (const [name, subsets] of [['svc', ready('web')], ['empty', []], ['stray', ready('p')]] as const) {
        const r = await t.post(`/api/v1/namespaces/${NS}/endpoints`, eps(name, subsets as Body[]));
        expect(r.status, r.text).to.equal(201);
      }
    });
    after(async () => { await app?.stop(); });

    it('goes to a ready endpoint of the port asked for by number (its name looked up in the Service)', async () => {
      const r = await t.get(`/api/v1/namespaces/${NS}/services/https:svc:80/proxy/hello?q=1`);
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.deep.equal({ method: 'GET', path: '/hello', query: '?q=1', body: '' });
      const named = await t.get(`/api/v1/namespaces/${NS}/services/https:svc:web/proxy/named`);
      expect(named.status, named.text).to.equal(200);
      expect(named.body.path).to.equal('/named');
    });

    it('no endpoint, no such port, an address that is no pod\'s: 503 with Kubernetes\' messages', async () => {
      const cases: [string, string][] = [
        ['empty:80', 'no endpoints available for service "empty"'],
        ['svc:81', 'no service port 81 found for service "svc"'],
        ['https:stray:80', 'no endpoints available for service "https:stray:80"'],
      ];
      for (const [id, message] of cases) {
        const r = await t.get(`/api/v1/namespaces/${NS}/services/${id}/proxy/`);
        expect(r.status, id).to.equal(503);
        expect(r.body).to.deep.equal({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'ServiceUnavailable', code: 503 });
      }
      const missing = await t.get(`/api/v1/namespaces/${NS}/services/nope:80/proxy/`);
      expect(missing.status).to.equal(404);
      expect(missing.body.message).to.equal('services "nope" not found');
    });
  });

  it('discovery lists the connect subresources with their verbs', async () => {
    const r = await t.get('/api/v1');
    const byName = new Map<string, Body>(r.body.resources.map((x: Body) => [x.name, x]));
    expect(byName.get('pods/exec')).to.deep.include({ kind: 'PodExecOptions', verbs: ['create', 'get'], namespaced: true });
    expect(byName.get('pods/log')).to.deep.include({ kind: 'Pod', verbs: ['get'] });
    expect(byName.get('pods/portforward')).to.deep.include({ kind: 'PodPortForwardOptions', verbs: ['create', 'get'] });
    expect(byName.get('pods/proxy')).to.deep.include({ kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] });
    expect(byName.get('nodes/proxy')).to.deep.include({ kind: 'NodeProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'], namespaced: false });
    expect(byName.get('services/proxy')).to.deep.include({ kind: 'ServiceProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'], namespaced: true });
  });
});
