/**
 * A client for a server running as another process (server-process.ts), from its admin
 * kubeconfig: requests over one HTTP/2 session or over HTTP/1.1 (a keep-alive agent), and watches
 * over either that record how their stream ended: cleanly (HTTP/2 END_STREAM, HTTP/1.1 last
 * chunk) or cut (reset, socket closed mid-body, error).
 */
import http2 from 'node:http2';
import https from 'node:https';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface Credentials {
  url: string;
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

export function readKubeconfig(file: string): Credentials {
  const config = parseYaml(readFileSync(file, 'utf8'));
  const cluster = config.clusters[0].cluster;
  const user = config.users[0].user;
  const b64 = (s: string) => Buffer.from(s, 'base64');
  return { url: cluster.server, ca: b64(cluster['certificate-authority-data']), cert: b64(user['client-certificate-data']), key: b64(user['client-key-data']) };
}

export interface Reply {
  status: number;
  headers: Record<string, unknown>;
  text: string;
  body: any;
}

const parse = (text: string): unknown => {
  try { return JSON.parse(text); } catch { return undefined; }
};

/** Requests over one HTTP/2 session (reconnected when it goes away). */
export class H2Client {
  private session?: http2.ClientHttp2Session;
  /** Sessions opened so far (1 + reconnections). */
  connects = 0;

  constructor(readonly creds: Credentials, private readonly url = creds.url) {}

  connect(): http2.ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    this.connects++;
    const s = http2.connect(this.url, { ca: this.creds.ca, cert: this.creds.cert, key: this.creds.key });
    s.on('error', () => undefined);
    s.on('goaway', () => { if (this.session === s) this.session = undefined; });
    s.on('close', () => { if (this.session === s) this.session = undefined; });
    this.session = s;
    return s;
  }

  request(method: string, path: string, body?: unknown, timeoutMs = 30_000): Promise<Reply> {
    return new Promise((resolve, reject) => {
      let stream: http2.ClientHttp2Stream;
      try {
        stream = this.connect().request({ ':method': method, ':path': path, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) });
      } catch (err) {
        reject(err);
        return;
      }
      const timer = setTimeout(() => stream.close(http2.constants.NGHTTP2_CANCEL), timeoutMs);
      let headers: Record<string, unknown> = {};
      const chunks: Buffer[] = [];
      stream.on('response', (h) => { headers = h; });
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: Number(headers[':status']), headers, text, body: parse(text) });
      });
      stream.on('error', (err) => { clearTimeout(timer); reject(err); });
      stream.on('close', () => { clearTimeout(timer); if (stream.rstCode) reject(new Error(`stream reset (${stream.rstCode})`)); });
      stream.end(body !== undefined ? JSON.stringify(body) : undefined);
    });
  }

  close(): void {
    this.session?.close();
    this.session = undefined;
  }

  destroy(): void {
    this.session?.destroy();
    this.session = undefined;
  }
}

/** Requests over HTTP/1.1 keep-alive connections. */
export class H1Client {
  readonly agent: https.Agent;

  constructor(readonly creds: Credentials, maxSockets = 8) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets, ca: creds.ca, cert: creds.cert, key: creds.key });
  }

  request(method: string, path: string, body?: unknown): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const payload = body !== undefined ? Buffer.from(JSON.stringify(body)) : undefined;
      const req = https.request(`${this.creds.url}${path}`, {
        method, agent: this.agent,
        headers: { accept: 'application/json', ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parse(text) });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** How a watch stream ended. */
export type WatchEnd = 'clean' | 'cut';

/** A watch whose events and end are recorded. */
export interface OpenedWatch {
  events: Array<{ type: string; object: any }>;
  status: number;
  /** Resolves with how the stream ended. */
  ended: Promise<WatchEnd>;
  cancel(): void;
}

function lines(onEvent: (ev: { type: string; object: any }) => void): (chunk: Buffer) => void {
  let buf = '';
  return (chunk) => {
    buf += chunk.toString('utf8');
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.trim()) onEvent(JSON.parse(line));
    }
  };
}

/** A watch on an HTTP/2 stream of `client`'s session; resolves once the response headers are in. */
export function watchH2(client: H2Client, path: string): Promise<OpenedWatch> {
  return new Promise((resolve, reject) => {
    const stream = client.connect().request({ ':method': 'GET', ':path': path, accept: 'application/json' });
    const w: OpenedWatch = { events: [], status: 0, ended: undefined as unknown as Promise<WatchEnd>, cancel: () => stream.close(http2.constants.NGHTTP2_CANCEL) };
    let gotEnd = false;
    w.ended = new Promise<WatchEnd>((done) => {
      stream.on('end', () => { gotEnd = true; });
      stream.on('error', () => undefined);
      stream.on('close', () => done(gotEnd && stream.rstCode === http2.constants.NGHTTP2_NO_ERROR ? 'clean' : 'cut'));
    });
    stream.on('response', (h) => { w.status = Number(h[':status']); resolve(w); });
    stream.on('data', lines((ev) => w.events.push(ev)));
    stream.on('error', reject);
    stream.end();
  });
}

/** A watch over HTTP/1.1 (its own connection); resolves once the response headers are in. */
export function watchH1(creds: Credentials, path: string): Promise<OpenedWatch> {
  return new Promise((resolve, reject) => {
    let done!: (e: WatchEnd) => void;
    const ended = new Promise<WatchEnd>((r) => { done = r; });
    const req = https.get(`${creds.url}${path}`, { ca: creds.ca, cert: creds.cert, key: creds.key, agent: false, headers: { accept: 'application/json' } }, (res) => {
      const w: OpenedWatch = { events: [], status: res.statusCode ?? 0, ended, cancel: () => req.destroy() };
      res.on('data', lines((ev) => w.events.push(ev)));
      // 'end' only after the last chunk; a connection closed mid-body is 'aborted'/'error'.
      res.on('end', () => done(res.complete ? 'clean' : 'cut'));
      res.on('aborted', () => done('cut'));
      res.on('error', () => done('cut'));
      res.on('close', () => done(res.complete ? 'clean' : 'cut'));
      resolve(w);
    });
    req.on('error', (err) => { done('cut'); reject(err); });
  });
}

/** process_resident_memory_bytes from /metrics, in MiB. */
export async function rssMiB(client: H2Client): Promise<number> {
  const res = await client.request('GET', '/metrics');
  const m = /^process_resident_memory_bytes ([0-9.e+]+)$/m.exec(res.text);
  if (!m) throw new Error(`no process_resident_memory_bytes in /metrics (${res.status})`);
  return Number(m[1]) / (1 << 20);
}

/**
 * Appends one scenario's figures as a JSON line to test/reliability/results.jsonl (from the
 * repository root; not committed), for the figures in docs/reliability-and-security.md.
 */
export function recordResult(scenario: string, figures: Record<string, unknown>): void {
  // dist/test/helpers -> the repository root
  const dir = path.resolve(__dirname, '../../../test/reliability');
  mkdirSync(dir, { recursive: true });
  const line = JSON.stringify({ scenario, at: new Date().toISOString(), ...figures });
  appendFileSync(path.join(dir, 'results.jsonl'), `${line}\n`);
  process.stdout.write(`      [${scenario}] ${line}\n`);
}
