/**
 * Webhook token authentication (--authentication-token-webhook-config-file), as kube-apiserver's
 * WebhookTokenAuthenticator behind its token cache:
 * - a TokenReview (`authentication.<domain>/<version>`, spec.token and spec.audiences) is POSTed
 *   as JSON to the kubeconfig's server; the token travels in the body only;
 * - the reply must be a TokenReview of the same apiVersion; its status decides: audiences first
 *   (when audiences are asked, the reply's status.audiences, or the API server's own when it
 *   names none, must include one of them), then `authenticated` and the user;
 * - a failed call (unreachable, TLS, timeout, non-2xx, not a TokenReview) is an invalid answer
 *   (401 for the request) and never cached; 500, 504, 429, a Retry-After and a reset connection
 *   are retried with kube's backoff (0.5 s, x1.5, 20% jitter, 5 attempts), all within one 30 s
 *   bound (kube's request timeout and shared-lookup timeout);
 * - answers are cached for the TTL by an HMAC of the token and the audiences asked: users and
 *   plain refusals; like kube, a refusal carrying status.error is not cached (kube treats it as an
 *   error) and is what the client's 401 says. Concurrent requests with one uncached token and
 *   audiences share one call.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { AuthResult, TokenAuthenticator, authenticated, invalid } from './authenticator';
import { intersectAudiences } from './audiences';
import { TokenCache } from './token-cache';
import { UserInfo } from '../meta/user';
import { KubeconfigClient, readKubeconfig } from './kubeconfig-client';
import { Backoff, DEFAULT_BACKOFF, DEFAULT_TIMEOUT_MS, WebhookCallFailed, WebhookPoster, callWebhook, replyReview } from './webhook-call';
import type { ServerConfig } from '../config';
import type { Naming } from '../naming';

export { WebhookPoster, Backoff, DEFAULT_BACKOFF, DEFAULT_TIMEOUT_MS } from './webhook-call';

export interface WebhookTokenOptions {
  client: WebhookPoster;
  /** `authentication.orch.io/v1beta1` or `.../v1`: what is sent and what the reply must carry. */
  apiVersion: string;
  /** The API server's own audiences (--api-audiences): a reply naming none is valid for these. */
  implicitAudiences: readonly string[];
  /** --authentication-token-webhook-cache-ttl, for users and refusals alike; 0: no cache. */
  cacheTtlMs: number;
  timeoutMs?: number;
  backoff?: Backoff;
}

/** A decided answer and whether it may be remembered. */
interface Outcome { result: AuthResult; cacheable: boolean }


const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

export class WebhookTokenAuthenticator implements TokenAuthenticator {
  readonly name = 'webhook-token';
  private readonly cache = new TokenCache<AuthResult>();
  private readonly inflight = new Map<string, Promise<AuthResult>>();
  /** Keys are HMACs under a per-process key: a key says nothing about its token, even offline. */
  private readonly keySecret = randomBytes(32);
  private readonly timeoutMs: number;
  private readonly backoff: Backoff;

