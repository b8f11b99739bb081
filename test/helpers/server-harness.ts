/**
 * Integration-test harness: the embedding API (lib/server/embed.ts startApiServer: a real etcd on
 * free loopback ports and the API server in this process on a free port), plus an HTTPS client
 * that presents the admin certificate.
 */
import https from 'node:https';
import { TestEtcd } from './etcd-harness';
import { RunningServer } from '../../lib/server/server';
import { startApiServer } from '../../lib/server/embed';

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
  const api = await startApiServer({
    // On a given etcd, kube-apiserver's default prefix: a restart or another replica finds the objects.
    etcd: opts.etcd, etcdPrefix: opts.etcd ? '/registry' : undefined,
    // ORCH_TEST_ETCD_CLIENT=etcd3 runs a suite's servers on the etcd3 package (flags given by the test still win).
    flags: ['--logging-format=json', ...(process.env.ORCH_TEST_ETCD_CLIENT ? [`--etcd-client=${process.env.ORCH_TEST_ETCD_CLIENT}`] : []), ...extraFlags],
  });
  const { server, caCertPem: ca, admin } = api;
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
    etcdEndpoint: api.etcd.endpoint,
    etcd: opts.etcd ?? api.etcd,
    request,
    get: (p, o) => request('GET', p, o),
    post: (p, b, o) => request('POST', p, { ...o, body: b }),
    put: (p, b, o) => request('PUT', p, { ...o, body: b }),
    del: (p, b, o) => request('DELETE', p, { ...o, body: b }),
    identity: api.identity,
    async stop() {
      agent.destroy();
      await api.stop();
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
