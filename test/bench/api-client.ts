/**
 * The load generator's HTTPS client: the admin identity from the server's kubeconfig and one
 * keep-alive agent whose socket count is the benchmark's concurrency.
 */
import https from 'node:https';
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
  private readonly agent: https.Agent;

  /**
   * @param maxSockets the concurrency: at most this many requests are on the wire at once.
   * @param auth the connection's client certificate (default), or a bearer token on every request and no certificate.
   */
  constructor(readonly conn: ServerConnection, maxSockets: number, private readonly auth: { bearerToken?: string } = {}) {
    const identity = auth.bearerToken === undefined ? { cert: conn.cert, key: conn.key } : {};
    this.agent = new https.Agent({ keepAlive: true, maxSockets, ca: conn.ca, ...identity });
  }

  /**
   * Sends one request (a body as JSON, with `contentType`, e.g. a patch type); resolves once the
   * whole body has arrived, whatever the status.
   */
  request(method: string, path: string, body?: unknown, contentType = 'application/json', discardBody = false): Promise<ApiResponse> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.auth.bearerToken !== undefined) headers.authorization = `Bearer ${this.auth.bearerToken}`;
    if (payload) {
      headers['content-type'] = contentType;
      headers['content-length'] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      const req = https.request(`${this.conn.url}${path}`, { method, headers, agent: this.agent }, (res) => {
        // Discarding counts the bytes as they arrive: no copy of a big body into one buffer.
        const chunks: Buffer[] = [];
        let bodyLength = 0;
        res.on('data', (c: Buffer) => { bodyLength += c.length; if (!discardBody) chunks.push(c); });
        res.on('end', () => resolve({
          status: res.statusCode ?? 0, body: Buffer.concat(chunks), bodyLength,
          contentLength: res.headers['content-length'] === undefined ? undefined : Number(res.headers['content-length']),
        }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** A request that must answer `expect` (default any 2xx); returns the parsed JSON body. */
  async json(method: string, path: string, body?: unknown, expect?: number): Promise<any> {
    const res = await this.request(method, path, body);
    const ok = expect === undefined ? res.status >= 200 && res.status < 300 : res.status === expect;
    if (!ok) throw new Error(`${method} ${path}: ${res.status} ${res.body.toString('utf8').slice(0, 300)}`);
    return JSON.parse(res.body.toString('utf8'));
  }

  close(): void {
    this.agent.destroy();
  }
}
