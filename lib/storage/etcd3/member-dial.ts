/**
 * The etcd client's endpoints and the dial of one (EtcdKvClient.dial tries them in turn): an
 * endpoint is a member's URL, how to connect to it and the header block of each kind of call;
 * dialing it succeeds once the member has sent its HTTP/2 SETTINGS, within the dial budget.
 * What the dial needs of the client it names (DialHost).
 */
import { readFileSync } from 'node:fs';
import { H2ConnectOptions, H2Session } from '../../http2/client-session';
import { CallKind, PATHS, requestBlock } from './unary-call';
import { PROBE_TIMEOUT_MS } from './member-probe';

export interface Endpoint {
  url: string;
  connect: H2ConnectOptions;
  /** The header block of each kind of call to this endpoint. */
  blocks: Record<CallKind, Buffer>;
}

/** The members and TLS files of the client's options (EtcdClientOptions). */
export interface EndpointOptions {
  endpoints: string[];
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

/** What a dial needs of the client that makes it (EtcdKvClient implements it). */
export interface DialHost {
  /** The session being dialed, if any: the client destroys it when it closes. */
  dialing: H2Session | undefined;
  /** `s` had an error: it is lost (heard for the session's whole life, once adopted too). */
  lose(s: H2Session): void;
}

/**
 * The endpoints of `opts`, with the header blocks of their calls: a Txn's carries
 * `txnTimeoutMs`, a probe's PROBE_TIMEOUT_MS, a watch's none and the others' `timeoutMs`.
 * An endpoint without a scheme is https when there is a CA file, else http.
 */
export function endpointsOf(opts: EndpointOptions, timeoutMs: number, txnTimeoutMs: number): Endpoint[] {
  const tls = {
    ca: opts.caFile ? readFileSync(opts.caFile) : undefined,
    cert: opts.certFile ? readFileSync(opts.certFile) : undefined,
    key: opts.keyFile ? readFileSync(opts.keyFile) : undefined,
  };
  return opts.endpoints.map((e) => {
    const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(e) ? e : `${opts.caFile ? 'https' : 'http'}://${e}`;
    const parsed = new URL(url);
    const secure = parsed.protocol === 'https:';
    const blocks = {} as Record<CallKind, Buffer>;
    for (const kind of Object.keys(PATHS) as CallKind[]) {
      const timeout = kind === 'watch' ? undefined : kind === 'txn' ? txnTimeoutMs : kind === 'probe' ? PROBE_TIMEOUT_MS : timeoutMs;
      blocks[kind] = requestBlock(parsed, PATHS[kind], timeout);
    }
    return {
      url,
      // A bracketed IPv6 host is connected to without its brackets.
      connect: { host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(parsed.port || (secure ? 443 : 80)), tls: secure ? tls : undefined },
      blocks,
    };
  });
}

/**
 * Connects to one endpoint: resolves once the member has answered with its HTTP/2 SETTINGS
 * (TCP alone is not an answer: a stopped process's kernel still accepts), or fails within the
 * dial budget, `budget` ms.
 */
export function dialEndpoint(host: DialHost, ep: Endpoint, budget: number): Promise<H2Session> {
  return new Promise((resolve, reject) => {
    const s = new H2Session(ep.connect);
    host.dialing = s;
    let settled = false;
    let connected = false;
    let answered = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      s.off('connect', onConnect);
      s.off('remoteSettings', onSettings);
      s.off('close', onClose);
      if (host.dialing === s) host.dialing = undefined;
      if (err) {
        s.destroy();
        reject(err);
      } else {
        resolve(s);
      }
    };
    const ready = () => {
      if (!connected || !answered) return;
      // Calls in flight keep the process alive through their deadline timers; an idle client does not.
      s.unref();
      finish();
    };
    const onConnect = () => {
      connected = true;
      ready();
    };
    const onSettings = () => {
      answered = true;
      ready();
    };
    const onClose = () => finish(new Error(s.error ? s.error.message : 'connection closed'));
    // etcd with --client-cert-auth drops a TLS 1.3 client whose certificate it rejects without
    // a word: the handshake looks done and nothing more comes. Say so, as it is the likely cause.
    const hint = ep.connect.tls ? ' (over TLS: is the client certificate, --etcd-certfile, one this etcd trusts?)' : '';
    timer = setTimeout(() => finish(new Error(connected ? `connected, but no answer within ${budget} ms${hint}` : `no connection within ${budget} ms`)), budget);
    // Stays for the session's life: an error ends the dial, or loses the session once adopted.
    s.on('error', () => host.lose(s));
    s.once('connect', onConnect);
    s.on('remoteSettings', onSettings);
    s.once('close', onClose);
  });
}
