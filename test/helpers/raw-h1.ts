/**
 * A raw HTTP/1.1 client for tests that break the protocol's etiquette on purpose: heads written
 * a byte at a time, requests pipelined without reading the answers, bodies that never end. It
 * speaks TLS with ALPN `http/1.1`, writes the bytes it is given, and keeps what the server sends
 * (as latin1 text, up to a bound) and when the connection closed.
 */
import tls from 'node:tls';

/** What is kept of the server's bytes: the answers these tests read are short. */
const MAX_KEPT = 64 * 1024;

export class RawH1 {
  /** The server's bytes so far (the first MAX_KEPT), latin1. */
  received = '';
  closed = false;
  /** performance.now() when the connection closed. */
  closedAt = 0;
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: tls.TLSSocket) {
    socket.on('data', (chunk: Buffer) => {
      if (this.received.length < MAX_KEPT) this.received += chunk.toString('latin1', 0, Math.min(chunk.length, MAX_KEPT - this.received.length));
      this.notify();
    });
    const end = () => {
      if (!this.closed) this.closedAt = performance.now();
      this.closed = true;
      this.notify();
    };
    socket.on('close', end);
    socket.on('error', end);
  }

  static connect(url: string, creds: { ca: Buffer; cert: Buffer; key: Buffer }): Promise<RawH1> {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = tls.connect({ host: u.hostname, port: Number(u.port), ...creds, ALPNProtocols: ['http/1.1'], servername: 'localhost' }, () => {
        if (socket.alpnProtocol !== 'http/1.1') reject(new Error(`ALPN chose ${socket.alpnProtocol}`));
        else resolve(new RawH1(socket));
      });
      socket.once('error', reject);
    });
  }

  /** The status of the first answer, or 0 if none has come. */
  get status(): number {
    return Number(/^HTTP\/1\.1 (\d{3}) /.exec(this.received)?.[1] ?? 0);
  }

  /** Writes bytes; resolves when the socket took them (false if it is gone). */
  write(bytes: Buffer | string): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      if (this.socket.write(bytes, (err) => { if (err) resolve(false); })) return resolve(true);
      const onDrain = () => { this.socket.off('close', onClose); resolve(true); };
      const onClose = () => { this.socket.off('drain', onDrain); resolve(false); };
      this.socket.once('drain', onDrain);
      this.socket.once('close', onClose);
    });
  }

  /** Waits until `cond` holds (checked on every read and on close), or throws after `timeoutMs`. */
  until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (cond()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!cond()) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== check);
        reject(new Error(`${what}: not within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(check);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }
}
