/**
 * The connect subresources' handlers (kube-apiserver's pod/rest LogREST, ExecREST, AttachREST,
 * PortForwardREST, ProxyREST; node and service ProxyREST), registered as custom handlers keyed by
 * customKey(). They run after authentication, authorization (GET is `get`, POST `create`, ... on
 * `pods/exec` and so on, as RequestInfo names a connect request), audit and the in-flight limits
 * (these requests are long-running, so exempt), then find where the request goes (locations.ts)
 * and either stream a plain request (forward.ts) or pass an upgrade through (tunnel.ts).
 */
import type { Context } from 'koa';
import { customKey, type CustomHandlers, type CustomScope } from '../api/resource-handler';
import { errors, isApiError } from '../meta/api-errors';
import type { StoreIndex } from '../registry/store-index';
import { asksUpgrade, upgradeOffered } from '../http/upgrade';
import type { KubeletClient } from './client';
import { chooseContainer, getCore, kubeletOf, nodeNameOf, nodeProxyBackend, podProxyBackend, serviceProxyBackend, type Backend } from './locations';
import { logOptions, portForwardQuery, streamOptions } from './options';
import { forwardedHeaders, forwardProxy, streamLog } from './forward';
import { dial, hostPort } from './dial';
import { upgradeThrough } from './tunnel';
import { plainError } from './errors';

export interface KubeletHandlerDeps {
  stores: StoreIndex;
  client: KubeletClient;
}

const PROXY_VERBS = ['get', 'create', 'update', 'patch', 'delete'];

function query(ctx: Context): URLSearchParams {
  return new URLSearchParams(ctx.querystring);
}

/** The request's path below `/proxy` (raw, as sent) and the path up to and including `/proxy`. */
function proxyPaths(ctx: Context, namespaced: boolean): { rest: string; prefix: string } {
  const segments = ctx.path.split('/');
  // ['', 'api', 'v1', ('namespaces', ns,) resource, name, 'proxy', ...rest]
  const at = namespaced ? 7 : 5;
  return { rest: segments.slice(at + 1).join('/'), prefix: segments.slice(0, at + 1).join('/') };
}

/**
 * Passes an upgrade request to `backend` at `path` (kube's tryUpgrade). Errors before the
 * client's connection is taken are thrown, to be answered as any other.
 */
async function tunnel(ctx: Context, backend: Backend, client: KubeletClient, path: string): Promise<void> {
  let conn;
  try {
    conn = await dial(backend, client);
  } catch (err) {
    throw plainError(`error dialing backend: ${(err as Error).message}`);
  }
  try {
    await upgradeThrough(ctx, conn, path, hostPort(backend), forwardedHeaders(ctx, true), client.timeoutMs);
  } catch (err) {
    conn.destroy();
    throw isApiError(err) ? err : plainError((err as Error).message);
  }
}

/** Whether this request is an upgrade this connection can hand over (HTTP/1.1 only). */
function isUpgrade(ctx: Context): boolean {
  return asksUpgrade(ctx.req.headers as Record<string, string | string[] | undefined>) && upgradeOffered(ctx.req);
}

export function kubeletHandlers(deps: KubeletHandlerDeps): CustomHandlers {
  const { stores, client } = deps;
  const handlers: CustomHandlers = new Map();
  const add = (resource: string, sub: string, verbs: string[], h: (s: CustomScope) => Promise<void>) => {
    for (const verb of verbs) handlers.set(customKey('', 'v1', resource, sub, verb), h);
  };

  add('pods', 'log', ['get'], async ({ ctx, info }) => {
    const name = info.name!;
    const opts = logOptions(query(ctx), name);
    const pod = await getCore(stores, 'pods', info.namespace, name);
    const container = chooseContainer(pod, name, opts.container);
    const nodeName = nodeNameOf(pod);
    // Not yet bound: no location, and kube-apiserver streams nothing (204).
    if (!nodeName) {
      ctx.status = 204;
      ctx.body = null;
      return;
    }
    const kubelet = { ...await kubeletOf(stores, client, nodeName), skipVerify: opts.insecureSkipTLSVerifyBackend };
    const path = `/containerLogs/${enc(info.namespace!)}/${enc(name)}/${enc(container)}${opts.query ? `?${opts.query}` : ''}`;
    await streamLog(ctx, kubelet, client, path, name);
  });

  // exec, attach, portforward: an upgrade is required (UpgradeAwareHandler with UpgradeRequired).
  const stream = (kind: 'exec' | 'attach' | 'portforward') => async ({ ctx, info }: CustomScope) => {
    const name = info.name!;
    const q = query(ctx);
    const pod = await getCore(stores, 'pods', info.namespace, name);
    let path: string;
    if (kind === 'portforward') {
      const qs = portForwardQuery(q);
      path = `/portForward/${enc(info.namespace!)}/${enc(name)}${qs ? `?${qs}` : ''}`;
    } else {
      const opts = streamOptions(q, kind === 'exec');
      const container = chooseContainer(pod, name, opts.container);
      path = `/${kind}/${enc(info.namespace!)}/${enc(name)}/${enc(container)}${opts.query ? `?${opts.query}` : ''}`;
    }
    const nodeName = nodeNameOf(pod);
    if (!nodeName) throw errors.badRequest(`pod ${name} does not have a host assigned`);
    const kubelet = await kubeletOf(stores, client, nodeName);
    if (!isUpgrade(ctx)) throw errors.badRequest('Upgrade request required');
    await tunnel(ctx, kubelet, client, path);
  };
  add('pods', 'exec', ['get', 'create'], stream('exec'));
  add('pods', 'attach', ['get', 'create'], stream('attach'));
  add('pods', 'portforward', ['get', 'create'], stream('portforward'));

  const proxy = (namespaced: boolean, locate: (info: CustomScope['info']) => Promise<Backend>) => async ({ ctx, info }: CustomScope) => {
    const backend = await locate(info);
    const { rest, prefix } = proxyPaths(ctx, namespaced);
    let path = `/${rest}`;
    if (!path.endsWith('/') && ctx.path.endsWith('/')) path += '/';
    if (isUpgrade(ctx)) {
      await tunnel(ctx, backend, client, `${path}${ctx.querystring ? `?${ctx.querystring}` : ''}`);
      return;
    }
    // An empty path is redirected to one ending in '/' (kube's proxyRedirectsforRootPath).
    if (rest === '' && !ctx.path.endsWith('/') && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.body = null;
      ctx.status = 301;
      ctx.set('Location', `${ctx.path}/${ctx.querystring ? `?${ctx.querystring}` : ''}`);
      return;
    }
    await forwardProxy(ctx, backend, client, `${path}${ctx.querystring ? `?${ctx.querystring}` : ''}`, prefix);
  };
  add('pods', 'proxy', PROXY_VERBS, proxy(true, (info) => podProxyBackend(stores, info.namespace!, info.name!)));
  add('nodes', 'proxy', PROXY_VERBS, proxy(false, (info) => nodeProxyBackend(stores, client, info.name!)));
  add('services', 'proxy', PROXY_VERBS, proxy(true, (info) => serviceProxyBackend(stores, info.namespace!, info.name!)));
  return handlers;
}

/** A path segment as Go's url.URL writes Path (names are DNS labels; escaped anyway). */
function enc(segment: string): string {
  return encodeURIComponent(segment);
}
