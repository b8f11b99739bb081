/**
 * The Koa application: one ordered list of filters in front of the routers.
 *   errors+log -> request-info -> request timeout -> authentication -> impersonation
 *   -> priority and fairness (or the in-flight limits) -> authorization -> the aggregation proxy
 *   -> resources, or non-resource routes -> 404
 * Every error, from any layer, leaves through writeError as a Status.
 */
import Koa from 'koa';
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { parseRequestInfo, RequestInfo } from '../api/request-info';
import { writeError } from '../api/response-writer';
import { errors } from '../meta/api-errors';
import { AuthenticationChain, ChainOutcome } from '../authn/chain';
import { authnRequestOf } from '../authn/request';
import { isPromise } from '../authn/authenticator';
import { UserInfo } from '../meta/user';
import { impersonate, impersonationHeaders, impersonationRequests } from '../authz/impersonation';
import { AuthorizationResult, Authorizer } from '../authz/authorizer';
import { AuthorizationAttributes, attributesOf, forbiddenSentence } from '../authz/attributes';
import { installDiscovery, RemoteDiscoverySource } from '../api/discovery';
import { installOpenApi } from '../api/openapi/routes';
import type { RemoteOpenApiSource } from '../api/openapi/remote';
import type { V2Forms } from '../api/openapi/v2-forms';
import { installVersion, releaseVersionInfo } from '../api/version';
import { HealthChecks, installHealth } from '../api/health';
import { CustomHandlers, resourceHandler } from '../api/resource-handler';
import type { Release } from '../api/deprecation';
import { StoreIndex } from '../registry/store-index';
import { ResourceDef } from '../scheme/types';
import { Naming } from '../naming';
import { logger, v } from '../logger';
import { MetricsRegistry } from '../metrics/registry';
import { RequestMetrics } from '../api/metrics/request-metrics';
import { AuthMetrics } from '../metrics/auth-metrics';
import { installMetrics, MetricsSource } from '../metrics/metrics-route';
import { ModeChain } from '../authz/mode-chain';
import { performance } from 'node:perf_hooks';
import { auditFilter, AuditFilterDeps, auditInit } from '../audit/filter';
import { addAuditAnnotation } from '../meta/audit-annotations';
import { maxInflight } from './max-inflight';
import { requestTimeout } from './request-timeout';
import { TerminationMetrics } from '../api/metrics/termination-metrics';
import { probabilisticGoaway } from './goaway';

export interface AppDeps {
  naming: Naming;
  /** What is served now (the ResourceRegistry's snapshot: custom resources come and go). */
  resources: () => readonly ResourceDef[];
  /** What OpenAPI documents (default `resources`): the same, each def with all its verbs. */
  documentedResources?: () => readonly ResourceDef[];
  /** The built-in resources (virtual ones are dispatched from these; OpenAPI's base documents). */
  builtins: readonly ResourceDef[];
  stores: StoreIndex;
  health: HealthChecks;
  authentication: AuthenticationChain;
  /** Decides impersonation and every request (lib/authz). */
  authorizer: Authorizer;
  /** Handlers of virtual resources and of subresources with kinds of their own. */
  customHandlers: CustomHandlers;
  /** Further non-resource routes (service-account issuer discovery). */
  routes?: ((router: Router) => void)[];
  /** A watch without timeoutSeconds ends after a random time in [this, 2*this) seconds. */
  minRequestTimeoutSeconds: number;
  /** --goaway-chance: the probability that an HTTP/2 request ends its connection gracefully (goaway.ts). */
  goawayChance?: number;
  /** The server's metrics: request metrics are recorded here and /metrics renders it. */
  metrics: MetricsRegistry;
  /** What /metrics/slis renders (the health checks' indicators); absent: not served. */
  slis?: MetricsSource;
  /** The audit policy and backends (lib/audit/build.ts); absent: only the Audit-Id header. */
  audit?: AuditFilterDeps;
  /** --max-requests-inflight, --max-mutating-requests-inflight (0: unlimited), --max-inflight-exempt-masters; absent: no limits. */
  inflight?: { readOnlyLimit: number; mutatingLimit: number; exemptMasters: boolean };
  /** API priority and fairness (--enable-priority-and-fairness): in place of the in-flight limits when given. */
  flowControl?: { middleware(terminations?: TerminationMetrics): (ctx: Context, next: Next) => Promise<void> };
  /** --request-timeout in ms; absent or 0: none (a client's `timeout` parameter still applies). */
  requestTimeoutMs?: number;
  /** The aggregation layer's proxy (lib/aggregation): after authorization, before the local handlers. */
  aggregationProxy?: (ctx: Context, next: Next) => Promise<void>;
  /** The extension API servers' discovery and OpenAPI documents (lib/aggregation), merged into the server's. */
  remoteDiscovery?: RemoteDiscoverySource;
  remoteOpenApi?: RemoteOpenApiSource;
  /** The protobuf and gzip forms of `/openapi/v2`, told of changes by the server. */
  openApiV2Forms?: V2Forms;
  /** --emulated-version's release: /version, OpenAPI's info and deprecations are its; absent: 1.32. */
  release?: Release;
}

