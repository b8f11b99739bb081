/**
 * Audit logging through the real server: --audit-policy-file decides each request's level,
 * --audit-log-path receives one JSON Event per stage; rotation by size; stdout; bad policies.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { AuditEventJson, readAuditEvents } from '../helpers/audit-log';
import { TestServer, eventually, startTestServer } from '../helpers/server-harness';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';

const MAIN = path.resolve(__dirname, '../../lib/server/main.js');

const POLICY = `
apiVersion: audit.orch.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
  - level: None
    namespaces: ["audit-none"]
  - level: RequestResponse
    namespaces: ["audit-rr"]
  - level: RequestResponse
    namespaces: ["audit-rr-omf"]
    omitManagedFields: true
  - level: Request
    namespaces: ["audit-req"]
  - level: Request
    namespaces: ["audit-omit"]
    omitStages: ["RequestReceived"]
  - level: Metadata
`;

type Event = AuditEventJson;
const readEvents = readAuditEvents;

const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' }, ...extra });

describe('audit log', function () {
  this.timeout(120_000);
  let t: TestServer;
  let dir: string;
  let logFile: string;

  /** The events of one request (by its Audit-Id), once its last stage is written. */
  const eventsOf = (id: string, last = 'ResponseComplete') => eventually(async () => {
    const evs = readEvents(logFile).filter((e) => e.auditID === id);
    return evs.some((e) => e.stage === last) ? evs : undefined;
  });
  const idOf = (r: { headers: Record<string, unknown> }) => r.headers['audit-id'] as string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'audit-log-'));
    logFile = path.join(dir, 'audit', 'audit.log');
    writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
    t = await startTestServer([`--audit-policy-file=${path.join(dir, 'policy.yaml')}`, `--audit-log-path=${logFile}`]);
    for (const ns of ['audit-none', 'audit-rr', 'audit-rr-omf', 'audit-req', 'audit-omit', 'audit-meta']) {
      expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).to.equal(201);
    }
  });
  after(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every response carries an Audit-Id, the client\'s own when it sends one', async () => {
    const r = await t.get('/api/v1/namespaces/default');
    expect(idOf(r)).to.match(/^[0-9a-f-]{36}$/);
    const own = await t.get('/api/v1/namespaces/default', { headers: { 'Audit-ID': 'my-own-id' } });
    expect(idOf(own)).to.equal('my-own-id');
  });

  it('RequestResponse: a create records RequestReceived then ResponseComplete with both objects', async () => {
    const r = await t.post('/api/v1/namespaces/audit-rr/configmaps', cm('c1'), { headers: { 'user-agent': 'audit-test/1.0' } });
    expect(r.status).to.equal(201);
    const evs = await eventsOf(idOf(r));
    expect(evs.map((e) => e.stage)).to.deep.equal(['RequestReceived', 'ResponseComplete']);
    const [received, done] = evs;
    expect(received).to.include({ kind: 'Event', apiVersion: 'audit.orch.io/v1', level: 'RequestResponse', verb: 'create', requestURI: '/api/v1/namespaces/audit-rr/configmaps', userAgent: 'audit-test/1.0' });
    expect(received.responseStatus).to.equal(undefined);
    expect(received.requestObject).to.equal(undefined);
    expect(done.objectRef).to.deep.equal({ resource: 'configmaps', namespace: 'audit-rr', name: 'c1', apiVersion: 'v1' });
    expect(done.responseStatus).to.deep.equal({ metadata: {}, code: 201 });
    expect(done.requestObject).to.deep.include({ kind: 'ConfigMap', data: { a: '1' } });
    expect(done.responseObject.metadata.uid).to.be.a('string');
    expect(done.responseObject.metadata.managedFields).to.be.an('array');
    expect(done.user.groups).to.include('system:masters');
    expect(done.sourceIPs).to.deep.equal(['127.0.0.1']);
    expect(done.annotations).to.include({ 'authorization.orch.io/decision': 'allow' });
    expect(done.requestReceivedTimestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(done.stageTimestamp >= done.requestReceivedTimestamp).to.equal(true);
  });

  it('omitManagedFields drops managedFields from objects and list items', async () => {
    const c = await t.post('/api/v1/namespaces/audit-rr-omf/configmaps', cm('c1'));
    const [, done] = await eventsOf(idOf(c));
    expect(done.responseObject.metadata).to.not.have.property('managedFields');
    expect(done.responseObject.metadata.name).to.equal('c1');
    const list = await t.get('/api/v1/namespaces/audit-rr-omf/configmaps');
    const evs = await eventsOf(idOf(list));
    const items = evs[1].responseObject.items as Event[];
    expect(items.map((i) => i.metadata.name)).to.include('c1');
    for (const i of items) expect(i.metadata).to.not.have.property('managedFields');
  });

  it('Request: update and patch record the request only; delete too', async () => {
    await t.post('/api/v1/namespaces/audit-req/configmaps', cm('c1'));
    const got = (await t.get('/api/v1/namespaces/audit-req/configmaps/c1')).body;
    const u = await t.put('/api/v1/namespaces/audit-req/configmaps/c1', { ...got, data: { a: '2' } });
    expect(u.status).to.equal(200);
    const [, upd] = await eventsOf(idOf(u));
    expect(upd).to.include({ level: 'Request', verb: 'update' });
    expect(upd.requestObject.data).to.deep.equal({ a: '2' });
    expect(upd.objectRef.uid).to.equal(got.metadata.uid);
    expect(upd).to.not.have.property('responseObject');
    const p = await t.request('PATCH', '/api/v1/namespaces/audit-req/configmaps/c1', { raw: '{"data":{"b":"3"}}', headers: { 'content-type': 'application/merge-patch+json' } });
    expect(p.status).to.equal(200);
    const [, pat] = await eventsOf(idOf(p));
    expect(pat.verb).to.equal('patch');
    expect(pat.requestObject).to.deep.equal({ data: { b: '3' } });
    expect(pat).to.not.have.property('responseObject');
    const d = await t.del('/api/v1/namespaces/audit-req/configmaps/c1');
    const [, del] = await eventsOf(idOf(d));
    expect(del).to.include({ verb: 'delete' });
    expect(del.responseStatus.code).to.equal(200);
    expect(del).to.not.have.property('responseObject');
  });

  it('Metadata: no objects; failures carry their status', async () => {
    const c = await t.post('/api/v1/namespaces/audit-meta/configmaps', cm('c1'));
    const [, created] = await eventsOf(idOf(c));
    expect(created.level).to.equal('Metadata');
    expect(created).to.not.have.property('requestObject');
    expect(created).to.not.have.property('responseObject');
    const missing = await t.get('/api/v1/namespaces/audit-meta/configmaps/nope');
    expect(missing.status).to.equal(404);
    const [, nf] = await eventsOf(idOf(missing));
    expect(nf.responseStatus).to.include({ code: 404, reason: 'NotFound', status: 'Failure' });
    expect(nf.responseStatus.message).to.contain('"nope" not found');
    const bad = await t.post('/api/v1/namespaces/audit-meta/configmaps', cm('Bad_Name'));
    expect(bad.status).to.equal(422);
    const [, inv] = await eventsOf(idOf(bad));
    expect(inv.responseStatus).to.include({ code: 422, reason: 'Invalid' });
  });

  it('a forbidden request records the authorization decision and reason', async () => {
    const r = await t.get('/api/v1/namespaces/audit-meta/secrets', { identity: t.identity('alice', []) });
    expect(r.status).to.equal(403);
    const [, done] = await eventsOf(idOf(r));
    expect(done.user.username).to.equal('alice');
    expect(done.responseStatus).to.include({ code: 403, reason: 'Forbidden' });
    expect(done.annotations['authorization.orch.io/decision']).to.equal('forbid');
    expect(done.annotations).to.have.property('authorization.orch.io/reason');
  });

  it('an impersonated request: user is the caller, impersonatedUser whom they act as', async () => {
    const r = await t.get('/api/v1/namespaces/audit-meta/configmaps', { headers: { 'Impersonate-User': 'bob', 'Impersonate-Group': 'team' } });
    expect(r.status).to.equal(403);
    const [, done] = await eventsOf(idOf(r));
    expect(done.user.groups).to.include('system:masters');
    expect(done.impersonatedUser).to.deep.include({ username: 'bob' });
    expect(done.impersonatedUser.groups).to.include('team');
    expect(done.annotations['authorization.orch.io/decision']).to.equal('forbid');
  });

  it('a failed authentication records one ResponseStarted event without a user', async () => {
    const r = await t.get('/api/v1/namespaces', { identity: null, headers: { authorization: 'Bearer not-a-token' } });
    expect(r.status).to.equal(401);
    const evs = await eventsOf(idOf(r), 'ResponseStarted');
    expect(evs).to.have.length(1);
    expect(evs[0].user).to.deep.equal({});
    expect(evs[0].responseStatus).to.deep.equal({ metadata: {}, message: 'Authentication failed, attempted: bearer', code: 401 });
    expect(JSON.stringify(evs[0])).to.not.contain('not-a-token');
  });

  it('a watch records ResponseStarted, then ResponseComplete when it ends', async () => {
    const r = await t.get('/api/v1/namespaces/audit-req/configmaps?watch=1&timeoutSeconds=1');
    expect(r.status).to.equal(200);
    const evs = await eventsOf(idOf(r));
    expect(evs.map((e) => e.stage)).to.deep.equal(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    expect(evs[1].responseStatus.code).to.equal(200);
    expect(evs[1].verb).to.equal('watch');
  });

  it('None writes nothing; omitStages leaves stages out', async () => {
    const none = await t.post('/api/v1/namespaces/audit-none/configmaps', cm('c1'));
    expect(none.status).to.equal(201);
    const omit = await t.post('/api/v1/namespaces/audit-omit/configmaps', cm('c1'));
    const evs = await eventsOf(idOf(omit));
    expect(evs.map((e) => e.stage)).to.deep.equal(['ResponseComplete']);
    // Written after the None request's would have been: the log is in order.
    expect(readEvents(logFile).filter((e) => e.auditID === idOf(none))).to.deep.equal([]);
  });

  it('a Secret\'s values never appear below RequestResponse, nor its patch', async () => {
    const body = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, data: { password: Buffer.from('hunter2').toString('base64') }, stringData: { token: 'sekret' } };
    const r = await t.post('/api/v1/namespaces/audit-req/secrets', body);
    expect(r.status).to.equal(201);
    const [, done] = await eventsOf(idOf(r));
    expect(done.requestObject.data).to.deep.equal({ password: '' });
    expect(done.requestObject.stringData).to.deep.equal({ token: '' });
    const p = await t.request('PATCH', '/api/v1/namespaces/audit-req/secrets/s1', { raw: '{"stringData":{"k":"patched-secret"}}', headers: { 'content-type': 'application/merge-patch+json' } });
    expect(p.status).to.equal(200);
    const [, pat] = await eventsOf(idOf(p));
    expect(pat).to.not.have.property('requestObject');
    const m = await t.post('/api/v1/namespaces/audit-meta/secrets', body);
    const [, meta] = await eventsOf(idOf(m));
    const text = readFileSync(logFile, 'utf8');
    expect(meta).to.not.have.property('requestObject');
    for (const secret of ['hunter2', Buffer.from('hunter2').toString('base64'), 'sekret', 'patched-secret']) expect(text).to.not.contain(secret);
  });
});

