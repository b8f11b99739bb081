/**
 * The OIDC issuer's signing keys, found as kube-apiserver finds them: its discovery document
 * `<issuer>/.well-known/openid-configuration` (whose `issuer` must be the configured URL exactly)
 * names `jwks_uri`; the key set behind it is fetched with jose's remote JWK set and fetched again
 * when a token names a key it does not hold. Everything goes over HTTPS trusting --oidc-ca-file
 * (or the system roots). Discovery never blocks the server start: it is tried at once in the
 * background and again, at most every `retryMs`, when a token needs it; until it succeeds there
 * are no keys and ID tokens are refused.
 */
import https from 'node:https';
import type { createRemoteJWKSet } from 'jose';
import { jose } from '../lazy-packages';

/** What jose verifies with: a function from a token's header to its key. */
export type RemoteKeySet = ReturnType<typeof createRemoteJWKSet>;

const WELL_KNOWN = '/.well-known/openid-configuration';
/** Discovery documents and key sets are small; a larger answer is refused rather than buffered. */
const MAX_BODY_BYTES = 1 << 20;

export interface OidcIssuerOptions {
  /** --oidc-issuer-url, exactly as given. */
  issuer: string;
  /**
   * Where the discovery document is read instead of `<issuer>/.well-known/openid-configuration`
   * (an AuthenticationConfiguration's issuer.discoveryURL); its `issuer` is then not compared,
   * as Kubernetes does not compare it.
   */
  discoveryUrl?: string;
  /** PEM bundle of --oidc-ca-file; undefined: the system roots. */
  ca?: string;
  /** Where discovery and key-set failures are reported (never holds a token or key). */
  log(message: string): void;
  /** Least time between two discovery attempts. */
  retryMs?: number;
  /** Least time between two key-set fetches caused by an unknown key id (jose's cooldown). */
  cooldownMs?: number;
  /** How often the key set is fetched again in the background, so withdrawn keys stop working. */
  refreshMs?: number;
  timeoutMs?: number;
}

interface HttpsAnswer { status: number; headers: Record<string, string>; body: Buffer }

/** One GET over node:https trusting `ca`; no redirects; bounded size and time. */
export function httpsGet(url: string, ca: string | undefined, timeoutMs: number, signal?: AbortSignal): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca, timeout: timeoutMs, signal, headers: { accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY_BYTES) req.destroy(new Error(`response from ${url} is larger than ${MAX_BODY_BYTES} bytes`));
        else chunks.push(c);
      });
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers[k] = v;
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

/** The discovery document's `jwks_uri`, or throws saying what is wrong with the document. */
export function jwksUriOf(doc: unknown, issuer: string): string {
  const d = (doc && typeof doc === 'object' ? doc : {}) as Record<string, unknown>;
  if (d.issuer !== issuer) {
    throw new Error(`oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(issuer)} got ${JSON.stringify(d.issuer)}`);
  }
  let url: URL | undefined;
  try { url = typeof d.jwks_uri === 'string' ? new URL(d.jwks_uri) : undefined; } catch { url = undefined; }
  if (!url || url.protocol !== 'https:') throw new Error(`oidc: discovery document of ${issuer} has no https jwks_uri`);
  return url.href;
}

export class OidcIssuer {
  private keySet?: RemoteKeySet;
  private pending?: Promise<void>;
  private lastAttempt = 0;
  private lastRefresh = 0;
  private readonly retryMs: number;
  private readonly refreshMs: number;
  private readonly timeoutMs: number;

  constructor(private readonly opts: OidcIssuerOptions) {
    this.retryMs = opts.retryMs ?? 5_000;
    this.refreshMs = opts.refreshMs ?? 10 * 60_000;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    void this.discover();
  }

  /** The key set, or undefined while the issuer's discovery document could not be read. */
  async keys(): Promise<RemoteKeySet | undefined> {
    const now = Date.now();
    if (this.keySet) {
      if (now - this.lastRefresh >= this.refreshMs && !this.keySet.reloading) {
        this.lastRefresh = now;
        // In the background: while the issuer is down, the keys held stay in use.
        this.keySet.reload().catch((err) => this.opts.log(`oidc: refreshing the keys of ${this.opts.issuer}: ${(err as Error).message}`));
      }
      return this.keySet;
    }
    if (!this.pending && now - this.lastAttempt >= this.retryMs) void this.discover();
    await this.pending;
    return this.keySet;
  }

  private discover(): Promise<void> {
    this.lastAttempt = Date.now();
    this.pending = this.readDiscovery().then((jwksUri) => {
      this.keySet = jose().createRemoteJWKSet(new URL(jwksUri), {
        timeoutDuration: this.timeoutMs,
        cooldownDuration: this.opts.cooldownMs ?? 5_000,
        // Refreshed by keys() instead, which keeps the old keys when a refresh fails.
        cacheMaxAge: Infinity,
        [jose().customFetch]: (url, init) => this.fetchResponse(url, init.signal),
      });
      this.lastRefresh = Date.now();
      // Fetched now rather than by the first token, so a broken key set shows in the log at once.
      this.keySet.reload().catch((err) => this.opts.log(`oidc: fetching the keys of ${this.opts.issuer}: ${(err as Error).message}`));
    }, (err) => {
      this.opts.log(`oidc: discovery of ${this.opts.issuer} failed (tokens are refused until it succeeds): ${(err as Error).message}`);
    }).finally(() => { this.pending = undefined; });
    return this.pending;
  }

  private async readDiscovery(): Promise<string> {
    const url = this.opts.discoveryUrl ?? this.opts.issuer.replace(/\/$/, '') + WELL_KNOWN;
    const res = await httpsGet(url, this.opts.ca, this.timeoutMs);
    if (res.status !== 200) throw new Error(`GET ${url}: status ${res.status}`);
    let doc: unknown;
    try {
      doc = JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new Error(`GET ${url}: the answer is not JSON`);
    }
    if (this.opts.discoveryUrl && doc && typeof doc === 'object') doc = { ...doc, issuer: this.opts.issuer };
    return jwksUriOf(doc, this.opts.issuer);
  }

  /** jose's fetch, over node:https so that --oidc-ca-file is trusted. */
  private async fetchResponse(url: string, signal: AbortSignal): Promise<Response> {
    const res = await httpsGet(url, this.opts.ca, this.timeoutMs, signal);
    if (res.status !== 200) throw new Error(`GET ${url}: status ${res.status}`);
    return new Response(res.body, { status: 200, headers: res.headers });
  }
}