  constructor(private readonly opts: WebhookTokenOptions) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.backoff = opts.backoff ?? DEFAULT_BACKOFF;
  }

  authenticateToken(token: string, audiences: readonly string[]): AuthResult | Promise<AuthResult> {
    const key = createHmac('sha256', this.keySecret).update(JSON.stringify([token, ...audiences])).digest('base64');
    const cached = this.cache.get(key);
    if (cached) return copyResult(cached);
    let shared = this.inflight.get(key);
    if (!shared) {
      shared = this.lookup(token, audiences).then(({ result, cacheable }) => {
        if (cacheable) this.cache.set(key, result, this.opts.cacheTtlMs);
        return result;
      }).finally(() => this.inflight.delete(key));
      this.inflight.set(key, shared);
    }
    return shared.then(copyResult);
  }

  /** Stops keeping connections to the webhook open. */
  close(): void {
    this.opts.client.close();
    this.cache.clear();
  }

  private async lookup(token: string, audiences: readonly string[]): Promise<Outcome> {
    const body = Buffer.from(JSON.stringify({
      apiVersion: this.opts.apiVersion, kind: 'TokenReview', metadata: { creationTimestamp: null },
      spec: audiences.length ? { token, audiences } : { token }, status: { user: {} },
    }));
    let reply: Record<string, unknown>;
    try {
      reply = await this.call(body);
    } catch (err) {
      // WebhookCallFailed, or anything unforeseen: either way an uncached invalid answer, never a throw.
      return { result: invalid(`token webhook ${this.opts.client.url}: ${(err as Error).message}`), cacheable: false };
    }
    return this.decide(reply, audiences);
  }

  /** The reply of the webhook as a TokenReview object, retrying transient failures. */
  private call(body: Buffer): Promise<Record<string, unknown>> {
    return callWebhook(this.opts.client, body, this.timeoutMs, this.backoff, (reply) => this.parse(reply));
  }

  private parse(body: Buffer): Record<string, unknown> {
    const review = replyReview(body, this.opts.apiVersion, 'TokenReview');
    if (review.status !== undefined && review.status !== null && !isObj(review.status)) throw new WebhookCallFailed('the reply\'s status is not an object');
    return review;
  }

  /** The answer a well-formed review gives, in kube's order: audiences, then authenticated. */
  private decide(review: Record<string, unknown>, audiences: readonly string[]): Outcome {
    const status = (review.status ?? {}) as Record<string, unknown>;
    const refused = (reason: string): Outcome => ({ result: invalid(`token webhook: ${reason}`), cacheable: true });
    const malformed = (reason: string): Outcome => ({ result: invalid(`token webhook ${this.opts.client.url}: ${reason}`), cacheable: false });
    if (status.audiences !== undefined && status.audiences !== null && !isStringList(status.audiences)) return malformed('status.audiences is not a list of strings');
    let auds: string[] | undefined;
    if (audiences.length) {
      const replied = (status.audiences as string[] | undefined | null) ?? [];
      auds = intersectAudiences(audiences, replied.length ? replied : this.opts.implicitAudiences);
      if (!auds.length) return refused(`the token is not valid for the audiences ${JSON.stringify(audiences)}`);
    }
    if (status.authenticated !== true) {
      const message = typeof status.error === 'string' ? status.error : '';
      if (!message) return refused('the webhook did not authenticate the token');
      return { result: invalid(`token webhook did not authenticate the token: ${message}`, message), cacheable: false };
    }
    const user = userOf(status.user);
    if (typeof user === 'string') return malformed(user);
    return { result: authenticated(user, auds), cacheable: true };
  }
}

/** The user of an authenticated review, or what is wrong with it. */
function userOf(u: unknown): UserInfo | string {
  if (!isObj(u)) return 'status.user is missing';
  if (typeof u.username !== 'string' || !u.username) return 'status.user.username is missing';
  if (u.uid !== undefined && u.uid !== null && typeof u.uid !== 'string') return 'status.user.uid is not a string';
  if (u.groups !== undefined && u.groups !== null && !isStringList(u.groups)) return 'status.user.groups is not a list of strings';
  const user: UserInfo = { name: u.username, groups: (u.groups as string[] | null) ?? [] };
  if (u.uid) user.uid = u.uid as string;
  if (u.extra !== undefined && u.extra !== null) {
    if (!isObj(u.extra)) return 'status.user.extra is not an object';
    const extra: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(u.extra)) {
      if (!isStringList(v)) return `status.user.extra[${JSON.stringify(k)}] is not a list of strings`;
      extra[k] = v;
    }
    user.extra = extra;
  }
  return user;
}

/** Each caller gets its own copy: later stages may add groups to the user they are handed. */
function copyResult(r: AuthResult): AuthResult {
  if (r.kind !== 'user') return r;
  const u = r.user;
  const user: UserInfo = { ...u, groups: [...u.groups] };
  if (u.extra) user.extra = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]]));
  return authenticated(user, r.audiences && [...r.audiences]);
}

/** The authenticator the webhook flags describe; a bad config file throws one line naming flag and file. */
export function webhookTokenAuthenticator(config: ServerConfig, naming: Naming, apiAudiences: readonly string[]): WebhookTokenAuthenticator {
  const client = new KubeconfigClient(readKubeconfig(config.authenticationTokenWebhookConfigFile, '--authentication-token-webhook-config-file'));
  return new WebhookTokenAuthenticator({
    client,
    apiVersion: `${naming.group('authentication')}/${config.authenticationTokenWebhookVersion}`,
    implicitAudiences: apiAudiences,
    cacheTtlMs: config.authenticationTokenWebhookCacheTtlMs,
  });
}
