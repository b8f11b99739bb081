/**
 * The Koa application: one ordered list of filters in front of the routers.
 *   errors+log -> request-info -> authentication -> resources, or non-resource routes -> 404
 * Every error, from any layer, leaves through writeError as a Status.
 */
import Koa from 'koa';
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { parseRequestInfo, RequestInfo } from '../api/request-info';
import { writeError } from '../api/response-writer';
import { errors } from '../meta/api-errors';
import { userFromClientCertificate } from '../authn/x509';
import { User } from '../api/handlers/scope';
import { installDiscovery } from '../api/discovery';
import { installOpenApi } from '../api/openapi/routes';
import { installVersion } from '../api/version';
import { HealthChecks, installHealth } from '../api/health';
import { resourceHandler, StoreIndex } from '../api/resource-handler';
import { ResourceDef } from '../scheme/types';
import { Naming } from '../naming';
import { logger } from './logger';

export interface AppDeps {
  naming: Naming;
  resources: ResourceDef[];
  stores: StoreIndex;
  health: HealthChecks;
  anonymousAuth: boolean;
  /** A watch without timeoutSeconds ends after a random time in [this, 2*this) seconds. */
  minRequestTimeoutSeconds: number;
}

/** Paths anonymous users may read (Kubernetes' system:public-info-viewer). */
const PUBLIC = /^\/(healthz|livez|readyz)(\/.*)?$|^\/version\/?$/;

const ANONYMOUS: User = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

async function errorsAndLog(ctx: Context, next: Next): Promise<void> {
  const started = process.hrtime.bigint();
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) throw errors.notFoundPath();
  } catch (err) {
    writeError(ctx, err);
  }
  // Below the level nothing is built: winston would format the line before its transport drops it.
  if (!logger.isLevelEnabled('info')) return;
  const info = ctx.state.requestInfo as RequestInfo | undefined;
  const user = ctx.state.user as User | undefined;
  logger.info('request', {
    verb: info?.verb ?? ctx.method.toLowerCase(),
    path: ctx.path,
    user: user?.name,
    status: ctx.status,
    latencyMs: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
  });
}

function requestInfo(ctx: Context, next: Next): Promise<void> {
  ctx.state.requestInfo = parseRequestInfo(ctx.method, ctx.path, ctx.querystring);
  return next();
}

function authenticate(anonymousAuth: boolean) {
  return (ctx: Context, next: Next): Promise<void> => {
    const user = userFromClientCertificate(ctx);
    if (user) ctx.state.user = user;
    else if (anonymousAuth && PUBLIC.test(ctx.path)) ctx.state.user = ANONYMOUS;
    else throw errors.unauthorized();
    return next();
  };
}

export function buildApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.silent = true;
  const router = new Router();
  installVersion(router);
  installHealth(router, deps.health);
  installDiscovery(router, { resources: () => deps.resources, naming: deps.naming });
  installOpenApi(router, { resources: () => deps.resources, naming: deps.naming });

  app.use(errorsAndLog);
  app.use(requestInfo);
  app.use(authenticate(deps.anonymousAuth));
  // Resource requests skip the router's route matching (discovery, OpenAPI, health, version).
  const routes = router.routes();
  const resources = resourceHandler(deps.stores, { minRequestTimeoutSeconds: deps.minRequestTimeoutSeconds }, deps.naming);
  app.use((ctx: Context, next: Next) => ((ctx.state.requestInfo as RequestInfo).isResourceRequest
    ? resources(ctx, next)
    : routes(ctx as Parameters<typeof routes>[0], () => resources(ctx, next))));
  return app;
}
