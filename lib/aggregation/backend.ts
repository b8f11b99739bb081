/**
 * Reaching the server behind an APIService (kube-aggregator's service resolver and proxy
 * transport), shared by the proxy, the availability checks and the discovery and OpenAPI fetches:
 *  - resolution, as k8s.io/apiserver/pkg/util/proxy: by default to the Service's cluster IP and
 *    port (ResolveCluster; an ExternalName service to its external name), with
 *    --enable-aggregator-routing to a ready endpoint address of the service port (ResolveEndpoint);
 *    `default/kubernetes` port 443 is this server itself (the loopback resolver). Failures carry
 *    Kubernetes' texts;
 *  - TLS: the caBundle as the only trusted roots (or no verification with insecureSkipTLSVerify),
 *    the server name `<service>.<namespace>.svc`, and the front-proxy client certificate
 *    (--proxy-client-cert-file, --proxy-client-key-file) presented;
 *  - connections shared per backend address and TLS configuration (backend-pool.ts): HTTP/2 to a
 *    backend that takes it by ALPN, one connection carrying every request as a stream; else a
 *    keep-alive HTTP/1.1 agent. The discovery and OpenAPI fetches go on the proxy's connections;
 *    the availability checks have pooled connections of their own (their TLS trusts any
 *    certificate, as kube's checks do).
 */
import { EventEmitter } from 'node:events';
import type http from 'node:http';
import type { ConnectionOptions } from 'node:tls';
import { isIP } from 'node:net';
import { X509Certificate } from 'node:crypto';
import type { ObjectLookup } from '../authn/object-lookup';
import { type ApiService, caBundlePem } from './api-service';
import { type AbortRequest, type AnswerSink, type BackendAnswer, type BackendRequest, type ConnectionTarget, HopError } from './backend-exchange';
import { BackendPool, type HealthCheckTimes } from './backend-pool';

/** Why a backend could not be resolved or reached; `message` is Kubernetes' text. */
export class BackendError extends Error {
  constructor(readonly reason: 'ServiceNotFound' | 'ServicePortError' | 'EndpointsNotFound' | 'MissingEndpoints' | 'ServiceAccessError' | 'Unreachable', message: string) {
    super(message);
  }
}

export interface ResolvedBackend {
  host: string;
  port: number;
  /** TLS server name checked against the serving certificate. */
  servername: string;
  /** This server itself (default/kubernetes:443). */
  loopback: boolean;
}

export interface BackendDeps {
  services: ObjectLookup;
  endpoints: ObjectLookup;
  /** --enable-aggregator-routing: to an endpoint address rather than the cluster IP. */
  enableAggregatorRouting: boolean;
  /** The front-proxy client identity, presented to every backend; absent: none (kube warns at start). */
  proxyClient?: { certPem: string; keyPem: string };
  /** This server's own URL and the CA that signed its serving certificate (the loopback resolver). */
  selfUrl: () => string;
  selfCaPem: string;
  /** The HTTP/2 connections' health check (default client-go's: 30 s idle, 15 s for the PING's answer). */
  healthCheck?: HealthCheckTimes;
}

/** A document fetched whole (fetch()). */
export interface DocumentRequest { path: string; headers: http.OutgoingHttpHeaders; timeoutMs: number }

