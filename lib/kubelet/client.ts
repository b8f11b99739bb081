/**
 * How the server reaches kubelets (kube-apiserver's KubeletClientConfig): HTTPS with the client
 * pair of --kubelet-client-certificate/--kubelet-client-key, the kubelet's serving certificate
 * checked against --kubelet-certificate-authority (without it, not checked: kube-apiserver sets
 * InsecureSkipVerify then), --kubelet-timeout to connect, and the node address types tried in
 * the order of --kubelet-preferred-address-types. The files are read once, at start (a bad path
 * stops the start); the key is never logged.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { ServerConfig } from '../config';

/** The kubelet's port when a Node does not report one (ports.KubeletPort). */
export const DEFAULT_KUBELET_PORT = 10250;

export interface KubeletClientOptions {
  certFile?: string;
  keyFile?: string;
  caFile?: string;
  timeoutMs: number;
  preferredAddressTypes: readonly string[];
  /** false: kubelets are dialled in plain HTTP (--kubelet-https=false). */
  https?: boolean;
}

export class KubeletClient {
  private readonly cert?: Buffer;
  private readonly key?: Buffer;
  private readonly ca?: Buffer;
  readonly timeoutMs: number;
  readonly preferredAddressTypes: readonly string[];
  /** The scheme kubelets are dialled with. */
  readonly scheme: 'http' | 'https';

  constructor(opts: KubeletClientOptions) {
    const read = (file: string | undefined, flag: string) => {
      if (!file) return undefined;
      try {
        return readFileSync(file);
      } catch (err) {
        throw new Error(`--${flag}: cannot read ${file}: ${(err as Error).message}`);
      }
    };
    this.cert = read(opts.certFile, 'kubelet-client-certificate');
    this.key = read(opts.keyFile, 'kubelet-client-key');
    this.ca = read(opts.caFile, 'kubelet-certificate-authority');
    this.timeoutMs = opts.timeoutMs;
    this.preferredAddressTypes = opts.preferredAddressTypes;
    this.scheme = opts.https === false ? 'http' : 'https';
  }

  static fromConfig(c: ServerConfig): KubeletClient {
    return new KubeletClient({
      certFile: c.kubeletClientCertificate || undefined, keyFile: c.kubeletClientKey || undefined,
      caFile: c.kubeletCertificateAuthority || undefined, timeoutMs: c.kubeletTimeoutMs, preferredAddressTypes: c.kubeletPreferredAddressTypes,
      https: c.kubeletHttps,
    });
  }

  /** TLS options to reach the kubelet at `host` (HTTP/1.1 only: upgrades need it). */
  tlsOptions(host: string): ConnectionOptions {
    return {
      ...(this.cert && this.key ? { cert: this.cert, key: this.key } : {}),
      ...(this.ca ? { ca: this.ca } : {}),
      rejectUnauthorized: this.ca !== undefined,
      ...(isIP(host) ? {} : { servername: host }),
      ALPNProtocols: ['http/1.1'],
    };
  }
}

/**
 * Options for a backend that is not a kubelet (a pod, a service endpoint, a node port other than
 * the kubelet's): kube-apiserver's proxy transport, which verifies nothing and presents no
 * certificate of the kubelet client's.
 */
export function proxyTlsOptions(host: string): ConnectionOptions {
  return { rejectUnauthorized: false, ...(isIP(host) ? {} : { servername: host }), ALPNProtocols: ['http/1.1'] };
}