describe('audit log rotation, stdout and bad policies', function () {
  this.timeout(180_000);
  let dir: string;
  let etcd: TestEtcd;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'audit-rot-'));
    etcd = await startTestEtcd();
  });
  after(async () => {
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rotates at --audit-log-maxsize and keeps --audit-log-maxbackup backups', async () => {
    const policy = path.join(dir, 'rr.yaml');
    writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: RequestResponse\n    namespaces: ["big"]\n');
    const log = path.join(dir, 'rot', 'audit.log');
    const t = await startTestServer([`--audit-policy-file=${policy}`, `--audit-log-path=${log}`, '--audit-log-maxsize=1', '--audit-log-maxbackup=2'], { etcd });
    try {
      await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'big' } });
      const data = { v: 'x'.repeat(200_000) };
      // Each create is logged with its request and response (~400 KB): ten make several rotations.
      for (let i = 0; i < 10; i++) expect((await t.post('/api/v1/namespaces/big/configmaps', cm(`c${i}`, { data }))).status).to.equal(201);
    } finally {
      // Stopping flushes the log: the files are read once nothing renames or prunes them any more.
      await t.stop();
    }
    const backups = await eventually(async () => {
      const files = readdirSync(path.dirname(log)).filter((f) => f !== 'audit.log');
      return files.length === 2 ? files : undefined;
    });
    for (const f of backups) expect(f).to.match(/^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/);
    for (const f of [...backups, 'audit.log']) expect(readFileSync(path.join(path.dirname(log), f)).length).to.be.at.most(1024 * 1024);
  });

  it('`-` writes the events to stdout', async () => {
    const policy = path.join(dir, 'meta.yaml');
    writeFileSync(policy, 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n');
    const child = spawn(process.execPath, [MAIN, `--data-dir=${path.join(dir, 'stdout')}`, `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', '--log-level=error',
      `--audit-policy-file=${policy}`, '--audit-log-path=-'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => { out += c; });
    try {
      const url = await eventually(async () => /serving at (\S+)/.exec(out)?.[1], 60_000);
      // Any request, even one refused, is audited.
      await new Promise((resolve) => https.get(`${url}/version`, { rejectUnauthorized: false }, (res) => { res.resume(); res.on('end', resolve); }).on('error', resolve));
      const line = await eventually(async () => out.split('\n').find((l) => l.startsWith('{"kind":"Event"')), 60_000);
      expect(JSON.parse(line)).to.include({ apiVersion: 'audit.orch.io/v1', level: 'Metadata' });
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });

  const bad: [string, string, RegExp][] = [
    ['a level it does not know', 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: Everything\n', /rules\[0\]\.level: Unsupported value: "Everything"/],
    ['resources and nonResourceURLs together', 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: None\n    resources: [{group: ""}]\n    nonResourceURLs: ["/x"]\n', /rules cannot apply to both regular resources and non-resource URLs/],
    ['no rules', 'apiVersion: audit.orch.io/v1\nkind: Policy\n', /loaded illegal policy with 0 rules/],
    ['a wrong kind', 'apiVersion: audit.orch.io/v1\nkind: Policies\nrules: [{level: None}]\n', /unknown group version/],
  ];
  for (const [what, text, message] of bad) {
    it(`a policy file with ${what} stops the start with one line`, async () => {
      const file = path.join(dir, 'bad.yaml');
      writeFileSync(file, text);
      const child = spawn(process.execPath, [MAIN, `--data-dir=${path.join(dir, 'bad')}`, `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', `--audit-policy-file=${file}`],
        { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
      const code = await new Promise((r) => child.once('exit', r));
      expect(code).to.equal(1);
      const lines = stderr.split('\n').filter((l) => l.startsWith('orch-apiserver:'));
      expect(lines).to.have.length(1);
      expect(lines[0]).to.match(/loading audit policy file: /).and.match(message);
    });
  }
});
