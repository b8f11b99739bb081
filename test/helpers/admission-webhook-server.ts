/**
 * An admission webhook a test serves itself: HTTPS on loopback with a CA and serving certificate
 * of its own (valid for 127.0.0.1, localhost and any service names asked for), optionally asking
 * for a client certificate of that CA. Every request is recorded with its path (query stripped),
 * review and credentials; `handlers` answer by path (default: allow). Helpers build the answers.
 */
import https from 'node:https';
import type { ServerResponse } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { ensurePki, signClientCertificate } from '../../lib/server/pki';

export interface ReviewCall {
  /** The path without the query. */
  path: string;
  /** The `timeout` query parameter kube-apiserver adds (`10s`). */
  timeout: string | null;
  headers: Record<string, string | string[] | undefined>;
  /** The AdmissionReview sent. */
  review: any;
  clientCn?: string;
  at: number;
}

/** An answer: a review response (the helpers), raw bytes with a status, or no answer at all. */
export type HookReply = { response?: Record<string, unknown>; status?: number; raw?: string; apiVersion?: string; delayMs?: number };
export type HookAnswer = HookReply | 'hang';

export interface AdmissionWebhookServer {
  port: number;
  /** `https://127.0.0.1:<port><path>`. */
  url(p: string): string;
  /** The CA as a caBundle (base64 PEM). */
  caBundle: string;
  caPem: string;
  calls: ReviewCall[];
  callsTo(p: string): ReviewCall[];
  /** Answers by path; a path without one allows. */
  handlers: Map<string, (call: ReviewCall) => HookAnswer>;
  clientCertificate(cn: string): { certPem: string; keyPem: string };
  writeFile(name: string, content: string): string;
  stop(): Promise<void>;
}

/** `allowed: true`, optionally with a JSON patch (base64 as the API wants it) and more fields. */
export function allow(call: ReviewCall, extra: Record<string, unknown> = {}, patch?: unknown[]): HookReply {
  const response: Record<string, unknown> = { uid: call.review?.request?.uid, allowed: true, ...extra };
  if (patch) {
    response.patch = Buffer.from(JSON.stringify(patch)).toString('base64');
    if (call.review?.apiVersion?.endsWith('/v1')) response.patchType = 'JSONPatch';
  }
  return { response };
}

/** `allowed: false` with `status` (code, message, reason ...). */
export function deny(call: ReviewCall, status?: Record<string, unknown>, extra: Record<string, unknown> = {}): HookReply {
  return { response: { uid: call.review?.request?.uid, allowed: false, ...(status ? { status } : {}), ...extra } };
}

/** Options; `reviewKind` and `defaultAnswer` let other webhooks (conversion) reuse the server. */
export interface WebhookServerOptions {
  serviceNames?: string[];
  requireClientCert?: boolean;
  /** The kind of the review answered (default `AdmissionReview`). */
  reviewKind?: string;
  /** The answer of a path without a handler (default: allow). */
  defaultAnswer?: (call: ReviewCall) => HookAnswer;
}

