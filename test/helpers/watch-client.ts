/**
 * A streaming watch client for integration tests: opens `GET <path>` (a `watch=...` URL) with a
 * client certificate, splits the chunked body on newlines and parses each line as one watch
 * event, as client-go and python-kubernetes do.
 */
import https from 'node:https';
import { IncomingHttpHeaders } from 'node:http';
import { readFileSync } from 'node:fs';
import { RunningServer } from '../../lib/server/server';

export interface WatchEventJson {
  type: string;
  object: any;
}

export interface WatchTarget {
  /** `https://host:port` of the server. */
  url: string;
  caPem: string;
  certPem: string;
  keyPem: string;
}

/** The admin identity of a running server (its own PKI). */
export function adminTarget(server: RunningServer): WatchTarget {
  return {
    url: server.url,
    caPem: server.pki.caCertPem,
    certPem: readFileSync(server.pki.adminCertFile, 'utf8'),
    keyPem: readFileSync(server.pki.adminKeyFile, 'utf8'),
  };
}

export class WatchClient {
  /** Every parsed event so far, in arrival order. */
  readonly events: WatchEventJson[] = [];
  statusCode = 0;
  headers: IncomingHttpHeaders = {};
  /** The response body ended (server closed the stream) or the request failed. */
  ended = false;
  /** A non-200 answer's body, parsed when it is JSON. */
  errorBody: any;
  /** Lines that were not JSON (a defect if ever non-empty). */
  readonly junk: string[] = [];
  /** When the response headers arrived (ms since the epoch). */
  headersAt = 0;
  readonly openedAt = Date.now();

  private readonly req: ReturnType<typeof https.request>;
  private buffer = '';
  private cursor = 0;
  private listeners: Array<() => void> = [];
  private readonly headersPromise: Promise<void>;

  /** `headers` add to / override the default `accept: application/json`. */
  constructor(target: WatchTarget, urlPath: string, headers: Record<string, string> = {}) {
    let onHeaders!: () => void;
    let onHeadersFailed!: (e: Error) => void;
    this.headersPromise = new Promise<void>((resolve, reject) => { onHeaders = resolve; onHeadersFailed = reject; });
    this.headersPromise.catch(() => undefined);
    this.req = https.request(`${target.url}${urlPath}`, {
      method: 'GET', headers: { accept: 'application/json', ...headers }, ca: target.caPem, cert: target.certPem, key: target.keyPem, agent: false,
    }, (res) => {
      this.statusCode = res.statusCode ?? 0;
      this.headers = res.headers;
      this.headersAt = Date.now();
      onHeaders();
      const errorChunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        if (this.statusCode !== 200) {
          errorChunks.push(chunk);
          return;
        }
        this.buffer += chunk.toString('utf8');
        let nl: number;
        while ((nl = this.buffer.indexOf('\n')) >= 0) {
          const line = this.buffer.slice(0, nl).trim();
          this.buffer = this.buffer.slice(nl + 1);
          if (!line) continue;
          try { this.events.push(JSON.parse(line)); } catch { this.junk.push(line); }
        }
        this.notify();
      });
      const end = () => {
        if (errorChunks.length) {
          const text = Buffer.concat(errorChunks).toString('utf8');
          try { this.errorBody = JSON.parse(text); } catch { this.errorBody = text; }
        }
        this.ended = true;
        this.notify();
      };
      res.on('end', end);
      res.on('close', end);
      res.on('error', end);
    });
    this.req.on('error', (err) => {
      onHeadersFailed(err);
      this.ended = true;
      this.notify();
    });
    this.req.end();
  }

  /** Resolves once the response headers arrived; rejects after `timeoutMs`. */
  async response(timeoutMs = 10_000): Promise<this> {
    await withTimeout(this.headersPromise, timeoutMs, 'no response headers');
    return this;
  }

  /** The next event not yet returned by next(), or throws after `timeoutMs` or when the stream ends first. */
  async next(timeoutMs = 5_000): Promise<WatchEventJson> {
    await this.until(() => this.cursor < this.events.length || this.ended, timeoutMs, 'no next event');
    if (this.cursor >= this.events.length) throw new Error(`watch ended before the next event (status ${this.statusCode})`);
    return this.events[this.cursor++];
  }

  /** The first event (from the start of the stream) matching `pred`; throws after `timeoutMs`. */
  async waitFor(pred: (e: WatchEventJson) => boolean, timeoutMs = 5_000): Promise<WatchEventJson> {
    let found: WatchEventJson | undefined;
    await this.until(() => !!(found = this.events.find(pred)) || this.ended, timeoutMs, 'no matching event');
    if (!found) throw new Error(`watch ended without a matching event (status ${this.statusCode}, ${this.events.length} events)`);
    return found;
  }

  /** Resolves when the stream has ended; throws after `timeoutMs`. */
  async waitEnded(timeoutMs = 5_000): Promise<void> {
    await this.until(() => this.ended, timeoutMs, 'watch did not end');
  }

  close(): void {
    this.req.destroy();
    this.ended = true;
  }

  private until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (cond()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!cond()) return;
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.listeners = this.listeners.filter((l) => l !== check);
        reject(new Error(`${what} within ${timeoutMs} ms (status ${this.statusCode}, ${this.events.length} events: `
          + `${this.events.map((e) => e.type).join(',')})`));
      }, timeoutMs);
      this.listeners.push(check);
    });
  }

  private notify(): void {
    for (const l of [...this.listeners]) l();
  }
}

/** Opens a watch on `urlPath` (which must carry `watch=...`), with optional extra request headers. */
export function openWatch(target: WatchTarget, urlPath: string, headers: Record<string, string> = {}): WatchClient {
  return new WatchClient(target, urlPath, headers);
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
    p.then((v) => { clearTimeout(timer); resolve(v); }, (e) => { clearTimeout(timer); reject(e); });
  });
}