export interface FetchedAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? v as Obj : {});
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function joinHostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export class BackendTransport {
  private readonly pool: BackendPool;
  private readonly transportErrors = new WeakMap<ApiService, string>();
  /** The pool target of each APIService object, for the backend it last resolved to. */
  private readonly targets = new WeakMap<ApiService, ConnectionTarget>();

  constructor(readonly deps: BackendDeps) {
    this.pool = new BackendPool(deps.healthCheck);
  }

  /** Where the APIService's requests go now; rejects with a BackendError in Kubernetes' words. */
  async resolve(svc: ApiService): Promise<ResolvedBackend> {
    const ref = svc.spec?.service;
    if (!ref) throw new BackendError('ServiceNotFound', 'the APIService is served locally');
    const namespace = ref.namespace ?? '';
    const name = ref.name ?? '';
    const port = ref.port ?? 443;
    const servername = `${name}.${namespace}.svc`;
    if (namespace === 'default' && name === 'kubernetes' && port === 443) {
      const u = new URL(this.deps.selfUrl());
      const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
      return { host, port: Number(u.port || 443), servername: isIP(host) ? 'localhost' : host, loopback: true };
    }
    const service = asObj(await this.deps.services.get(namespace, name));
    if (!service.spec) throw new BackendError('ServiceNotFound', `service "${name}" not found`);
    const spec = asObj(service.spec);
    const type = (spec.type as string | undefined) ?? 'ClusterIP';
    if (this.deps.enableAggregatorRouting) return this.resolveEndpoint(namespace, name, spec, type, port, servername);
    if (type === 'ClusterIP' && spec.clusterIP === 'None') throw new BackendError('ServiceAccessError', 'cannot route to service with ClusterIP "None"');
    if (type === 'ClusterIP' || type === 'LoadBalancer' || type === 'NodePort') {
      const svcPort = findServicePort(spec, name, port);
      return { host: String(spec.clusterIP ?? ''), port: Number(svcPort.port), servername, loopback: false };
    }
    if (type === 'ExternalName') return { host: String(spec.externalName ?? ''), port, servername, loopback: false };
    throw new BackendError('ServiceAccessError', `unsupported service type "${type}"`);
  }

  private async resolveEndpoint(namespace: string, name: string, spec: Obj, type: string, port: number, servername: string): Promise<ResolvedBackend> {
    const svcPort = findServicePort(spec, name, port);
    // An ExternalName service has no endpoints to route to: refused, as ResolveEndpoints does.
    if (type !== 'ClusterIP' && type !== 'LoadBalancer' && type !== 'NodePort') {
      throw new BackendError('ServiceAccessError', `unsupported service type "${type}"`);
    }
    const endpoints = asObj(await this.deps.endpoints.get(namespace, name));
    if (!endpoints.metadata) throw new BackendError('EndpointsNotFound', `endpoints "${name}" not found`);
    const subsets = asList(endpoints.subsets).map(asObj);
    if (!subsets.length) throw new BackendError('MissingEndpoints', `no endpoints available for service "${name}"`);
    const seed = Math.floor(Math.random() * subsets.length);
    for (let i = 0; i < subsets.length; i++) {
      const ss = subsets[(seed + i) % subsets.length];
      const addresses = asList(ss.addresses).map(asObj);
      if (!addresses.length) continue;
      for (const p of asList(ss.ports).map(asObj)) {
        if ((p.name ?? '') === (svcPort.name ?? '')) {
          const ip = String(addresses[Math.floor(Math.random() * addresses.length)].ip ?? '');
          return { host: ip, port: Number(p.port), servername, loopback: false };
        }
      }
    }
    throw new BackendError('MissingEndpoints', `no endpoints available for service "${name}"`);
  }

  /** The TLS options for this APIService's backend. */
  tlsOptions(svc: ApiService, backend: ResolvedBackend): ConnectionOptions {
    const opts: ConnectionOptions = { servername: backend.servername, ALPNProtocols: ['http/1.1'] };
    if (backend.loopback) {
      opts.ca = this.deps.selfCaPem;
      opts.rejectUnauthorized = true;
      opts.servername = backend.servername;
    } else if (svc.spec?.insecureSkipTLSVerify) {
      opts.rejectUnauthorized = false;
    } else {
      const ca = caBundlePem(svc);
      // Without a caBundle Go falls back to the system roots; so does Node without `ca`.
      if (ca) opts.ca = ca;
      opts.rejectUnauthorized = true;
    }
    if (this.deps.proxyClient) {
      opts.cert = this.deps.proxyClient.certPem;
      opts.key = this.deps.proxyClient.keyPem;
    }
    return opts;
  }

  /** Where the pool connects for this APIService's backend: requests to equal targets share a connection. */
  private targetFor(svc: ApiService, backend: ResolvedBackend): ConnectionTarget {
    const authority = joinHostPort(backend.host, backend.port);
    const known = this.targets.get(svc);
    if (known && known.authority === authority && known.tls.servername === backend.servername) return known;
    const trust = backend.loopback ? 'self' : svc.spec?.insecureSkipTLSVerify ? 'insecure' : caBundlePem(svc) ?? 'system';
    const target = { key: `${authority}|${backend.servername}|${trust}`, host: backend.host, port: backend.port, tls: this.tlsOptions(svc, backend), authority };
    this.targets.set(svc, target);
    return target;
  }

  /**
   * Kubernetes' transport-building error for this APIService (client-go's CA loading), or
   * undefined: a caBundle that holds no usable certificate cannot make a transport.
   */
  transportError(svc: ApiService): string | undefined {
    // Worked out once per APIService object (the cache replaces the object when it changes).
    const known = this.transportErrors.get(svc);
    if (known !== undefined) return known || undefined;
    let error = '';
    const pem = svc.spec?.insecureSkipTLSVerify ? undefined : caBundlePem(svc);
    if (pem !== undefined) {
      const problem = caDataProblem(pem);
      if (problem) error = `unable to load root certificates: ${problem}`;
    }
    this.transportErrors.set(svc, error);
    return error || undefined;
  }

  /**
   * Sends one request to the APIService's backend; resolves once the answer's head is in (the
   * body is the caller's to copy, discard or abandon). Rejects with a BackendError: the
   * resolution's, or 'Unreachable' with the dial, TLS or protocol error's text. `onStart` is
   * given the request's abort at once (the caller gone, the request timeout answered).
   */
  async request(svc: ApiService, req: BackendRequest, onStart?: (abort: AbortRequest) => void): Promise<{ answer: BackendAnswer; backend: ResolvedBackend }> {
    const backend = await this.resolve(svc);
    try {
      return { answer: await this.pool.send(this.targetFor(svc, backend), req, onStart), backend };
    } catch (err) {
      throw err instanceof HopError ? new BackendError('Unreachable', err.message) : err;
    }
  }

  /**
   * An availability check's request to `backend`, on the checks' own pooled connection to it:
   * any serving certificate is taken (kube's check: "if someone owns the network and messes with
   * your status that's not so bad"), the front-proxy client certificate presented. Rejects
   * with a HopError.
   */
  check(backend: ResolvedBackend, req: BackendRequest, onStart?: (abort: AbortRequest) => void): Promise<BackendAnswer> {
    const { host, port } = backend;
    const authority = joinHostPort(host, port);
    const proxyClient = this.deps.proxyClient;
    return this.pool.send({
      key: `check|${authority}`, host, port, authority,
      tls: { rejectUnauthorized: false, servername: isIP(host) ? undefined : host, ...(proxyClient ? { cert: proxyClient.certPem, key: proxyClient.keyPem } : {}) },
    }, req, onStart);
  }

  /**
   * One whole small answer (the discovery and OpenAPI documents), at most `maxBytes` of body and
   * within `timeoutMs` from the request to the answer's last byte, as a GET on the APIService's
   * pooled connection (the proxy's: its HTTP/2 session as one more stream, or a keep-alive
   * HTTP/1.1 socket), with the same TLS verification and front-proxy certificate. Rejects with a
   * BackendError: the resolution's, or 'Unreachable' with the transport's text.
   */
  async fetch(svc: ApiService, req: DocumentRequest, maxBytes: number): Promise<FetchedAnswer> {
    const deadline = Date.now() + req.timeoutMs;
    const { answer } = await this.request(svc, {
      method: 'GET', path: req.path, headers: req.headers, timeoutMs: req.timeoutMs,
      timeoutText: 'net/http: request canceled (Client.Timeout exceeded while awaiting headers)',
    });
    try {
      const body = await readWhole(answer, maxBytes, deadline - Date.now());
      return { status: answer.statusCode, headers: answer.headers, body };
    } catch (err) {
      throw new BackendError('Unreachable', (err as Error).message);
    }
  }

  close(): void {
    this.pool.close();
  }
}

