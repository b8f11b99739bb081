/**
 * The authenticating proxy (--requestheader-*): a front proxy that authenticated the user itself
 * names them in headers (X-Remote-User, X-Remote-Group, X-Remote-Extra-<key>). The headers are
 * believed only on a connection whose client certificate chains to --requestheader-client-ca-file
 * and, with --requestheader-allowed-names, has one of those Common Names.
 *
 * Answers, as kube-apiserver's request-header verifier: no client certificate is not mine; a
 * certificate that does not qualify is `invalid` (a later authenticator may still accept that
 * certificate or a token; otherwise 401); a qualifying connection without a user name header is
 * not mine. Whatever the answer, the headers never reach later stages: a client cannot pass
 * identity headers of its own making on to anything behind this server.
 */
import { readFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { AuthResult, AuthnRequest, Invalid, NOT_MINE, NotMine, RequestAuthenticator, authenticated, invalid } from './authenticator';
import { CertificatePool, peerChain } from './cert-pool';
import { subjectOf } from './x509';
import { UserInfo, unescapeExtraKey } from '../meta/user';

/** Which headers carry the proxied identity (the --requestheader-* flags). */
export interface RequestHeaderNames {
  /** Tried in order; the first with a non-empty value names the user. */
  usernameHeaders: readonly string[];
  /** Every non-empty value of each is a group. */
  groupHeaders: readonly string[];
  /** A header starting with one of these (case-insensitively) is an extra attribute. */
  extraHeaderPrefixes: readonly string[];
}

export interface RequestHeaderOptions extends RequestHeaderNames {
  /** Common names a proxy certificate may have; empty: any certificate of the pool. */
  allowedNames: readonly string[];
}

/**
 * The header names Kubernetes' authentication filter removes after every authentication,
 * whatever the flags say: they are stripped here too.
 */
const STANDARD: RequestHeaderNames = {
  usernameHeaders: ['x-remote-user', 'x-remote-uid'], groupHeaders: ['x-remote-group'], extraHeaderPrefixes: ['x-remote-extra-'],
};

/** A connection's standing: `undefined` when its certificate qualifies the proxy. */
type Standing = NotMine | Invalid | undefined;
interface Memo { standing: Standing; recheckAfter: number }

export class RequestHeaderAuthenticator implements RequestAuthenticator {
  readonly name = 'requestheader';
  private readonly names: RequestHeaderNames;
  private readonly allowedNames: readonly string[];
  /** Lower-case names and prefixes removed from every request (flags' and Kubernetes' standard ones). */
  private readonly strippedNames: Set<string>;
  private readonly strippedPrefixes: string[];
  /** As in x509.ts: a connection's certificate cannot change, so it is judged once per connection. */
  private readonly bySocket = new WeakMap<TLSSocket, Memo>();

  constructor(private readonly pool: CertificatePool, opts: RequestHeaderOptions) {
    const lower = (xs: readonly string[]) => xs.map((x) => x.trim().toLowerCase());
    this.names = {
      usernameHeaders: lower(opts.usernameHeaders), groupHeaders: lower(opts.groupHeaders), extraHeaderPrefixes: lower(opts.extraHeaderPrefixes),
    };
    this.allowedNames = [...opts.allowedNames];
    this.strippedNames = new Set([...this.names.usernameHeaders, ...this.names.groupHeaders, ...STANDARD.usernameHeaders, ...STANDARD.groupHeaders]);
    this.strippedPrefixes = [...new Set([...this.names.extraHeaderPrefixes, ...STANDARD.extraHeaderPrefixes])];
  }

  authenticate(req: AuthnRequest): AuthResult {
    const standing = this.standing(req.socket);
    const user = standing === undefined ? userFromHeaders(req, this.names) : undefined;
    this.strip(req);
    if (standing !== undefined) return standing;
    return user ? authenticated(user) : NOT_MINE;
  }

  private standing(socket: TLSSocket | undefined): Standing {
    if (!socket) return NOT_MINE;
    const now = Date.now();
    const memo = this.bySocket.get(socket);
    if (memo && now <= memo.recheckAfter) return memo.standing;
    const fresh = this.judge(socket, now);
    this.bySocket.set(socket, fresh);
    return fresh.standing;
  }

  private judge(socket: TLSSocket, now: number): Memo {
    const chain = peerChain(socket);
    if (!chain.length) return { standing: NOT_MINE, recheckAfter: Infinity };
    const why = this.pool.verify(chain, new Date(now));
    // Looked at again in a minute, as x509.ts does (the answer may depend on the clock).
    if (why) return { standing: invalid(`request-header: ${why}`), recheckAfter: now + 60_000 };
    const expires = Math.min(...chain.map((c) => Date.parse(c.validTo)));
    const cn = subjectOf(socket).cn ?? '';
    if (this.allowedNames.length && !this.allowedNames.includes(cn)) {
      return { standing: invalid(`request-header: x509: subject with cn=${cn} is not in the allowed list`), recheckAfter: expires };
    }
    return { standing: undefined, recheckAfter: expires };
  }

  private strip(req: AuthnRequest): void {
    let doomed: string[] | undefined;
    for (const h of req.headerNames()) {
      if (this.strippedNames.has(h) || this.strippedPrefixes.some((p) => h.startsWith(p))) (doomed ??= []).push(h);
    }
    if (doomed) req.removeHeaders(doomed);
  }
}

/**
 * The user the headers name, or undefined without a user name (kube's requestheader rules):
 * the first username header whose first line is non-empty; each non-empty line of every group
 * header a group; for each header starting with an extra prefix, the rest of its name
 * lower-cased and percent-decoded is the key and its lines are the values.
 */
export function userFromHeaders(req: Pick<AuthnRequest, 'headerValues' | 'headerNames'>, names: RequestHeaderNames): UserInfo | undefined {
  let name = '';
  for (const h of names.usernameHeaders) {
    name = req.headerValues(h)[0] ?? '';
    if (name) break;
  }
  if (!name) return undefined;
  const groups: string[] = [];
  for (const h of names.groupHeaders) for (const v of req.headerValues(h)) if (v) groups.push(v);
  let extra: Record<string, string[]> | undefined;
  if (names.extraHeaderPrefixes.length) {
    const present = req.headerNames();
    for (const prefix of names.extraHeaderPrefixes) {
      const p = prefix.toLowerCase();
      for (const h of present) {
        if (!h.toLowerCase().startsWith(p)) continue;
        const key = unescapeExtraKey(h.slice(p.length).toLowerCase());
        extra ??= {};
        (extra[key] ??= []).push(...req.headerValues(h));
      }
    }
  }
  return extra ? { name, groups, extra } : { name, groups };
}

/** The --requestheader-client-ca-file pool; a one-line Error naming the flag and file otherwise. */
export function loadRequestHeaderPool(file: string): CertificatePool {
  const source = `--requestheader-client-ca-file=${file}`;
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${source}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return CertificatePool.fromPem(pem, source);
}
