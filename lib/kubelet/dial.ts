/**
 * Dialling a backend (a kubelet, a pod, a service endpoint) for a tunnel: TCP, then TLS for an
 * https backend with the kubelet client's options (or the proxy transport's for other backends),
 * bounded by --kubelet-timeout. A failure rejects with Go's text of it (errors.ts dialErrorText).
 */
import net from 'node:net';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import type { KubeletClient } from './client';
import { proxyTlsOptions } from './client';
import type { Backend } from './locations';
import { dialErrorText } from './errors';

export class DialError extends Error {}

/** `host:port` as Go's net.JoinHostPort writes it. */
export function hostPort(b: Backend): string {
  return `${b.host.includes(':') ? `[${b.host}]` : b.host}:${b.port}`;
}

/** The TLS options for a backend: the kubelet client's for a kubelet, the proxy transport's otherwise. */
export function tlsFor(b: Backend, client: KubeletClient): tls.ConnectionOptions {
  if (!b.kubelet) return proxyTlsOptions(b.host);
  const opts = client.tlsOptions(b.host);
  return b.skipVerify ? { ...opts, rejectUnauthorized: false } : opts;
}

export function dial(b: Backend, client: KubeletClient): Promise<Duplex> {
  return connectWithin(b.host, b.port, b.scheme === 'https' ? tlsFor(b, client) : undefined, client.timeoutMs);
}

/**
 * A TCP connection to host:port, TLS over it when `tlsOptions` is given, within `timeoutMs`;
 * rejects with a DialError carrying Go's text of the failure. Nagle is off on the result.
 */
export function connectWithin(host: string, port: number, tlsOptions: tls.ConnectionOptions | undefined, timeoutMs: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const sock: net.Socket | tls.TLSSocket = tlsOptions
      ? tls.connect({ ...tlsOptions, host, port })
      : net.connect({ host, port });
    const event = tlsOptions ? 'secureConnect' : 'connect';
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new DialError(`dial tcp ${host.includes(':') ? `[${host}]` : host}:${port}: i/o timeout`));
    }, timeoutMs);
    sock.once(event, () => {
      clearTimeout(timer);
      sock.removeAllListeners('error');
      sock.setNoDelay(true);
      resolve(sock);
    });
    sock.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      sock.destroy();
      reject(new DialError(dialErrorText(err, host, port)));
    });
  });
}
