/**
 * The server side of the fuzz suite: one in-process server on its own etcd (test/helpers/
 * server-harness.ts) with audit at RequestResponse (the audit filter decodes bodies too), a
 * seeded namespace `fuzz` holding one object of each targeted kind, a raw request function that
 * sends a path byte for byte, and a snapshot of the store read straight from etcd (every key
 * under the prefix with its mod revision) to prove that a refused request wrote nothing.
 */
import https from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Etcd3 } from 'etcd3';
import { eventually, HttpResponse, startTestServer, TestServer, WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';
import { cronTabSchema } from '../helpers/crd-fixtures';

export const NS = 'fuzz';
export const CM = `/api/v1/namespaces/${NS}/configmaps`;
export const SECRETS = `/api/v1/namespaces/${NS}/secrets`;
export const PODS = `/api/v1/namespaces/${NS}/pods`;
export const CR_GROUP = 'fuzz.example.com';
export const CT = `/apis/${CR_GROUP}/v1/namespaces/${NS}/crontabs`;

export interface FuzzServer {
  t: TestServer;
  /** Sends `body` to `rawPath` exactly as given (no URL normalisation). */
  send(method: string, rawPath: string, body?: string | Buffer, headers?: Record<string, string>): Promise<HttpResponse>;
  /** Every key under the etcd prefix as `key@modRevision`, sorted. */
  snapshot(): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * Keys that the server's own loops rewrite on their own schedule: leader leases, events, and the
 * default/kubernetes endpoints' lease keys (renewed every 10 s, each replica its own).
 */
const churning = (key: string) => key.startsWith('/registry/leases/') || key.startsWith('/registry/events/')
  || key.startsWith('/registry/masterleases/');

export async function startFuzzServer(): Promise<FuzzServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-fuzz-'));
  writeFileSync(path.join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: RequestResponse\n');
  const t = await startTestServer([WITHOUT_NAMESPACE_DEFAULTS, `--audit-policy-file=${path.join(dir, 'policy.yaml')}`, `--audit-log-path=${path.join(dir, 'audit.log')}`,
    '--audit-log-maxsize=5', '--audit-log-maxbackup=1']);
  const etcd = new Etcd3({ hosts: t.etcdEndpoint });
  const url = new URL(t.server.url);
  const ca = t.server.pki.caCertPem;
  const cert = readFileSync(t.server.pki.adminCertFile);
  const key = readFileSync(t.server.pki.adminKeyFile);
  const agent = new https.Agent({ keepAlive: true, maxSockets: 4 });

  const send = (method: string, rawPath: string, body?: string | Buffer, headers: Record<string, string> = {}) => new Promise<HttpResponse>((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body);
    const req = https.request({
      hostname: url.hostname, port: url.port, path: rawPath, method, ca, cert, key, agent,
      headers: { accept: 'application/json', ...(payload ? { 'content-length': String(payload.length), 'content-type': 'application/json' } : {}), ...headers },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const text = raw.toString('utf8');
        let parsed: unknown;
        try { parsed = JSON.parse(text); } catch { parsed = undefined; }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, raw, body: parsed });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });

  const ok = async (p: Promise<HttpResponse>, code = 201) => {
    const res = await p;
    expect(res.status, res.text.slice(0, 300)).to.equal(code);
    return res;
  };
  await ok(t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }));
  await ok(t.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', labels: { a: 'b' } }, data: { a: 'b' } }));
  await ok(t.post(SECRETS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'secret' }, stringData: { token: 'hush' } }));
  await ok(t.post(`/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }));
  await ok(t.post(PODS, {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pod', labels: { app: 'x' } },
    spec: { containers: [{ name: 'c', image: 'nginx', args: ['a', 'b'], ports: [{ containerPort: 80, name: 'http' }] }, { name: 'd', image: 'busybox' }] },
  }));
  const schema = cronTabSchema() as Record<string, any>;
  schema.properties.spec.properties.extra = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  await ok(t.post('/apis/apiextensions.orch.io/v1/customresourcedefinitions', {
    apiVersion: 'apiextensions.orch.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `crontabs.${CR_GROUP}` },
    spec: {
      group: CR_GROUP, scope: 'Namespaced', names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } }],
    },
  }));
  await eventually(async () => (await t.get(CT)).status === 200, 10_000, 50);
  await ok(t.post(CT, { apiVersion: `${CR_GROUP}/v1`, kind: 'CronTab', metadata: { name: 'ct' }, spec: { replicas: 1, extra: { a: [1, 2] } } }));

  return {
    t,
    send,
    async snapshot() {
      // Keys only: the values of what the fuzzer created (megabyte scalars) pass gRPC's 4 MiB.
      const res = await etcd.kv.range({ key: Buffer.from('/registry/'), range_end: Buffer.from('/registry0'), keys_only: true });
      return (res.kvs ?? []).map((kv) => `${kv.key.toString()}@${kv.mod_revision}`).filter((k) => !churning(k)).sort();
    },
    async stop() {
      agent.destroy();
      etcd.close();
      await t.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * What every answer to a hostile request must be: below 500; at 400 and above a Status whose
 * code is the HTTP status (when the answer is JSON at all: a 406 for an Accept it cannot serve is
 * still a Status in JSON).
 */
export function checkAnswer(res: HttpResponse, what: string): void {
  const show = () => `${what}\n-> ${res.status} ${res.text.slice(0, 400)}`;
  // Two answers that kube-apiserver gives as well, so allowed: a resourceVersion (here from a
  // forged continue token) past etcd's revision is 504 Timeout "Too large resource version"
  // with Retry-After 1 (k8s storage.NewTooLargeResourceVersionError); and a request line or
  // headers past Node's 16 KiB limit are refused by the HTTP parser with a bare 431, as Go's
  // server does past its own limit (1 MiB there), before any handler could write a Status.
  if (res.status === 504 && res.body?.reason === 'Timeout' && /^Too large resource version: \d+, current: \d+$/.test(res.body.message)) return;
  if (res.status === 431 && res.text === '') return;
  if (res.status >= 500) throw new Error(`5xx: ${show()}`);
  if (res.status >= 400) {
    if (!res.body || res.body.kind !== 'Status' || res.body.code !== res.status || res.body.status !== 'Failure') {
      throw new Error(`a ${res.status} without a matching Status: ${show()}`);
    }
    if (typeof res.body.message !== 'string') throw new Error(`a Status without a message: ${show()}`);
  }
}

/**
 * Sends one hostile request and checks it: the answer as in checkAnswer and, when it is refused
 * (4xx), the store exactly as it was. Returns the answer.
 */
export async function hostile(s: FuzzServer, method: string, rawPath: string, body?: string | Buffer, headers?: Record<string, string>): Promise<HttpResponse> {
  const before = await s.snapshot();
  const t0 = Date.now();
  const res = await s.send(method, rawPath, body, headers);
  const ms = Date.now() - t0;
  const what = `${method} ${rawPath.slice(0, 200)} ${headers ? JSON.stringify(headers) : ''} body(${body?.length ?? 0}): ${body === undefined ? '' : (Buffer.isBuffer(body) ? body.toString('hex') : body).slice(0, 300)}`;
  // Slow answers are reported, not failed (the machine may be loaded): they point at cost bugs.
  if (ms > 2000 && res.status !== 504) console.log(`      slow (${ms} ms, ${res.status}): ${what.slice(0, 300)}`);
  checkAnswer(res, what);
  if (res.status >= 400) {
    const after = await s.snapshot();
    if (JSON.stringify(after) !== JSON.stringify(before)) {
      const added = after.filter((k) => !before.includes(k));
      const gone = before.filter((k) => !after.includes(k));
      throw new Error(`the store changed on a ${res.status}: +${added.join(' +')} -${gone.join(' -')}\n${what}`);
    }
  }
  return res;
}

/** The process is alive and serving. */
export async function expectAlive(s: FuzzServer): Promise<void> {
  const res = await s.send('GET', '/livez');
  if (res.status !== 200) throw new Error(`livez ${res.status}: ${res.text}`);
}
