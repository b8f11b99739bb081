/**
 * Integration-test harness: a real etcd on free loopback ports and the API server in this
 * process on a free port, plus an HTTPS client that presents the admin certificate.
 */
import https from 'node:https';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestEtcd, TestEtcd } from './etcd-harness';
import { parseFlags } from '../../lib/server/flags';
import { RunningServer, startServer } from '../../lib/server/server';
import { signClientCertificate } from '../../lib/server/pki';

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body's bytes (for binary bodies such as protobuf); always set by request(). */
  raw?: Buffer;
  /** The body parsed as JSON, when it is JSON. */
  body: any;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body bytes or text, sent as is. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** Identity to present: default the admin certificate; `null` for none. */
  identity?: { certPem: string; keyPem: string } | null;
}

export interface TestServer {
  server: RunningServer;
  etcdEndpoint: string;
  /** The server's etcd; stopping it early simulates an outage (stop() is idempotent). */
  etcd: TestEtcd;
  request(method: string, urlPath: string, opts?: RequestOptions): Promise<HttpResponse>;
  get(urlPath: string, opts?: RequestOptions): Promise<HttpResponse>;
  post(urlPath: string, body: unknown, opts?: RequestOptions): Promise<HttpResponse>;
  put(urlPath: string, body: unknown, opts?: RequestOptions): Promise<HttpResponse>;
  del(urlPath: string, body?: unknown, opts?: RequestOptions): Promise<HttpResponse>;
  /** A client certificate for another user. */
  identity(commonName: string, groups?: string[]): { certPem: string; keyPem: string };
  stop(): Promise<void>;
}

/**
 * For suites about storage semantics (lists, selectors, watches, tables): namespaces without the
 * objects the service-account controllers put in each (the root-CA ConfigMap, the `default`
 * ServiceAccount), as kube-apiserver serves them without a controller manager beside it.
 */
export const WITHOUT_NAMESPACE_DEFAULTS = '--controllers=*,-serviceaccount,-root-ca-cert-publisher';

/**
 * A server on its own etcd, or with `opts.etcd` on that one (a restart, a second replica):
 * stop() then leaves that etcd running for its owner.
 */
export async function startTestServer(extraFlags: string[] = [], opts: { etcd?: TestEtcd } = {}): Promise<TestServer> {
  const etcd = opts.etcd ?? await startTestEtcd();
  const ownEtcd = !opts.etcd;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'orch-test-'));
  let server: RunningServer;
  try {
    server = await startServer(parseFlags([
      `--data-dir=${dataDir}`, `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', '--log-level=error', '--logging-format=json',
      // ORCH_TEST_ETCD_CLIENT=etcd3 runs a suite's servers on the etcd3 package (flags given by the test still win).
      ...(process.env.ORCH_TEST_ETCD_CLIENT ? [`--etcd-client=${process.env.ORCH_TEST_ETCD_CLIENT}`] : []), ...extraFlags,
    ]));
  } catch (err) {
    if (ownEtcd) await etcd.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const ca = server.pki.caCertPem;
  const admin = { certPem: readFileSync(server.pki.adminCertFile, 'utf8'), keyPem: readFileSync(server.pki.adminKeyFile, 'utf8') };
  const agent = new https.Agent({ keepAlive: true, ca });

  const request = (method: string, urlPath: string, opts: RequestOptions = {}) => new Promise<HttpResponse>((resolve, reject) => {
    const identity = opts.identity === undefined ? admin : opts.identity;
    const headers: Record<string, string> = { accept: 'application/json', ...(opts.headers ?? {}) };
    let payload: Buffer | undefined;
    if (opts.raw !== undefined) payload = Buffer.isBuffer(opts.raw) ? opts.raw : Buffer.from(opts.raw);
    else if (opts.body !== undefined) {
      payload = Buffer.from(JSON.stringify(opts.body));
      headers['content-type'] ??= 'application/json';
    }
    if (payload) headers['content-length'] = String(payload.length);
    const req = https.request(`${server.url}${urlPath}`, {
      method, headers, ca, agent: identity ? undefined : agent,
      cert: identity?.certPem, key: identity?.keyPem,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const text = raw.toString('utf8');
        let body: unknown;
        try { body = JSON.parse(text); } catch { body = undefined; }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, raw, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });

  return {
    server,
    etcdEndpoint: etcd.endpoint,
    etcd,
    request,
    get: (p, o) => request('GET', p, o),
    post: (p, b, o) => request('POST', p, { ...o, body: b }),
    put: (p, b, o) => request('PUT', p, { ...o, body: b }),
    del: (p, b, o) => request('DELETE', p, { ...o, body: b }),
    identity: (cn, groups = []) => signClientCertificate(server.pki, { commonName: cn, organizations: groups }),
    async stop() {
      agent.destroy();
      await server.stop();
      if (ownEtcd) await etcd.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls `fn` until it returns a truthy value or the time runs out (then throws). */
export async function eventually<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 15_000, stepMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/**
 * Waits until the store's revision, as a list of `listPath` reports it, holds still for 300 ms:
 * the writes of a server's start (ClusterRole aggregation, a new namespace's defaults) are over.
 * For tests that check that a refused request moved no revision.
 */
export async function untilStoreQuiet(t: TestServer, listPath: string): Promise<void> {
  const revision = async () => String((await t.get(listPath)).body.metadata?.resourceVersion);
  await eventually(async () => {
    const first = await revision();
    await new Promise((r) => setTimeout(r, 300));
    return (await revision()) === first;
  }, 10_000, 0);
}