async function errorsAndLog(ctx: Context, next: Next): Promise<void> {
  const started = v(3) ? process.hrtime.bigint() : 0n;
  try {
    await next();
    // A response written by its handler itself (a proxy's: respond = false) is its own, a 404 included.
    if (ctx.status === 404 && ctx.body === undefined && ctx.respond !== false) throw errors.notFoundPath();
  } catch (err) {
    writeError(ctx, err);
  }
  // Request lines are kube-apiserver's httplog lines, logged at V(3). Below that nothing is
  // built: winston would format the line before its transport drops it.
  if (!v(3)) return;
  const info = ctx.state.requestInfo as RequestInfo | undefined;
  const user = ctx.state.user as UserInfo | undefined;
  const impersonator = ctx.state.impersonator as UserInfo | undefined;
  logger.info('HTTP', {
    verb: info?.verb ?? ctx.method.toLowerCase(),
    URI: ctx.url,
    path: ctx.path,
    userAgent: ctx.get('user-agent') || undefined,
    srcIP: ctx.request.socket?.remoteAddress ? `${ctx.request.socket.remoteAddress}:${ctx.request.socket.remotePort}` : undefined,
    user: user?.name,
    ...(impersonator ? { impersonator: impersonator.name } : {}),
    // Why authentication failed: the authenticators' words, never the credential.
    ...(ctx.state.authnFailure ? { authnFailure: ctx.state.authnFailure } : {}),
    // Why authorization refused (the modes' reasons; a failing mode's error).
    ...(ctx.state.authzReason ? { authzReason: ctx.state.authzReason } : {}),
    ...(ctx.state.authzError ? { authzError: ctx.state.authzError } : {}),
    resp: ctx.status,
    // The level may have been raised while the request ran (its start was not timed then).
    latencyMs: started ? Number((process.hrtime.bigint() - started) / 1000n) / 1000 : undefined,
  });
}

function requestInfo(ctx: Context, next: Next): Promise<void> {
  // Only origin-form targets name something here (the own protocol sides refuse the others
  // before this; node's hand on CONNECT over HTTP/2 and `OPTIONS *`).
  if (typeof ctx.path !== 'string' || !ctx.path.startsWith('/')) {
    if (ctx.method === 'OPTIONS' && ctx.url === '*') {
      // As Go's server answers it for kube-apiserver.
      ctx.status = 200;
      ctx.length = 0;
      return Promise.resolve();
    }
    throw ctx.method === 'CONNECT' ? errors.methodNotAllowed() : errors.badRequest('the request target must be an absolute path');
  }
  ctx.state.requestInfo = parseRequestInfo(ctx.method, ctx.path, ctx.querystring);
  return next();
}

