/**
 * An extension API server for the aggregation layer's tests: HTTPS with a serving certificate for
 * `<service>.<namespace>.svc` signed by a CA of its own (the APIService's caBundle), serving one
 * group-version with one namespaced kind, Widget (create, get, list, watch, delete), its discovery
 * (plain and aggregated), OpenAPI v2 (with an ETag) and v3, and /healthz. As a k8s.io/apiserver
 * server behind kube-aggregator does, it trusts the caller's identity only from the X-Remote-*
 * headers of a client certificate signed by the front-proxy CA it is given (else 401), and records
 * every call with the identity it saw. It can be stopped and started again on the same port. With
 * `http2`, it offers h2 by ALPN (and HTTP/1.1 besides), as Go servers do; without, HTTP/1.1 only.
 */
import https from 'node:https';
import http2 from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createHash, randomUUID } from 'node:crypto';
import { issueCert, Issued } from './x509-certs';

export interface ExtensionCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** The caller's TCP port: calls on one kept-alive connection share it. */
  remotePort?: number;
  /** '1.1' or '2.0'. */
  httpVersion: string;
  /** CN of the client certificate, when one verified against the front-proxy CA. */
  clientCn?: string;
  /** The identity from X-Remote-User / -Group / -Extra-*, when the certificate was trusted. */
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface ExtensionServerOptions {
  group?: string;
  version?: string;
  /** The Service the APIService names: the serving certificate is for `<service>.<namespace>.svc`. */
  service?: string;
  namespace?: string;
  /** Client certificates of this CA are trusted to assert X-Remote-*; absent: every call is anonymous-but-allowed. */
  frontProxyCaPem?: string;
  /** Only these client certificate CNs may assert identities (--requestheader-allowed-names); empty: any. */
  allowedNames?: string[];
  /** false: no /openapi/v3 (404), as servers built on k8s.io/apiserver before 1.23 (OpenAPI v2 only). */
  openApiV3?: boolean;
  /** Offer h2 by ALPN (with HTTP/1.1 besides); absent or false: HTTP/1.1 only. */
  http2?: boolean;
}