export async function startAdmissionWebhookServer(opts: WebhookServerOptions = {}): Promise<AdmissionWebhookServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'admission-webhook-'));
  const pki = await ensurePki(path.join(dir, 'pki'), { serverHosts: ['127.0.0.1', 'localhost', ...(opts.serviceNames ?? [])] });
  const hanging = new Set<ServerResponse>();
  const hook: AdmissionWebhookServer = {
    port: 0, url: (p) => `https://127.0.0.1:${hook.port}${p}`,
    caPem: pki.caCertPem, caBundle: Buffer.from(pki.caCertPem).toString('base64'),
    calls: [], callsTo: (p) => hook.calls.filter((c) => c.path === p),
    handlers: new Map(),
    clientCertificate: (cn) => signClientCertificate(pki, { commonName: cn }),
    writeFile(name, content) {
      const file = path.join(dir, name);
      writeFileSync(file, content);
      return file;
    },
    stop: async () => undefined,
  };
  const server = https.createServer({
    cert: readFileSync(pki.serverCertFile), key: readFileSync(pki.serverKeyFile), ca: pki.caCertPem,
    requestCert: !!opts.requireClientCert, rejectUnauthorized: false,
  }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'https://x');
      let review: unknown;
      try { review = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { review = undefined; }
      const call: ReviewCall = { path: u.pathname, timeout: u.searchParams.get('timeout'), headers: req.headers, review, at: Date.now() };
      const socket = req.socket as TLSSocket;
      const peer = socket.getPeerCertificate?.();
      if (peer && peer.subject && socket.authorized) call.clientCn = String(peer.subject.CN);
      hook.calls.push(call);
      const answer = (hook.handlers.get(call.path) ?? opts.defaultAnswer ?? ((c) => allow(c)))(call);
      if (answer === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      const apiVersion = answer.apiVersion ?? (call.review as any)?.apiVersion;
      const payload = answer.raw ?? JSON.stringify({ apiVersion, kind: opts.reviewKind ?? 'AdmissionReview', response: answer.response });
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
        res.end(payload);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hook.port = (server.address() as AddressInfo).port;
  hook.stop = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  };
  return hook;
}

/** A webhook entry (v1 shape) calling `server` at `p`: CREATE of core v1 configmaps unless overridden. */
export function hookEntry(server: AdmissionWebhookServer, p: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: `${p.replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}.hooks.test.io`,
    clientConfig: { url: server.url(p), caBundle: server.caBundle },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 5,
    ...overrides,
  };
}

type Kind = 'mutating' | 'validating';
interface IndexedPlugin { core: { source: { index: { all(): ReadonlyArray<{ configurationName: string }> } } } }
interface Api {
  post(p: string, body: unknown): Promise<{ status: number; text: string }>;
  del(p: string): Promise<{ status: number; text: string }>;
  server: { admission: { plugins: ReadonlyArray<{ name: string }> }; naming: { group(s: string): string } };
}

/**
 * Webhook configurations a test creates through the API, waited for until the admission
 * plugin has them (so the next request sees them), and removed again by clear().
 */
export class WebhookConfigs {
  private readonly made: Array<{ kind: Kind; name: string }> = [];

  constructor(private readonly t: Api) {}

  private plugin(kind: Kind): IndexedPlugin {
    const name = kind === 'mutating' ? 'MutatingAdmissionWebhook' : 'ValidatingAdmissionWebhook';
    return this.t.server.admission.plugins.find((p) => p.name === name) as unknown as IndexedPlugin;
  }

  path(kind: Kind, version = 'v1', name = ''): string {
    const group = this.t.server.naming.group('admissionregistration');
    return `/apis/${group}/${version}/${kind}webhookconfigurations${name ? `/${name}` : ''}`;
  }

  /** Creates the configuration (expects 201) and waits until its webhooks are in effect. */
  async create(kind: Kind, name: string, webhooks: unknown[], version = 'v1'): Promise<void> {
    const group = this.t.server.naming.group('admissionregistration');
    const res = await this.t.post(this.path(kind, version), {
      apiVersion: `${group}/${version}`, kind: kind === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
      metadata: { name }, webhooks,
    });
    if (res.status !== 201) throw new Error(`creating ${kind} configuration ${name}: ${res.status} ${res.text}`);
    this.made.push({ kind, name });
    await this.until(kind, () => this.has(kind, name));
  }

  async remove(kind: Kind, name: string): Promise<void> {
    await this.t.del(this.path(kind, 'v1', name));
    await this.until(kind, () => !this.has(kind, name));
  }

  async clear(): Promise<void> {
    for (const { kind, name } of this.made.splice(0)) await this.remove(kind, name);
  }

  private has(kind: Kind, name: string): boolean {
    return this.plugin(kind).core.source.index.all().some((h) => h.configurationName === name);
  }

  private async until(kind: Kind, ok: () => boolean): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!ok()) {
      if (Date.now() > deadline) throw new Error(`${kind} webhook configurations did not update in time`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