/** Sets ctx.state.user, or answers 401 (`Unauthorized`, or a token webhook's own message). */
function authenticate(chain: AuthenticationChain, metrics?: AuthMetrics) {
  const finish = (ctx: Context, outcome: ChainOutcome, next: Next, started?: number): Promise<void> => {
    if (metrics) recordAuthentication(metrics, outcome, started!);
    if ('failure' in outcome) {
      ctx.state.authnFailure = outcome.failure.reason;
      throw errors.unauthorized(outcome.failure.clientMessage || 'Unauthorized');
    }
    ctx.state.user = outcome.user;
    return next();
  };
  return (ctx: Context, next: Next): Promise<void> => {
    const started = metrics ? performance.now() : undefined;
    const outcome = chain.authenticate(authnRequestOf(ctx));
    return isPromise(outcome) ? outcome.then((o) => finish(ctx, o, next, started)) : finish(ctx, outcome, next, started);
  };
}

/** Whether any header asks for impersonation (a scan without allocation: most requests have none). */
function asksImpersonation(ctx: Context): boolean {
  for (const h in ctx.req.headers) if (h.startsWith('impersonate-')) return true;
  return false;
}

/** Impersonate-* headers: the caller (kept as ctx.state.impersonator) becomes the user asked for. */
function impersonation(authorizer: Authorizer, authenticationGroup: string) {
  const act = async (ctx: Context, next: Next): Promise<void> => {
    const req = authnRequestOf(ctx);
    const requests = impersonationRequests(req);
    if (requests.length) {
      const requestor = ctx.state.user as UserInfo;
      ctx.state.user = await impersonate(requestor, requests, authorizer, authenticationGroup);
      ctx.state.impersonator = requestor;
      logger.debug('impersonation', { user: requestor.name, as: (ctx.state.user as UserInfo).name });
    }
    req.removeHeaders(impersonationHeaders(req));
    return next();
  };
  // Not async itself: most requests ask nothing and pass straight on, without a promise of their own.
  return (ctx: Context, next: Next): Promise<void> => (asksImpersonation(ctx) ? act(ctx, next) : next());
}

/**
 * Every request must be allowed: 403 with Kubernetes' sentence (and the modes' reasons), or 500
 * when a mode failed to decide (a webhook unreachable) and none allowed.
 */
function authorize(authorizer: Authorizer, metrics?: AuthMetrics, authzGroup = '') {
  const finish = (ctx: Context, attrs: AuthorizationAttributes, r: AuthorizationResult, next: Next, started?: number): Promise<void> => {
    if (metrics) recordAuthorization(metrics, r, started!);
    // The decision in the audit event, as Kubernetes' `authorization.k8s.io/decision` and `/reason`.
    if (ctx.state.auditCapture) {
      if (!r.error) addAuditAnnotation(ctx.state, `${authzGroup}/decision`, r.decision === 'allow' ? 'allow' : 'forbid');
      addAuditAnnotation(ctx.state, `${authzGroup}/reason`, r.error ? 'internal error' : r.reason ?? '');
    }
    if (r.decision === 'allow') return next();
    ctx.state.authzReason = r.reason;
    // As kube-apiserver: an error is answered 500 before a refusal is considered.
    if (r.error) {
      ctx.state.authzError = r.error;
      throw errors.internal('authorization could not be decided');
    }
    const sentence = forbiddenSentence(attrs);
    throw errors.forbiddenRequest({ group: attrs.apiGroup, resource: attrs.isResourceRequest ? attrs.resource : '' }, attrs.name,
      r.reason ? `${sentence}: ${r.reason}` : sentence);
  };
  return (ctx: Context, next: Next): Promise<void> => {
    const attrs = attributesOf(ctx.state.user as UserInfo, ctx.state.requestInfo as RequestInfo, ctx.method);
    const started = metrics ? performance.now() : undefined;
    const r = authorizer.authorize(attrs);
    return isPromise(r) ? r.then((x) => finish(ctx, attrs, x, next, started)) : finish(ctx, attrs, r, next, started);
  };
}

/** Kubernetes' results: no credentials at all is a failure, credentials refused an error. */
function recordAuthentication(metrics: AuthMetrics, outcome: ChainOutcome, started: number): void {
  const seconds = (performance.now() - started) / 1000;
  if ('user' in outcome) metrics.authentication('success', seconds, outcome.user.name);
  else metrics.authentication(outcome.failure.reason === 'no credentials' ? 'failure' : 'error', seconds);
}