export interface ExtensionServer {
  port: number;
  group: string;
  version: string;
  /** The serving CA: PEM, and base64 for an APIService's caBundle. */
  caPem: string;
  caBundle: string;
  calls: ExtensionCall[];
  /** The calls to a path (query excluded). */
  callsTo(path: string): ExtensionCall[];
  /** While set, discovery of the group-version answers this status (the availability check fails). */
  failDiscovery?: number;
  /** Bumped to change the OpenAPI documents (and their ETag). */
  openApiRevision: number;
  /** While set, this user's requests for the v3 document are refused (403), as the backend's own authorization would. */
  refusedOpenApiUser?: string;
  /** TLS connections accepted so far. */
  connections: number;
  /** Watches that ended on the server's side (the caller, or the proxy for it, went away). */
  watchesClosed: number;
  /** HTTP/2: every open session says GOAWAY (node:http2's graceful close): no new streams on it. */
  goaway(): void;
  /** Stops listening and cuts every connection (watches end). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

interface Widget { apiVersion: string; kind: string; metadata: Record<string, unknown>; spec?: unknown }

const STATUS = (code: number, reason: string, message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

export async function startExtensionServer(opts: ExtensionServerOptions = {}): Promise<ExtensionServer> {
  const group = opts.group ?? 'widgets.example.test';
  const version = opts.version ?? 'v1alpha1';
  const gv = `${group}/${version}`;
  const service = opts.service ?? 'api';
  const namespace = opts.namespace ?? 'widgets';
  const ca: Issued = issueCert({ commonName: 'extension-ca', ca: true });
  const serving = issueServing(ca, `${service}.${namespace}.svc`);
  const widgets = new Map<string, Widget>();
  const watchers = new Set<{ ns?: string; res: ServerResponse }>();
  let revision = 1;
  const ext: ExtensionServer = {
    port: 0, group, version, caPem: ca.certPem, caBundle: Buffer.from(ca.certPem).toString('base64'),
    calls: [], callsTo: (p) => ext.calls.filter((c) => c.path === p), openApiRevision: 1, connections: 0, watchesClosed: 0,
    stop: async () => undefined, start: async () => undefined, goaway: () => undefined,
  };

  // With a Content-Length, as a Go server sends a small answer (the proxy must pass it on exactly).
  const send = (res: ServerResponse, status: number, body: unknown, contentType = 'application/json', headers: Record<string, string> = {}) => {
    const bytes = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    res.writeHead(status, { 'content-type': contentType, 'content-length': String(bytes.length), ...headers });
    res.end(bytes);
  };

  const resource = { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['create', 'delete', 'get', 'list', 'watch'], shortNames: ['wd'] };
  const groupEntry = { name: group, versions: [{ groupVersion: gv, version }], preferredVersion: { groupVersion: gv, version } };
  const defName = `${group.split('.').reverse().join('.')}.${version}.Widget`;
  const openApiV2 = () => ({
    swagger: '2.0', info: { title: 'widgets', version: `r${ext.openApiRevision}` },
    paths: {
      [`/apis/${gv}/namespaces/{namespace}/widgets`]: {
        get: { operationId: `listWidgets${ext.openApiRevision}`, 'x-kubernetes-action': 'list', 'x-kubernetes-group-version-kind': { group, version, kind: 'Widget' }, responses: { 200: { description: 'OK', schema: { $ref: `#/definitions/${defName}List` } } } },
        post: { operationId: 'createWidget', responses: { 201: { description: 'Created', schema: { $ref: `#/definitions/${defName}` } } } },
      },
    },
    definitions: {
      [defName]: {
        description: 'A Widget is a thing an extension server serves.', type: 'object',
        properties: {
          apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' },
          spec: { type: 'object', description: 'What the widget should be.', properties: { size: { type: 'integer', format: 'int32', description: 'How big.' } } },
        },
        'x-kubernetes-group-version-kind': [{ group, version, kind: 'Widget' }],
      },
      [`${defName}List`]: {
        type: 'object', properties: { items: { type: 'array', items: { $ref: `#/definitions/${defName}` } } },
        'x-kubernetes-group-version-kind': [{ group, version, kind: 'WidgetList' }],
      },
    },
  });
  const etag = (doc: unknown) => `"${createHash('sha256').update(JSON.stringify(doc)).digest('hex').slice(0, 32).toUpperCase()}"`;

  const identify = (req: IncomingMessage, call: ExtensionCall): boolean => {
    if (!opts.frontProxyCaPem) return true;
    const socket = req.socket as TLSSocket;
    const peer = socket.getPeerCertificate?.();
    if (!socket.authorized || !peer?.subject) return false;
    call.clientCn = String(peer.subject.CN);
    if (opts.allowedNames?.length && !opts.allowedNames.includes(call.clientCn)) return false;
    const user = req.headers['x-remote-user'];
    if (typeof user !== 'string' || !user) return false;
    call.user = user;
    // One header line (or field) per group and per extra value (node joins repeated ones with ', ').
    const distinct = new Map<string, string[]>();
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const k = req.rawHeaders[i].toLowerCase();
      distinct.set(k, [...distinct.get(k) ?? [], req.rawHeaders[i + 1]]);
    }
    call.groups = distinct.get('x-remote-group') ?? [];
    call.extra = {};
    for (const [k, v] of distinct) {
      if (!k.startsWith('x-remote-extra-')) continue;
      call.extra[decodeURIComponent(k.slice('x-remote-extra-'.length))] = v;
    }
    return true;
  };

  const notify = (type: string, w: Widget) => {
    for (const watcher of watchers) {
      if (watcher.ns && watcher.ns !== w.metadata.namespace) continue;
      watcher.res.write(`${JSON.stringify({ type, object: w })}\n`);
    }
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const u = new URL(req.url ?? '/', 'https://x');
    const call: ExtensionCall = { method: req.method ?? '', path: u.pathname, query: u.searchParams, headers: req.headers, remotePort: req.socket.remotePort, httpVersion: req.httpVersion };
    ext.calls.push(call);
    if (u.pathname === '/healthz' || u.pathname === '/readyz' || u.pathname === '/livez') return send(res, 200, 'ok', 'text/plain');
    if (!identify(req, call)) return send(res, 401, STATUS(401, 'Unauthorized', 'Unauthorized'));
    const accept = String(req.headers.accept ?? '');
    if (u.pathname === '/apis') {
      if (accept.includes('as=APIGroupDiscoveryList')) {
        const v = accept.includes('v=v2beta1') ? 'v2beta1' : 'v2';
        const doc = {
          kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${v}`, metadata: {},
          items: [{ metadata: { name: group }, versions: [{ version, freshness: 'Current', resources: [{
            resource: 'widgets', responseKind: { group, version, kind: 'Widget' }, scope: 'Namespaced', singularResource: 'widget',
            verbs: resource.verbs, shortNames: resource.shortNames,
          }] }] }],
        };
        return send(res, 200, doc, `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`);
      }
      return send(res, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [groupEntry] });
    }
    if (u.pathname === `/apis/${group}`) return send(res, 200, { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry });
    if (u.pathname === `/apis/${gv}`) {
      if (ext.failDiscovery) return send(res, ext.failDiscovery, STATUS(ext.failDiscovery, 'InternalError', 'discovery is failing'));
      return send(res, 200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources: [resource] });
    }
    if (u.pathname === '/openapi/v2') {
      const doc = openApiV2();
      const tag = etag(doc);
      if (req.headers['if-none-match'] === tag) { res.writeHead(304, { etag: tag }); return res.end(); }
      return send(res, 200, doc, 'application/json', { etag: tag });
    }
    if (u.pathname.startsWith('/openapi/v3') && opts.openApiV3 === false) return send(res, 404, STATUS(404, 'NotFound', 'the server could not find the requested resource'));
    if (u.pathname === '/openapi/v3') {
      return send(res, 200, { paths: { [`apis/${gv}`]: { serverRelativeURL: `/openapi/v3/apis/${gv}?hash=R${ext.openApiRevision}` } } });
    }
    if (u.pathname === `/openapi/v3/apis/${gv}`) {
      if (ext.refusedOpenApiUser && req.headers['x-remote-user'] === ext.refusedOpenApiUser) {
        return send(res, 403, STATUS(403, 'Forbidden', `forbidden: User "${ext.refusedOpenApiUser}" cannot get path "${u.pathname}"`));
      }
      const tag = `"R${ext.openApiRevision}"`;
      if (req.headers['if-none-match'] === tag) { res.writeHead(304, { etag: tag }); return res.end(); }
      const v2 = openApiV2();
      // kubectl explain finds a resource's kind by the GET operation of its path.
      const gvk = { group, version, kind: 'Widget' };
      const paths = { [`/apis/${gv}/namespaces/{namespace}/widgets`]: { get: { operationId: 'listWidgets', 'x-kubernetes-action': 'list', 'x-kubernetes-group-version-kind': gvk, responses: {} } } };
      return send(res, 200, { openapi: '3.0.0', info: v2.info, paths, components: { schemas: v2.definitions } }, 'application/json', { etag: tag });
    }
    const m = new RegExp(`^/apis/${gv.replace(/\./g, '\\.')}/(?:namespaces/([^/]+)/)?widgets(?:/([^/]+))?$`).exec(u.pathname);
    if (!m) return send(res, 404, STATUS(404, 'NotFound', 'the server could not find the requested resource'));
    const [, ns, name] = m;
    const key = `${ns}/${name}`;
    if (req.method === 'GET' && name) {
      const w = widgets.get(key);
      return w ? send(res, 200, w) : send(res, 404, STATUS(404, 'NotFound', `widgets.${group} "${name}" not found`));
    }
    if (req.method === 'GET' && u.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json', ...(req.httpVersionMajor === 1 ? { 'transfer-encoding': 'chunked' } : {}) });
      res.flushHeaders();
      const watcher = { ns, res };
      watchers.add(watcher);
      res.on('close', () => {
        watchers.delete(watcher);
        ext.watchesClosed++;
      });
      for (const w of widgets.values()) if (!ns || w.metadata.namespace === ns) res.write(`${JSON.stringify({ type: 'ADDED', object: w })}\n`);
      return undefined;
    }
    if (req.method === 'GET') {
      const items = [...widgets.values()].filter((w) => !ns || w.metadata.namespace === ns);
      return send(res, 200, { kind: 'WidgetList', apiVersion: gv, metadata: { resourceVersion: String(revision) }, items });
    }
    if (req.method === 'POST' && ns && !name) {
      let w: Widget;
      try { w = JSON.parse(body.toString('utf8')) as Widget; } catch { return send(res, 400, STATUS(400, 'BadRequest', 'not JSON')); }
      const wName = String((w.metadata ?? {}).name ?? '');
      if (!wName) return send(res, 422, STATUS(422, 'Invalid', 'metadata.name: Required value'));
      if (widgets.has(`${ns}/${wName}`)) return send(res, 409, STATUS(409, 'AlreadyExists', `widgets.${group} "${wName}" already exists`));
      const stored: Widget = { ...w, apiVersion: gv, kind: 'Widget', metadata: { ...w.metadata, namespace: ns, uid: randomUUID(), resourceVersion: String(++revision), creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') } };
      widgets.set(`${ns}/${wName}`, stored);
      notify('ADDED', stored);
      return send(res, 201, stored);
    }
    if (req.method === 'DELETE' && name) {
      const w = widgets.get(key);
      if (!w) return send(res, 404, STATUS(404, 'NotFound', `widgets.${group} "${name}" not found`));
      widgets.delete(key);
      revision++;
      notify('DELETED', w);
      return send(res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group, kind: 'widgets', uid: w.metadata.uid } });
    }
    return send(res, 405, STATUS(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'));
  };

  let server: https.Server | http2.Http2SecureServer | undefined;
  const sockets = new Set<TLSSocket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  ext.goaway = () => { for (const s of sessions) s.close(); };
  ext.start = async () => {
    const tlsOptions = {
      cert: serving.certPem, key: serving.keyPem, requestCert: true, rejectUnauthorized: false,
      ...(opts.frontProxyCaPem ? { ca: opts.frontProxyCaPem } : {}),
    };
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => handle(req, res, Buffer.concat(chunks)));
    };
    // node:http2's compatibility request and response stand in for node:http's here.
    server = opts.http2
      ? http2.createSecureServer({ ...tlsOptions, allowHTTP1: true }, onRequest as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void)
      : https.createServer(tlsOptions, onRequest);
    server.on('secureConnection', (socket: TLSSocket) => {
      ext.connections++;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    server.on('session', (session: http2.ServerHttp2Session) => {
      sessions.add(session);
      session.on('close', () => sessions.delete(session));
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(ext.port, '127.0.0.1', () => resolve());
    });
    ext.port = (server.address() as AddressInfo).port;
  };
  ext.stop = async () => {
    const s = server;
    server = undefined;
    if (!s) return;
    for (const w of watchers) w.res.destroy();
    watchers.clear();
    for (const session of sessions) session.destroy();
    for (const socket of sockets) socket.destroy();
    await new Promise((r) => s.close(r));
  };
  await ext.start();
  return ext;
}

/** A serving certificate for `dnsName` (and 127.0.0.1, localhost) signed by `ca`. */
function issueServing(ca: Issued, dnsName: string): Issued {
  return issueCert({ commonName: dnsName, extKeyUsage: ['serverAuth'], altNames: [dnsName, 'localhost', '127.0.0.1'] }, ca);
}
