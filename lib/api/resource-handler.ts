/**
 * The dispatcher for resource requests: finds the resource's store from the request info,
 * checks scope, subresource and verb, and hands over to the verb's handler.
 */
import { storeKey, type StoreIndex } from '../registry/store-index';
import type { Context, Next } from 'koa';
import { RequestInfo } from './request-info';
import { GenericStore } from '../registry/store';
import { errors } from '../meta/api-errors';
import { Naming } from '../naming';
import { negotiateResponse } from './negotiation';
import { ResourceScope } from './handlers/scope';
import { UserInfo } from '../meta/user';
import { ResourceDef } from '../scheme/types';
import { handleGet } from './handlers/get';
import { handleList } from './handlers/list';
import { handleCreate } from './handlers/create';
import { handleUpdate } from './handlers/update';
import { handleDelete } from './handlers/delete';
import { handleDeleteCollection } from './handlers/delete-collection';
import { handleWatch } from './handlers/watch';
import { handlePatch } from './handlers/patch';
import { DeprecatedApiRequests, Release } from './deprecation';
import { MetricsRegistry } from '../metrics/registry';


/** What a custom handler works with; `store` is the resource's, absent for a virtual resource. */
export interface CustomScope {
  ctx: Context;
  info: RequestInfo;
  def: ResourceDef;
  store?: GenericStore;
  user?: UserInfo;
}

/**
 * Handlers of what the generic store does not do: a virtual resource's create (TokenReview,
 * SelfSubjectReview), a subresource with a kind of its own (serviceaccounts/token). Keyed by
 * customKey(); registered at start by the parts that own them.
 */
export type CustomHandlers = Map<string, (s: CustomScope) => Promise<void>>;

export function customKey(group: string, version: string, resource: string, subresource: string | undefined, verb: string): string {
  return `${storeKey(group, version, resource)}${subresource ? `/${subresource}` : ''}|${verb}`;
}

const handlers: Record<string, (s: ResourceScope) => Promise<void>> = {
  get: handleGet,
  list: handleList,
  watch: handleWatch,
  create: handleCreate,
  update: handleUpdate,
  patch: handlePatch,
  delete: handleDelete,
  deletecollection: handleDeleteCollection,
};

/**
 * What the dispatcher records beyond the handlers: `metrics` holds the deprecated-API gauge;
 * `release` is the one deprecations are judged at (--emulated-version's; absent: 1.32).
 */
export interface ResourceHandlerOptions {
  metrics?: MetricsRegistry;
  release?: Release;
}

export function resourceHandler(stores: StoreIndex, limits: { minRequestTimeoutSeconds: number }, naming: Naming,
  virtual: ResourceDef[] = [], custom: CustomHandlers = new Map(), opts: ResourceHandlerOptions = {}) {
  const initialEventsAnnotation = `${naming.domain}/initial-events-end`;
  const deprecated = new DeprecatedApiRequests(opts.metrics ?? new MetricsRegistry({ enabled: false }), naming, opts.release);
  const virtualDefs = new Map(virtual.map((d) => [storeKey(d.group, d.version, d.resource), d]));
  return async (ctx: Context, next: Next): Promise<void> => {
    const info = ctx.state.requestInfo as RequestInfo;
    if (!info?.isResourceRequest) return next();
    const key = storeKey(info.group, info.version, info.resource);
    const store = stores.get(key);
    const def = store?.def ?? virtualDefs.get(key);
    if (!def) throw errors.notFoundPath();
    if (info.namespace !== undefined && !def.namespaced) throw errors.notFoundPath();
    if (def.namespaced && info.namespace === undefined && !['list', 'watch'].includes(info.verb)) {
      if (info.name !== undefined) throw errors.notFoundPath();
      throw errors.methodNotAllowed();
    }
    let verbs = def.verbs;
    let connect = false;
    if (info.subresource !== undefined) {
      const sub = def.subresources.find((r) => r.name === info.subresource);
      if (!sub) throw errors.notFoundPath();
      verbs = sub.verbs;
      connect = sub.connect === true;
    }
    if (!verbs.includes(info.verb)) throw errors.methodNotAllowed();
    // POST goes to a collection; on an object path only a subresource (e.g. eviction) takes it.
    if (info.verb === 'create' && info.name !== undefined && info.subresource === undefined) throw errors.methodNotAllowed();
    // The request has a route: a deprecated version is warned about before the verb runs, so an error carries it too.
    if (def.deprecation) deprecated.record(ctx, def, info.subresource);
    const user = ctx.state.user as UserInfo | undefined;
    const customHandler = custom.get(customKey(info.group, info.version, info.resource, info.subresource, info.verb));
    if (customHandler) {
      // A connect subresource answers what the kubelet or pod answers (logs, a proxied page): no Accept to check.
      if (!connect) negotiateResponse(ctx.get('accept'), 'object', undefined);
      await customHandler({ ctx, info, def, store, user });
      return;
    }
    const handler = handlers[info.verb];
    if (!handler || !store) throw errors.methodNotAllowed();
    // An Accept we cannot produce is refused before anything is written, as Kubernetes' handlers do.
    negotiateResponse(ctx.get('accept'), info.verb === 'watch' ? 'watch' : info.verb === 'list' ? 'list' : 'object', { apiVersion: store.apiVersion, kind: def.kind });
    await handler({ ctx, info, store, user, limits, initialEventsAnnotation });
  };
}