function recordAuthorization(metrics: AuthMetrics, r: AuthorizationResult, started: number): void {
  const result = r.decision === 'allow' ? 'allowed' : r.error ? 'error' : r.decision === 'deny' ? 'denied' : 'no-opinion';
  metrics.authorization(result, (performance.now() - started) / 1000);
}

export function buildApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.silent = true;
  const router = new Router();
  const version = deps.release && releaseVersionInfo(deps.release[1]);
  installVersion(router, version);
  installHealth(router, deps.health);
  installMetrics(router, deps.metrics);
  if (deps.slis) installMetrics(router, deps.slis, '/metrics/slis');
  installDiscovery(router, { resources: deps.resources, naming: deps.naming, remote: deps.remoteDiscovery });
  const builtins = new Set(deps.builtins);
  installOpenApi(router, { resources: deps.documentedResources ?? deps.resources, naming: deps.naming, isBuiltin: (d) => builtins.has(d), remote: deps.remoteOpenApi, gitVersion: version?.gitVersion, v2Forms: deps.openApiV2Forms });
  for (const install of deps.routes ?? []) install(router);

  // Without metrics (the benchmark's baseline) nothing is recorded, not even a timestamp.
  const authMetrics = deps.metrics.enabled ? new AuthMetrics(deps.metrics) : undefined;
  if (authMetrics && deps.authorizer instanceof ModeChain) {
    // Kubernetes names an --authorization-mode entry by its lower-cased mode, an --authorization-config one by its name.
    deps.authorizer.onDecision = (mode, decision, name) => authMetrics.decision(mode, name, decision);
  }
  // Outermost: every final status is counted, 401/403/404 included.
  if (deps.metrics.enabled) app.use(new RequestMetrics(deps.metrics, { resources: deps.resources }).middleware());
  // --goaway-chance: near the outside, as in kube-apiserver's chain (every HTTP/2 request counts).
  if (deps.goawayChance) app.use(probabilisticGoaway(deps.goawayChance));
  app.use(errorsAndLog);
  app.use(requestInfo);
  // Self-defense (429, 504) is counted as kube-apiserver counts it.
  const terminations = deps.metrics.enabled ? new TerminationMetrics(deps.metrics, deps.resources) : undefined;
  // As kube-apiserver: the timeout covers authentication and everything after it.
  app.use(requestTimeout({ timeoutMs: deps.requestTimeoutMs ?? 0, terminations }));
  app.use(auditInit(deps.audit));
  app.use(authenticate(deps.authentication, authMetrics));
  // As kube-apiserver: audited before impersonation, so its refusals are audited too.
  if (deps.audit) app.use(auditFilter(deps.audit));
  app.use(impersonation(deps.authorizer, deps.naming.group('authentication')));
  // After impersonation, before authorization: where kube-apiserver puts its in-flight limits.
  if (deps.flowControl) {
    app.use(deps.flowControl.middleware(terminations));
  } else if (deps.inflight && (deps.inflight.readOnlyLimit > 0 || deps.inflight.mutatingLimit > 0)) {
    app.use(maxInflight({ ...deps.inflight, terminations }));
  }
  app.use(authorize(deps.authorizer, authMetrics, deps.naming.group('authorization')));
  // Requests for a group-version an extension API server serves leave here (kube-aggregator's proxy).
  if (deps.aggregationProxy) app.use(deps.aggregationProxy);
  // Resource requests skip the router's route matching (discovery, OpenAPI, health, version).
  const routes = router.routes();
  const resources = resourceHandler(deps.stores, { minRequestTimeoutSeconds: deps.minRequestTimeoutSeconds }, deps.naming,
    deps.builtins.filter((r) => r.virtual), deps.customHandlers, { metrics: deps.metrics, release: deps.release });
  app.use((ctx: Context, next: Next) => ((ctx.state.requestInfo as RequestInfo).isResourceRequest
    ? resources(ctx, next)
    : routes(ctx as Parameters<typeof routes>[0], () => resources(ctx, next))));
  return app;
}
