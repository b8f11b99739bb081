/**
 * A token-review webhook a test serves itself: HTTPS on loopback with a CA and serving
 * certificate of its own (lib/server/pki.ts in a temporary directory), optionally requiring a
 * client certificate of that CA. Every request is recorded; `reply` decides each answer.
 */
import https from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { Pki, ensurePki, signClientCertificate } from '../../lib/server/pki';

export interface WebhookRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  body: any;
  /** CN of the client certificate presented, when one was. */
  clientCn?: string;
}

/** A JSON reply, a raw one, or no reply at all (the connection is left hanging). */
export type WebhookAnswer = { status?: number; json?: unknown; raw?: string; headers?: Record<string, string>; delayMs?: number } | 'hang';

export interface TokenWebhook {
  url: string;
  /** The webhook's CA (PEM): what the kubeconfig trusts. */
  caPem: string;
  pki: Pki;
  dir: string;
  requests: WebhookRequest[];
  /** How each request is answered; replace it per test. */
  reply: (req: WebhookRequest) => WebhookAnswer;
  /** A client certificate signed by the webhook's CA. */
  clientCertificate(cn: string): { certPem: string; keyPem: string };
  /** Writes `content` (an object: JSON) to a file in the webhook's directory; returns its path. */
  writeFile(name: string, content: unknown): string;
  stop(): Promise<void>;
}

export interface TokenWebhookOptions {
  /** Refuse connections without a client certificate of the webhook's CA. */
  requireClientCert?: boolean;
  /** URL path the webhook serves (default `/authenticate`). */
  path?: string;
}

export async function startTokenWebhook(opts: TokenWebhookOptions = {}): Promise<TokenWebhook> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'token-webhook-'));
  const pki = await ensurePki(path.join(dir, 'pki'), { serverHosts: ['127.0.0.1', 'localhost'] });
  const hanging = new Set<import('node:http').ServerResponse>();
  const hook: TokenWebhook = {
    url: '', caPem: pki.caCertPem, pki, dir, requests: [],
    reply: () => ({ status: 500, json: { message: 'no reply set' } }),
    clientCertificate: (cn) => signClientCertificate(pki, { commonName: cn }),
    writeFile(name, content) {
      const file = path.join(dir, name);
      writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
      return file;
    },
    stop: async () => undefined,
  };
  const server = https.createServer({
    cert: readFileSync(pki.serverCertFile), key: readFileSync(pki.serverKeyFile), ca: pki.caCertPem,
    requestCert: !!opts.requireClientCert, rejectUnauthorized: !!opts.requireClientCert,
  }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try { body = JSON.parse(text); } catch { body = undefined; }
      const peer = (req.socket as TLSSocket).getPeerCertificate?.();
      const recorded: WebhookRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, text, body };
      if (peer && peer.subject) recorded.clientCn = String(peer.subject.CN);
      hook.requests.push(recorded);
      const answer = hook.reply(recorded);
      if (answer === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      const payload = answer.raw ?? JSON.stringify(answer.json ?? {});
      const send = () => {
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...(answer.headers ?? {}) });
        res.end(payload);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hook.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}${opts.path ?? '/authenticate'}`;
  hook.stop = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  };
  return hook;
}

/** A TokenReview reply of `apiVersion` with `status`. */
export function review(apiVersion: string, status: Record<string, unknown>, delayMs?: number): WebhookAnswer {
  return { json: { apiVersion, kind: 'TokenReview', status }, delayMs };
}
