/**
 * What the kubelet-connection suites share: the certificate files of the server's kubelet client
 * (a client CA the fake kubelets trust, a client pair, the kubelets' serving CA), the flags that
 * name them, a Node whose status points at a fake kubelet, and a raw HTTP/1.1 upgrade client.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { makeCert, type FakeKubelet, type Pem } from './fake-kubelet';

export interface KubeletPki {
  dir: string;
  /** Trusted by the fake kubelets to sign the server's client certificate. */
  clientCa: Pem;
  /** The fake kubelets' serving CA (--kubelet-certificate-authority). */
  servingCa: Pem;
  flags: string[];
}

export function kubeletPki(): KubeletPki {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-kubelet-pki-'));
  const clientCa = makeCert({ cn: 'kubelet-client-ca', ca: true });
  const client = makeCert({ cn: 'kube-apiserver-kubelet-client', client: true }, clientCa);
  const servingCa = makeCert({ cn: 'fake-kubelet-ca', ca: true });
  const file = (name: string, text: string) => { const p = path.join(dir, name); writeFileSync(p, text); return p; };
  return {
    dir, clientCa, servingCa,
    flags: [`--kubelet-client-certificate=${file('client.crt', client.certPem)}`, `--kubelet-client-key=${file('client.key', client.keyPem)}`,
      `--kubelet-certificate-authority=${file('kubelet-ca.crt', servingCa.certPem)}`],
  };
}

/** A Node object whose status names `kubelet` (address type `type`, its port as the kubelet endpoint). */
export function nodeFor(name: string, kubelet: { host: string; port: number }, type = 'InternalIP'): Record<string, unknown> {
  return {
    apiVersion: 'v1', kind: 'Node', metadata: { name },
    status: { addresses: [{ type, address: kubelet.host }], daemonEndpoints: { kubeletEndpoint: { Port: kubelet.port } } },
  };
}

export type { FakeKubelet };

/** A raw TLS HTTP/1.1 connection: writes a request head, reads the answer head, then bytes. */
export class RawUpgrade {
  private buf = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  closed = false;

  private constructor(readonly socket: tls.TLSSocket) {
    socket.on('data', (c: Buffer) => { this.buf = Buffer.concat([this.buf, c]); this.wake(); });
    socket.on('close', () => { this.closed = true; this.wake(); });
    socket.on('error', () => undefined);
  }

  static connect(url: string, creds: { ca: string; cert: string; key: string }): Promise<RawUpgrade> {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const s = tls.connect({ host: u.hostname, port: Number(u.port), ca: creds.ca, cert: creds.cert, key: creds.key, ALPNProtocols: ['http/1.1'], servername: 'localhost' },
        () => resolve(new RawUpgrade(s)));
      s.once('error', reject);
    });
  }

  private wake(): void { for (const w of this.waiters.splice(0)) w(); }

  private async until(pred: () => boolean, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!pred()) {
      if (this.closed || Date.now() > deadline) return;
      await new Promise<void>((r) => { this.waiters.push(r); setTimeout(r, 50); });
    }
  }

  /** The answer's head (status and raw head text); the bytes after it stay for read(). */
  async head(ms = 10_000): Promise<{ status: number; text: string }> {
    await this.until(() => this.buf.includes('\r\n\r\n'), ms);
    const end = this.buf.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`no answer head: ${JSON.stringify(this.buf.toString('latin1'))}`);
    const text = this.buf.toString('latin1', 0, end);
    this.buf = this.buf.subarray(end + 4);
    return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), text };
  }

  /** Exactly `n` bytes (or what came before the close or the time ran out). */
  async read(n: number, ms = 10_000): Promise<Buffer> {
    await this.until(() => this.buf.length >= n, ms);
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(out.length);
    return out;
  }

  /** Everything until the connection closes. */
  async rest(ms = 10_000): Promise<Buffer> {
    await this.until(() => this.closed, ms);
    const out = this.buf;
    this.buf = Buffer.alloc(0);
    return out;
  }

  write(data: string | Buffer): void { this.socket.write(data); }
  close(): void { this.socket.destroy(); }
}
