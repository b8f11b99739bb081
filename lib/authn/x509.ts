/**
 * Client-certificate authentication (--client-ca-file, one or several CAs): a certificate that
 * chains to the pool names the user by its subject's Common Name and a group per Organization.
 * A certificate that does not verify is `invalid` (401 unless another credential authenticates);
 * one without a Common Name is not this authenticator's, as in Kubernetes.
 */
import type { X509Certificate } from 'node:crypto';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { AuthResult, AuthnRequest, NOT_MINE, RequestAuthenticator, authenticated, invalid } from './authenticator';
import { CertificatePool, CertificatePoolHolder, peerChain } from './cert-pool';

/** `pool`: the CA pool the answer was given with; a replaced pool (a reloaded CA file) means a new check. */
interface Memo { result: AuthResult; recheckAfter: number; pool: CertificatePool }

/** Users kept for certificates met before (the least recently used forgotten first). */
const MAX_CHAINS = 4096;

/** The subject's CN and O fields of a connection's certificate (Node's parsed form). */
export function subjectOf(socket: TLSSocket): { cn?: string; orgs: string[] } {
  return subjectOfPeer(socket.getPeerCertificate());
}

function subjectOfPeer(peer: PeerCertificate | undefined): { cn?: string; orgs: string[] } {
  const subject = peer?.subject as Record<string, string | string[] | undefined> | undefined;
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
   * Users met before, so that a client that opens a new connection (one per request, as scripts
   * and health checks do) is not verified again. The handshake proved the client holds the leaf's
   * key, and the same certificates verify the same way until the answer's time is up or the pool
   * is replaced. Keyed by the leaf's fingerprint when the leaf verifies by itself (whatever else
   * the client sends with it), else by the fingerprints of the whole chain.
   */
  private readonly known = new Map<string, Memo>();

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
    const answer = this.answer(socket, pool, now);
    this.bySocket.set(socket, answer);
    return answer.result;
  }

  private answer(socket: TLSSocket, pool: CertificatePool, now: number): Memo {
    // The leaf in Node's plain form (~0.15 ms on a connection's first call, the subject included).
    const peer = socket.getPeerCertificate();
    if (!peer?.raw) return { result: NOT_MINE, recheckAfter: Infinity, pool };
    const leafKey = peer.fingerprint256;
    const byLeaf = this.recall(leafKey, pool, now);
    if (byLeaf) return byLeaf;
    // The intermediates: a connection's first getPeerX509Certificate costs ~0.3 ms (Node copies
    // the chain's certificates, and OpenSSL 3.0 parses each copy again).
    const chain = peerChain(socket);
    if (!chain.length) return { result: NOT_MINE, recheckAfter: Infinity, pool };
    const chainKey = chain.map((c) => c.fingerprint256).join(' ');
    const byChain = this.recall(chainKey, pool, now);
    if (byChain) return byChain;
    const checked: Memo = { ...this.check(peer, chain, pool, now), pool };
    // Only a user is remembered across connections: a refusal is looked at again on the next one.
    if (checked.result.kind === 'user') {
      const alone = chain.length === 1 || pool.verify([chain[0]], new Date(now)) === undefined;
      this.remember(alone ? leafKey : chainKey, checked);
    }
    return checked;
  }

  /** A fresh answer for `key`, kept as the most recently used. */
  private recall(key: string, pool: CertificatePool, now: number): Memo | undefined {
    const memo = this.known.get(key);
    if (!memo) return undefined;
    this.known.delete(key);
    if (now > memo.recheckAfter || memo.pool !== pool) return undefined;
    this.known.set(key, memo);
    return memo;
  }

  private remember(key: string, memo: Memo): void {
    if (this.known.size >= MAX_CHAINS) this.known.delete(this.known.keys().next().value!);
    this.known.set(key, memo);
  }

  private check(peer: PeerCertificate, chain: X509Certificate[], pool: CertificatePool, now: number): Omit<Memo, 'pool'> {
    const why = pool.verify(chain, new Date(now));
    // A bad answer is looked at again in a minute (a CA may have been missing a moment).
    if (why) return { result: invalid(`client certificate: ${why}`), recheckAfter: now + 60_000 };
    const { cn, orgs } = subjectOfPeer(peer);
    if (!cn) return { result: NOT_MINE, recheckAfter: Infinity };
    // A good answer holds until the first certificate on the way expires.
    const expires = Math.min(...chain.map((c) => Date.parse(c.validTo)));
    return { result: authenticated({ name: cn, groups: orgs }), recheckAfter: expires };
  }
}
