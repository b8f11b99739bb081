/**
 * The load generator's HTTP/1.1 client: the admin identity from the server's kubeconfig and one
 * keep-alive pool whose connection count is the benchmark's concurrency. The pool is undici's
 * (Node's own fetch is built on it): for the same creates it needs ~40% less CPU than an
 * `https.Agent` (115-131 against 203-235 µs per request), and the load generator shares the
 * machine's cores with the server and etcd.
 */
import { Dispatcher, Pool } from 'undici';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/** Where the server is and how to authenticate to it, as read from a kubeconfig. */
export interface ServerConnection {
  /** e.g. `https://127.0.0.1:40123` */
  url: string;
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

export interface ApiResponse {
  status: number;
  /** The raw body: benchmarks decide whether parsing it is part of what they measure. */
  body: Buffer;
  /** Bytes received; with `discardBody` the body is empty and only this is kept. */
  bodyLength: number;
  /** The Content-Length header as a number, when sent. */
  contentLength?: number;
}

/** The first cluster and user of a kubeconfig written by the server (certificate data inline). */
export function loadKubeconfig(file: string): ServerConnection {
  const config = parseYaml(readFileSync(file, 'utf8'));
  const cluster = config.clusters[0].cluster;
  const user = config.users[0].user;
  const b64 = (s: string) => Buffer.from(s, 'base64');
  return {
    url: cluster.server,
    ca: b64(cluster['certificate-authority-data']),
    cert: b64(user['client-certificate-data']),
    key: b64(user['client-key-data']),
  };
}

export class ApiClient {
  private readonly pool: Pool;

  /**
   * @param maxSockets the concurrency: at most this many connections, one request on each at a time.
   * @param auth the connection's client certificate (default), or a bearer token on every request and no certificate.
   */
  constructor(readonly conn: ServerConnection, maxSockets: number, private readonly auth: { bearerToken?: string } = {}) {
    const identity = auth.bearerToken === undefined ? { cert: conn.cert, key: conn.key } : {};
    // Connections stay open between a benchmark's rounds (undici closes idle ones after 4 s by
    // default, and each round would then start with new TLS handshakes).
    this.pool = new Pool(conn.url, {
      connections: maxSockets, pipelining: 1, keepAliveTimeout: 600_000, keepAliveMaxTimeout: 600_000,
      connect: { ca: conn.ca, ...identity },
    });
  }

  /**
   * Sends one request (a body as JSON, with `contentType`, e.g. a patch type); resolves once the
   * whole body has arrived, whatever the status.
   */
  async request(method: string, path: string, body?: unknown, contentType = 'application/json', discardBody = false): Promise<ApiResponse> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.auth.bearerToken !== undefined) headers.authorization = `Bearer ${this.auth.bearerToken}`;
    if (payload) headers['content-type'] = contentType;
    // undici closes the connection after a body sent with a method that does not expect one
    // (DELETE with DeleteOptions, as kubectl sends it), unless told not to. client-go and kubectl
    // keep it, and the server reads such a body, so the connection is kept here too.
    const res = await this.pool.request({ method: method as Dispatcher.HttpMethod, path, headers, body: payload, reset: false });
    const length = res.headers['content-length'];
    return new Promise((resolve, reject) => {
      // Discarding counts the bytes as they arrive: no copy of a big body into one buffer.
      const chunks: Buffer[] = [];
      let bodyLength = 0;
      res.body.on('data', (c: Buffer) => { bodyLength += c.length; if (!discardBody) chunks.push(c); });
      res.body.on('end', () => resolve({
        status: res.statusCode, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), bodyLength,
        contentLength: length === undefined ? undefined : Number(length),
      }));
      res.body.on('error', reject);
    });
  }

  /** A request that must answer `expect` (default any 2xx); returns the parsed JSON body. */
  async json(method: string, path: string, body?: unknown, expect?: number): Promise<any> {
    const res = await this.request(method, path, body);
    const ok = expect === undefined ? res.status >= 200 && res.status < 300 : res.status === expect;
    if (!ok) throw new Error(`${method} ${path}: ${res.status} ${res.body.toString('utf8').slice(0, 300)}`);
    return JSON.parse(res.body.toString('utf8'));
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
