/**
 * The Webhook mode (--authorization-webhook-config-file), as kube-apiserver's WebhookAuthorizer:
 * - a SubjectAccessReview (`authorization.<domain>/<version>`) describing the request is POSTed
 *   as JSON to the kubeconfig's server: spec.user, uid, groups (`group` in v1beta1, `groups` in
 *   v1), extra, and resourceAttributes {namespace, verb, group, version, resource, subresource,
 *   name} or nonResourceAttributes {path, verb}, with Go's field order and empty fields left out;
 * - the reply must be a SubjectAccessReview of the same apiVersion: status.denied is deny,
 *   status.allowed allow, neither no opinion; status.reason is passed on either way;
 * - answers are cached by the review's spec: allowed ones for the authorized TTL, the others for
 *   the unauthorized TTL (requests whose attributes are too large to be worth keeping are not);
 * - a failed call (unreachable, TLS, non-2xx, not a review, timeout) is no opinion with `error`
 *   set, never cached and logged (URL and cause only); transient failures are retried with
 *   kube's backoff within one 30 s bound, as for the token webhook.
 * A cached answer is returned synchronously; only a call makes a promise. Concurrent identical
 * reviews share one call.
 */
import { AuthorizationAttributes } from './attributes';
import { AuthorizationResult, Authorizer, RuleResolver, RulesResult } from './authorizer';
import { TokenCache } from '../authn/token-cache';
import { KubeconfigClient, readKubeconfig } from '../authn/kubeconfig-client';
import { Backoff, DEFAULT_BACKOFF, DEFAULT_TIMEOUT_MS, WebhookCallFailed, WebhookPoster, callWebhook, replyReview } from '../authn/webhook-call';
import type { ServerConfig } from '../config';
import type { Naming } from '../naming';

export interface WebhookAuthorizerOptions {
  client: WebhookPoster;
  /** `authorization.orch.io/v1beta1` or `.../v1`: what is sent and what the reply must carry. */
  apiVersion: string;
  /** --authorization-webhook-cache-authorized-ttl; 0: not cached. */
  authorizedTtlMs: number;
  /** --authorization-webhook-cache-unauthorized-ttl (denied and no-opinion answers); 0: not cached. */
  unauthorizedTtlMs: number;
  timeoutMs?: number;
  backoff?: Backoff;
  /** Where failed calls are reported (no secrets: the URL and the cause). */
  log?: (message: string) => void;
}

/** kube's bound on the requester-controlled attributes of a cacheable request. */
const MAX_CACHED_ATTRIBUTES = 10_000;
/** kube's message for SelfSubjectRulesReview's evaluationError. */
const NO_RULES = 'webhook authorizer does not support user rule resolution';


type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** Go's encoding of a struct with `omitempty` string fields: in order, empty ones left out. */
function nonEmpty(fields: Array<[string, string]>): Obj {
  const o: Obj = {};
  for (const [k, v] of fields) if (v) o[k] = v;
  return o;
}

/** The review's spec for `a`, as the JSON text kube sends (also the cache key). */
export function reviewSpecJson(a: AuthorizationAttributes, groupsField: 'group' | 'groups'): string {
  const spec: Obj = a.isResourceRequest
    ? {
      resourceAttributes: nonEmpty([['namespace', a.namespace], ['verb', a.verb], ['group', a.apiGroup], ['version', a.apiVersion],
        ['resource', a.resource], ['subresource', a.subresource], ['name', a.name]]),
    }
    : { nonResourceAttributes: nonEmpty([['path', a.path], ['verb', a.verb]]) };
  const u = a.user;
  if (u.name) spec.user = u.name;
  if (u.groups.length) spec[groupsField] = u.groups;
  const extraKeys = Object.keys(u.extra ?? {});
  // Go writes map keys sorted.
  if (extraKeys.length) spec.extra = Object.fromEntries(extraKeys.sort().map((k) => [k, u.extra![k]]));
  if (u.uid) spec.uid = u.uid;
  return JSON.stringify(spec);
}

/** kube's shouldCache: a huge request is not worth a cache entry (and may be an attack on it). */
function worthCaching(a: AuthorizationAttributes): boolean {
  const size = a.namespace.length + a.verb.length + a.apiGroup.length + a.apiVersion.length + a.resource.length
    + a.subresource.length + a.name.length + a.path.length;
  return size < MAX_CACHED_ATTRIBUTES;
}

export class WebhookAuthorizer implements Authorizer, RuleResolver {
  private readonly cache = new TokenCache<AuthorizationResult>();
  private readonly inflight = new Map<string, Promise<AuthorizationResult>>();
  private readonly groupsField: 'group' | 'groups';
  private readonly bodyStart: string;
  private readonly timeoutMs: number;
  private readonly backoff: Backoff;

