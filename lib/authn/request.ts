/** The AuthnRequest of a Koa request, over HTTP/1.1 or HTTP/2. */
import type { TLSSocket } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { AuthnRequest } from './authenticator';
import { isUnsecured } from './insecure-superuser';

/** The TLS socket of a request, over HTTP/1.1 or HTTP/2. */
export function tlsSocketOf(ctx: Context): TLSSocket | undefined {
  const req = ctx.req as unknown as { socket?: TLSSocket; stream?: { session?: { socket?: TLSSocket } } };
  const socket = req.stream?.session?.socket ?? req.socket;
  return socket && typeof socket.getPeerCertificate === 'function' ? socket : undefined;
}

/** One per request; a class so that the hot path allocates one object, not a set of closures. */
class KoaAuthnRequest implements AuthnRequest {
  private removed?: Set<string>;
  readonly socket: TLSSocket | undefined;

  constructor(private readonly req: IncomingMessage, socket: TLSSocket | undefined) {
    this.socket = socket;
  }

  get unsecured(): boolean {
    return isUnsecured(this.req.socket);
  }

  get path(): string {
    const url = this.req.url ?? '';
    const q = url.indexOf('?');
    return q < 0 ? url : url.slice(0, q);
  }

  header(name: string): string | undefined {
    const key = name.toLowerCase();
    if (this.removed?.has(key)) return undefined;
    const v = this.req.headers[key];
    return Array.isArray(v) ? v[0] : v;
  }

  // rawHeaders keeps each header line apart (Node joins repeated lines of most headers with ", ").
  headerValues(name: string): string[] {
    const key = name.toLowerCase();
    if (this.removed?.has(key)) return [];
    const raw = this.req.rawHeaders;
    const values: string[] = [];
    for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === key) values.push(raw[i + 1]);
    return values;
  }

  headerNames(): string[] {
    return Object.keys(this.req.headers).filter((k) => !this.removed?.has(k));
  }

  removeHeaders(names: string[]): void {
    this.removed ??= new Set();
    for (const n of names) {
      const key = n.toLowerCase();
      this.removed.add(key);
      // Assigned, not deleted: `delete` would turn the headers object into a slow dictionary.
      if (this.req.headers[key] !== undefined) this.req.headers[key] = undefined;
    }
  }
}

export function authnRequestOf(ctx: Context): AuthnRequest {
  return new KoaAuthnRequest(ctx.req, tlsSocketOf(ctx));
}
