/**
 * POSTs an AdmissionReview to a webhook's clientConfig, as kube-apiserver's webhook client does:
 * `url` (https) or `service` (`https://<name>.<namespace>.svc:<port><path>`, the server
 * certificate checked for `<name>.<namespace>.svc`), `?timeout=<n>s` on the path, caBundle or the
 * system roots, credentials from the plugin's kubeconfig, the whole call within timeoutSeconds.
 * This server serves no Services: a service name is resolved by a ServiceResolver (DNS by
 * default; tests inject their own), and when it cannot be the call fails saying so.
 * Every failure is a CallingWebhookError (failurePolicy decides what it means).
 */
import https from 'node:https';
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { CompiledWebhook, WebhookClientConfig } from './compiled-webhook';
import { CredentialResolver, WebhookCredentials } from './webhook-credentials';
import { CallingWebhookError } from './webhook-errors';

/** Where a service's name leads: the address and port to connect to. */
export type ServiceResolver = (namespace: string, name: string, port: number) => Promise<{ host: string; port: number }>;

/** The default: `<name>.<namespace>.svc` through the system resolver (cluster DNS, /etc/hosts). */
export const dnsServiceResolver: ServiceResolver = async (namespace, name, port) => {
  const { address } = await dns.lookup(`${name}.${namespace}.svc`);
  return { host: address, port };
};

/**
 * What a call needs of a webhook: an admission webhook's CompiledWebhook, or the target a CRD's
 * conversion webhook makes (lib/apiextensions/conversion/conversion-client.ts). The endpoint is
 * worked out once per target object.
 */
export type WebhookTarget = Pick<CompiledWebhook, 'name' | 'timeoutSeconds' | 'clientConfig'>;

/** A 2xx reply: its status, Content-Type (empty when absent) and bytes. */
export interface WebhookReply { status: number; contentType: string; body: Buffer }

/** A webhook's reply larger than this is a broken webhook, not something to buffer. */
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

interface Endpoint {
  /** The URL as Kubernetes prints it in errors (`Post "<url>": ...`), without the timeout query. */
  url: string;
  host: string;
  port: number;
  path: string;
  service?: { namespace: string; name: string };
  agent: https.Agent;
  authorization?: string;
}

function authorizationOf(c: WebhookCredentials | undefined): string | undefined {
  if (!c) return undefined;
  if (c.token) return `Bearer ${c.token}`;
  if (c.username || c.password) return `Basic ${Buffer.from(`${c.username ?? ''}:${c.password ?? ''}`).toString('base64')}`;
  return undefined;
}

/** Go's net/http error texts for the common Node failures, so messages read as kube-apiserver's. */
function describeFailure(err: NodeJS.ErrnoException, ep: Endpoint): string {
  switch (err.code) {
    case 'ECONNREFUSED': return `dial tcp ${ep.host}:${ep.port}: connect: connection refused`;
    case 'ETIMEDOUT': return 'context deadline exceeded';
    case 'ECONNRESET': return 'read: connection reset by peer';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE': case 'SELF_SIGNED_CERT_IN_CHAIN': case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY': case 'UNABLE_TO_GET_ISSUER_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': return `tls: failed to verify certificate: x509: ${err.message}`;
    case 'CERT_HAS_EXPIRED': return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default: return err.message;
  }
}

/** The text client-go gives a non-2xx reply. */
function describeStatus(status: number, body: Buffer): string {
  try {
    const s = JSON.parse(body.toString('utf8')) as { kind?: string; message?: string };
    if (s && s.kind === 'Status' && typeof s.message === 'string' && s.message) return s.message;
  } catch {
    // not a Status: described below
  }
  const text = body.toString('utf8').slice(0, 256);
  if (status >= 500) return `an error on the server (${JSON.stringify(text)}) has prevented the request from succeeding`;
  if (status === 404) return 'the server could not find the requested resource';
  return `the server responded with the status code ${status} but did not return more information`;
}

export class WebhookClients {
  private readonly agents = new Map<string, https.Agent>();
  private readonly endpoints = new WeakMap<WebhookTarget, Endpoint>();
  private resolver: ServiceResolver = dnsServiceResolver;

  constructor(private readonly credentials: CredentialResolver) {}

  /** Replaces the service resolver (tests: a service name leading to a loopback server). */
  setServiceResolver(resolver: ServiceResolver): void {
    this.resolver = resolver;
  }

  /**
   * POSTs `body` and resolves with the 2xx reply's bytes; rejects with a CallingWebhookError
   * (code 503 for transport failures and timeouts, the reply's status for a non-2xx reply).
   */
  async post(hook: WebhookTarget, body: Buffer): Promise<Buffer> {
    return (await this.call(hook, body)).body;
  }