  constructor(private readonly opts: WebhookAuthorizerOptions) {
    this.groupsField = opts.apiVersion.endsWith('/v1beta1') ? 'group' : 'groups';
    this.bodyStart = `{"kind":"SubjectAccessReview","apiVersion":${JSON.stringify(opts.apiVersion)},"metadata":{"creationTimestamp":null},"spec":`;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.backoff = opts.backoff ?? DEFAULT_BACKOFF;
  }

  authorize(a: AuthorizationAttributes): AuthorizationResult | Promise<AuthorizationResult> {
    const spec = reviewSpecJson(a, this.groupsField);
    const cached = this.cache.get(spec);
    if (cached) return cached;
    let shared = this.inflight.get(spec);
    if (!shared) {
      const cacheable = worthCaching(a);
      shared = this.review(spec).then(({ result, keep }) => {
        if (keep && cacheable) {
          this.cache.set(spec, result, result.decision === 'allow' ? this.opts.authorizedTtlMs : this.opts.unauthorizedTtlMs);
        }
        return result;
      }).finally(() => this.inflight.delete(spec));
      this.inflight.set(spec, shared);
    }
    return shared;
  }

  /** The mode cannot list a user's permissions: SelfSubjectRulesReview is incomplete, with kube's evaluationError. */
  rulesFor(): RulesResult {
    return { rules: [], incomplete: true, errors: [NO_RULES] };
  }

  /** Stops keeping connections to the webhook open and forgets its answers. */
  close(): void {
    this.opts.client.close();
    this.cache.clear();
  }

  private async review(spec: string): Promise<{ result: AuthorizationResult; keep: boolean }> {
    const body = Buffer.from(`${this.bodyStart}${spec},"status":{"allowed":false}}`);
    let status: Obj;
    try {
      status = await this.call(body);
    } catch (err) {
      const error = `authorization webhook ${this.opts.client.url}: ${(err as Error).message}`;
      this.opts.log?.(error);
      return { result: { decision: 'no-opinion', reason: '', error }, keep: false };
    }
    const reason = (status.reason as string | undefined) ?? '';
    if (status.allowed === true && status.denied === true) {
      // kube: a deny, with an error saying the webhook contradicted itself.
      return { result: { decision: 'deny', reason, error: 'webhook subject access review returned both allow and deny response' }, keep: true };
    }
    if (status.denied === true) return { result: { decision: 'deny', reason }, keep: true };
    if (status.allowed === true) return { result: { decision: 'allow', reason }, keep: true };
    return { result: { decision: 'no-opinion', reason }, keep: true };
  }

  /** The reply's status, retrying transient failures (429, 500, 504, Retry-After, reset) within the timeout. */
  private call(body: Buffer): Promise<Obj> {
    return callWebhook(this.opts.client, body, this.timeoutMs, this.backoff, (reply) => this.statusOf(reply));
  }

  /** The status of a well-formed reply (absent: all false); anything else is a failed call. */
  private statusOf(body: Buffer): Obj {
    const review = replyReview(body, this.opts.apiVersion, 'SubjectAccessReview');
    const status = review.status ?? {};
    if (!isObj(status)) throw new WebhookCallFailed('the reply\'s status is not an object');
    for (const field of ['allowed', 'denied']) {
      if (status[field] !== undefined && status[field] !== null && typeof status[field] !== 'boolean') {
        throw new WebhookCallFailed(`the reply's status.${field} is not true or false`);
      }
    }
    for (const field of ['reason', 'evaluationError']) {
      if (status[field] !== undefined && status[field] !== null && typeof status[field] !== 'string') {
        throw new WebhookCallFailed(`the reply's status.${field} is not a string`);
      }
    }
    return status;
  }
}

/** The authorizer the webhook flags describe; a bad config file throws one line naming flag and file. */
export function webhookAuthorizer(config: ServerConfig, naming: Naming, log: (message: string) => void): WebhookAuthorizer {
  const client = new KubeconfigClient(readKubeconfig(config.authorizationWebhookConfigFile, '--authorization-webhook-config-file'));
  return new WebhookAuthorizer({
    client,
    apiVersion: `${naming.group('authorization')}/${config.authorizationWebhookVersion}`,
    authorizedTtlMs: config.authorizationWebhookCacheAuthorizedTtlMs,
    unauthorizedTtlMs: config.authorizationWebhookCacheUnauthorizedTtlMs,
    log,
  });
}
