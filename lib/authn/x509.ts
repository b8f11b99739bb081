/**
 * Client-certificate authentication (--client-ca-file, one or several CAs): a certificate that
 * chains to the pool names the user by its subject's Common Name and a group per Organization.
 * A certificate that does not verify is `invalid` (401 unless another credential authenticates);
 * one without a Common Name is not this authenticator's, as in Kubernetes.
 */
import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { AuthResult, AuthnRequest, NOT_MINE, RequestAuthenticator, authenticated, invalid } from './authenticator';
import { CertificatePool, CertificatePoolHolder, peerChain } from './cert-pool';

/** `pool`: the CA pool the answer was given with; a replaced pool (a reloaded CA file) means a new check. */
interface Memo { result: AuthResult; recheckAfter: number; pool?: CertificatePool }

/** Answers kept for certificate chains met before (the oldest forgotten first). */
const MAX_CHAINS = 4096;

/** The subject's CN and O fields of a connection's certificate (Node's parsed form). */
export function subjectOf(socket: TLSSocket): { cn?: string; orgs: string[] } {
  const subject = socket.getPeerCertificate().subject as Record<string, string | string[] | undefined> | undefined;
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const all = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  return { cn: first(subject?.CN), orgs: all(subject?.O) };
}

export class X509Authenticator implements RequestAuthenticator {
  readonly name = 'x509';
  /**
   * A connection's certificate cannot change: it is looked at once per connection and again
   * only once the answer may have expired.
   */
  private readonly bySocket = new WeakMap<TLSSocket, Memo>();
  /**
   * The answer for a chain, by the fingerprints of the certificates the client sent: a client
   * that opens a new connection (one per request, as scripts and health checks do) is not
   * verified again. The handshake proved the client holds the leaf's key; the same certificates
   * verify the same way until the answer's time is up or the pool is replaced.
   */
  private readonly byChain = new Map<string, Memo>();

  private readonly holder: CertificatePoolHolder;

  /** A holder: the pool may be replaced while the server runs (--client-ca-file reloaded). */
  constructor(pool: CertificatePool | CertificatePoolHolder) {
    this.holder = pool instanceof CertificatePoolHolder ? pool : new CertificatePoolHolder(pool);
  }

  authenticate(req: AuthnRequest): AuthResult {
    const socket = req.socket;
    if (!socket) return NOT_MINE;
    const now = Date.now();
    const pool = this.holder.current;
    const memo = this.bySocket.get(socket);
    if (memo && now <= memo.recheckAfter && memo.pool === pool) return memo.result;
    const chain = peerChain(socket);
    if (!chain.length) {
      this.bySocket.set(socket, { result: NOT_MINE, recheckAfter: Infinity, pool });
      return NOT_MINE;
    }
    const key = chain.length === 1 ? chain[0].fingerprint256 : chain.map((c) => c.fingerprint256).join(' ');
    let known = this.byChain.get(key);
    if (known) this.byChain.delete(key);
    if (!known || now > known.recheckAfter || known.pool !== pool) {
      known = { ...this.check(socket, chain, pool, now), pool };
      // Only a user is remembered across connections: a refusal is looked at again on the next one.
      if (known.result.kind !== 'user') {
        this.bySocket.set(socket, known);
        return known.result;
      }
      if (this.byChain.size >= MAX_CHAINS) this.byChain.delete(this.byChain.keys().next().value!);
    }
    // Set again, so that the oldest entry is the least recently used.
    this.byChain.set(key, known);
    this.bySocket.set(socket, known);
    return known.result;
  }

  private check(socket: TLSSocket, chain: X509Certificate[], pool: CertificatePool, now: number): Memo {
    const why = pool.verify(chain, new Date(now));
    // A bad answer is looked at again in a minute (a CA may have been missing a moment).
    if (why) return { result: invalid(`client certificate: ${why}`), recheckAfter: now + 60_000 };
    const { cn, orgs } = subjectOf(socket);
    if (!cn) return { result: NOT_MINE, recheckAfter: Infinity };
    // A good answer holds until the first certificate on the way expires.
    const expires = Math.min(...chain.map((c) => Date.parse(c.validTo)));
    return { result: authenticated({ name: cn, groups: orgs }), recheckAfter: expires };
  }
}