  /** As post(), with the reply's status and Content-Type (client-go names them for an empty reply). */
  async call(hook: WebhookTarget, body: Buffer): Promise<WebhookReply> {
    const ep = this.endpointOf(hook);
    const timeoutMs = hook.timeoutSeconds * 1000;
    const deadline = Date.now() + timeoutMs;
    const path = `${ep.path}?timeout=${hook.timeoutSeconds}s`;
    const fail = (reason: string, code = 503) => {
      const detail = `Post ${JSON.stringify(`${ep.url}?timeout=${hook.timeoutSeconds}s`)}: ${reason}`;
      return new CallingWebhookError(hook.name, `failed to call webhook: ${detail}`, code, detail);
    };
    let connectHost = ep.host;
    let connectPort = ep.port;
    if (ep.service) {
      try {
        const resolved = await withDeadline(this.resolver(ep.service.namespace, ep.service.name, ep.port), deadline);
        [connectHost, connectPort] = [resolved.host, resolved.port];
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        if (e.code === 'ETIMEDOUT') throw fail('context deadline exceeded');
        throw fail(`dial tcp: lookup ${ep.host}: no such host (this server serves no Services: ${ep.host} must resolve through DNS)`);
      }
    }
    const headers: Record<string, string> = {
      'content-type': 'application/json', accept: 'application/json, */*', 'content-length': String(body.length),
      'user-agent': 'kube-apiserver-admission', host: ep.port === 443 ? ep.host : `${ep.host}:${ep.port}`,
    };
    if (ep.authorization) headers.authorization = ep.authorization;
    const reply = await new Promise<WebhookReply>((resolve, reject) => {
      const req = https.request({
        method: 'POST', host: connectHost, port: connectPort, path, agent: ep.agent, headers,
        // The certificate is checked for the webhook's name, whatever address it was reached at.
        servername: isIP(ep.host) ? undefined : ep.host,
      }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_REPLY_BYTES) req.destroy(new Error(`reply larger than ${MAX_REPLY_BYTES} bytes`));
          else chunks.push(c);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) });
        });
        res.on('error', (err) => { clearTimeout(timer); reject(err); });
      });
      const timer = setTimeout(() => req.destroy(Object.assign(new Error('context deadline exceeded'), { code: 'ETIMEDOUT' })),
        Math.max(1, deadline - Date.now()));
      req.on('error', (err) => { clearTimeout(timer); reject(err); });
      req.end(body);
    }).catch((err: NodeJS.ErrnoException) => { throw fail(describeFailure(err, { ...ep, host: connectHost, port: connectPort })); });
    // A reply with an error status is client-go's StatusError: no `Post "<url>"` before it.
    if (reply.status < 200 || reply.status > 299) {
      const detail = describeStatus(reply.status, reply.body);
      throw new CallingWebhookError(hook.name, `failed to call webhook: ${detail}`, reply.status, detail);
    }
    return reply;
  }

  /** Drops every pooled connection (plugin stop). */
  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }

  private endpointOf(hook: WebhookTarget): Endpoint {
    const known = this.endpoints.get(hook);
    if (known) return known;
    const cc = hook.clientConfig;
    let ep: Omit<Endpoint, 'agent' | 'authorization'>;
    let creds: WebhookCredentials | undefined;
    if (cc.service) {
      const port = cc.service.port ?? 443;
      const host = `${cc.service.name}.${cc.service.namespace}.svc`;
      const path = cc.service.path || '/';
      ep = { url: `https://${host}:${port}${path}`, host, port, path, service: { namespace: cc.service.namespace, name: cc.service.name } };
      creds = this.credentials.forService(cc.service.name, cc.service.namespace, port);
    } else if (cc.url) {
      let u: URL;
      try {
        u = new URL(cc.url);
      } catch (err) {
        throw new CallingWebhookError(hook.name, `Unparsable URL: ${(err as Error).message}`, 500);
      }
      if (u.protocol !== 'https:') throw new CallingWebhookError(hook.name, `webhook URL must use the https scheme, got ${JSON.stringify(u.protocol.replace(/:$/, ''))}`, 500);
      const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
      const port = u.port ? Number(u.port) : 443;
      const hostPort = `${u.hostname}:${port}`;
      ep = { url: `${u.protocol}//${u.host}${u.pathname}`, host, port, path: u.pathname || '/' };
      creds = this.credentials.forHostPort(hostPort);
    } else {
      throw new CallingWebhookError(hook.name, 'webhook configuration must have either service or URL', 500);
    }
    const endpoint: Endpoint = { ...ep, agent: this.agentFor(cc.caBundle, creds), authorization: authorizationOf(creds) };
    this.endpoints.set(hook, endpoint);
    return endpoint;
  }

  /** One keep-alive pool per trust and client certificate. */
  private agentFor(ca: string | undefined, creds: WebhookCredentials | undefined): https.Agent {
    const key = JSON.stringify([ca ?? '', creds?.certPem ?? '', creds?.keyPem ?? '']);
    let agent = this.agents.get(key);
    if (!agent) {
      agent = new https.Agent({ keepAlive: true, ca: ca || undefined, cert: creds?.certPem, key: creds?.keyPem, ALPNProtocols: ['http/1.1'] });
      this.agents.set(key, agent);
    }
    return agent;
  }
}

function withDeadline<T>(p: Promise<T>, deadline: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(Object.assign(new Error('context deadline exceeded'), { code: 'ETIMEDOUT' })), Math.max(1, deadline - Date.now()));
    p.then((v) => { clearTimeout(timer); resolve(v); }, (e) => { clearTimeout(timer); reject(e); });
  });
}