/**
 * Reads an answer's body to its end: rejects when it passes `maxBytes`, is cut short, or is not
 * whole within `timeoutMs` (the answer is then abandoned).
 */
function readWhole(answer: BackendAnswer, maxBytes: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const sink = new EventEmitter() as EventEmitter & AnswerSink;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) {
        // Abandoned: the exchange cancels its stream or destroys its socket.
        sink.emit('close');
        reject(err);
      } else {
        resolve(Buffer.concat(chunks));
      }
    };
    sink.write = (chunk) => {
      if (done) return true;
      size += chunk.length;
      if (size > maxBytes) finish(new Error(`response body larger than ${maxBytes} bytes`));
      else chunks.push(chunk);
      return true;
    };
    sink.end = () => finish();
    sink.destroy = () => finish(new Error('unexpected EOF'));
    const timer = setTimeout(() => finish(new Error('net/http: request canceled (Client.Timeout or context cancellation while reading body)')), Math.max(timeoutMs, 0));
    answer.pipe(sink);
  });
}

/** findServicePort: the service port whose `port` is the APIService's; else Kubernetes' 503 text. */
function findServicePort(spec: Obj, name: string, port: number): Obj {
  for (const p of asList(spec.ports).map(asObj)) if (p.port === port) return p;
  throw new BackendError('ServicePortError', `no service port ${port} found for service "${name}"`);
}

/** client-go's reading of CA data: what is wrong with it, or undefined when a certificate is in it. */
function caDataProblem(pem: string): string | undefined {
  const blocks = [...pem.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g)];
  if (!blocks.length) return 'unable to parse bytes as PEM block';
  let good = 0;
  for (const b of blocks) {
    if (b[1] !== 'CERTIFICATE') continue;
    try {
      new X509Certificate(b[0]);
      good++;
    } catch {
      return 'failed to parse certificate: x509: malformed certificate';
    }
  }
  return good ? undefined : 'no valid certificate authority data seen';
}
