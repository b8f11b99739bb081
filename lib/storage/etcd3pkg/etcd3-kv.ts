/**
 * EtcdKv (../etcd3/kv.ts) on the etcd3 npm package (grpc-js, protobufjs): `--etcd-client=etcd3`.
 * The storage layer above it (Etcd3Storage, the watch cache, the compactor, the probe) is the
 * same as on the lean client; test/contract/storage-contract.ts holds both to one contract.
 *
 * The package is loaded here only, by createEtcd3PackageKv, so that a server on the default
 * (lean) client loads no grpc-js at all.
 *
 * Where the package's own habits would break the contract, this adapter does not use them:
 * - Watches: the package's WatchBuilder multiplexes every watcher on one stream and, when the
 *   stream breaks, re-creates them by itself from the last revision it saw; an etcd cancel (a
 *   compacted start) becomes an error without the compact revision. Here each watch is one
 *   Watch RPC of its own (the package's raw WatchClient), ended by exactly one onError, never
 *   resumed (the Reflector resumes from what it actually applied), and a compacted start is
 *   StorageError Compacted with etcd's compact_revision.
 * - Retries: the package retries "recoverable" failures of any call up to three times, also a
 *   Txn that may have been applied. Here nothing that may have reached etcd is repeated:
 *   Etcd3Storage decides (its indeterminate-CAS retry). A call that never left (no connection)
 *   and a read are tried once more, on the member that is current by then.
 * - Members: the package spreads calls over every host at random, keeps a failing one out with a
 *   circuit breaker, and finds a hung one only by grpc-js keepalive PINGs (which etcd limits to
 *   one per 5 s). Here, as on the lean client, one member at a time serves every call and watch,
 *   and a liveness probe finds a hung one within --etcd-keepalive-interval + timeout (StickyHosts).
 */
import { readFileSync } from 'node:fs';
import type { Interceptor } from '@grpc/grpc-js';
import type {
  Etcd3, ICompare, IDuplexStream, IKeyValue, IOptions, IRangeRequest, IRangeResponse, IRequestOp, IResponseOp,
  ITxnResponse, IWatchRequest, IWatchResponse,
} from 'etcd3';
import { GrpcStatus, StorageError, fromEtcdError, fromGrpcStatus } from '../errors';
import type {
  CompactResponse, LeaseGrantResponse, EtcdKeyValue, RangeRequest, RangeResponse, RequestOp, ResponseOp, TxnRequest, TxnResponse,
} from '../etcd3/kv-types';
import type { EtcdClientOptions } from '../etcd3/kv-client';
import type { EtcdKv, EtcdKvWatch } from '../etcd3/kv';
import { EVENT_DELETE, EVENT_PUT, WatchCreateRequest, WatchEvent, WatchResponse, WatchStreamHandler } from '../etcd3/watch-stream';

const EMPTY = Buffer.alloc(0);

/** The package's internals this adapter steers: its pool of hosts (connection-pool.js). */
interface PackageHost {
  host: string;
  getServiceClient(name: 'KV'): { range(req: IRangeRequest, md: unknown, opts: object, cb: (err: Error | null) => void): unknown };
  resetAllServices(): void;
}
interface PackagePool {
  hosts: PackageHost[];
  withConnection<T>(service: 'Watch', fn: (c: { resource: PackageHost; client: { watch(md: unknown, opts: object): T }; metadata: unknown }) => T): Promise<T>;
}

/**
 * One member at a time, as the lean client: the package would spread calls over every host at
 * random (and so hold a connection to each, a hung one included). Here every call and watch goes
 * to the current member; the others refuse (the package then tries the next host in its loop,
 * without counting it as a failure). The current member is left (the next one in --etcd-servers
 * order becomes current) when a call on it fails Unavailable (connection refused or lost, "no
 * leader"), when its watch stream breaks, or when it does not answer the liveness probe: every
 * --etcd-keepalive-interval without an answer from it, a serializable count-only Range must be
 * answered within --etcd-keepalive-timeout (not HTTP/2 PINGs: etcd GOAWAYs clients that ping more
 * often than its --grpc-keepalive-min-time, 5 s). A missed deadline or etcd's "request timed out"
 * probes at once. Leaving closes the member's channels and ends its watches (one onError each).
 */
export class StickyHosts {
  current = 0;
  /** An answer came from the current member since the last probe tick. */
  answered = false;
  private probing = false;
  private timer: NodeJS.Timeout | undefined;
  /** Set once the client exists. */
  pool!: PackagePool;
  onLeave: (index: number, reason: string) => void = () => undefined;

  constructor(
    private readonly count: number,
    private readonly grpc: typeof import('@grpc/grpc-js'),
    readonly interceptors: Interceptor[],
    private readonly intervalMs: number,
    private readonly timeoutMs: number,
  ) {}

  /** The package's per-host policy (cockatiel's IPolicy: only execute is used by the pool). */
  policy(index: number): { execute<T>(fn: () => T | Promise<T>): Promise<T> } {
    const cockatiel = require('cockatiel') as typeof import('cockatiel');
    return {
      execute: async <T>(fn: () => T | Promise<T>): Promise<T> => {
        if (index !== this.current) throw new cockatiel.BrokenCircuitError('not the current etcd member');
        try {
          const out = await fn();
          if (index === this.current) this.answered = true;
          return out;
        } catch (err) {
          this.failed(index, err);
          throw err;
        }
      },
    };
  }

  /** A call or watch on member `index` failed with `err`: leave it, probe it, or nothing. */
  failed(index: number, err: unknown): void {
    if (index !== this.current) return;
    const e = storageErrorOf(err);
    if (e.code === 'Unavailable') this.leave(index, e.message);
    else if (e.code === 'Timeout') this.probe();
    else this.answered = true;
  }

  leave(index: number, reason: string): void {
    if (index !== this.current) return;
    this.current = (index + 1) % this.count;
    this.answered = false;
    try {
      this.pool.hosts[index].resetAllServices();
    } catch {
      // closed already
    }
    this.onLeave(index, reason);
  }

  start(): void {
    if (this.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      if (this.answered) this.answered = false;
      else this.probe();
    }, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Probes the current member now (one probe at a time). */
  probe(): void {
    if (this.probing || !this.pool) return;
    const index = this.current;
    let kv;
    try {
      kv = this.pool.hosts[index].getServiceClient('KV');
    } catch {
      return;
    }
    this.probing = true;
    const req: IRangeRequest = { key: PROBE_KEY, serializable: true, count_only: true };
    kv.range(req, new this.grpc.Metadata(), { deadline: Date.now() + this.timeoutMs, interceptors: this.interceptors }, (err) => {
      this.probing = false;
      if (!err) {
        if (index === this.current) this.answered = true;
        return;
      }
      const e = storageErrorOf(err);
      if (e.code === 'Unavailable' || e.code === 'Timeout') this.leave(index, `etcd did not answer a probe within ${this.timeoutMs} ms (${e.message})`);
    });
  }
}

const PROBE_KEY = Buffer.from('/orch-apiserver-probe');

/** Options of the etcd3 package for these client options. */
function packageOptions(opts: EtcdClientOptions): { options: IOptions; sticky: StickyHosts } {
  // grpc-js is the etcd3 package's dependency, not ours: the copy it loads.
  const grpc = require(require.resolve('@grpc/grpc-js', { paths: [require.resolve('etcd3')] })) as typeof import('@grpc/grpc-js');
  const cockatiel = require('cockatiel') as typeof import('cockatiel');
  // `hasleader: true` on every call and watch, as Kubernetes' watches (clientv3.WithRequireLeader):
  // a member cut off from the quorum answers "etcdserver: no leader" (Unavailable) at once instead
  // of holding the call until a deadline, and cancels such watches when it loses its leader.
  const requireLeader: Interceptor = (options, nextCall) => new grpc.InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      metadata.set('hasleader', 'true');
      next(metadata, listener);
    },
  });
  const interceptors = [requireLeader];
  const readMs = opts.callTimeoutMs ?? 5_000;
  // A Txn's deadline is shorter than etcd's own request timeout (5 s + 2 election timeouts), as the lean client's.
  const txnMs = opts.txnTimeoutMs ?? 3_000;
  const sticky = new StickyHosts(opts.endpoints.length, grpc, interceptors,
    opts.keepaliveIntervalMs ?? 1_000, opts.keepaliveTimeoutMs ?? 1_000);
  let next = 0;
  const options: IOptions = {
    hosts: opts.endpoints,
    defaultCallOptions: (ctx) => (ctx.isStream ? { interceptors }
      : { deadline: Date.now() + (ctx.method === 'txn' ? txnMs : readMs), interceptors }),
    grpcOptions: {
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
      // Flow-control windows as large as the lean client's (kv-client.ts WINDOW).
      'grpc-node.flow_control_window': 1 << 30,
      // A backstop for a connection left behind; the probe (StickyHosts) finds a hung member.
      // etcd refuses pings more often than every 5 s (--grpc-keepalive-min-time).
      'grpc.keepalive_time_ms': 10_000,
      'grpc.keepalive_timeout_ms': 2_000,
    },
    faultHandling: {
      global: cockatiel.noop,
      // Called once per host, in order.
      host: () => sticky.policy(next++) as unknown as ReturnType<NonNullable<NonNullable<IOptions['faultHandling']>['host']>>,
    },
  };
  if (opts.caFile || opts.certFile || opts.keyFile) {
    options.credentials = {
      // grpc-js takes null for "the system's roots".
      rootCertificate: (opts.caFile ? readFileSync(opts.caFile) : null) as Buffer,
      certChain: opts.certFile ? readFileSync(opts.certFile) : undefined,
      privateKey: opts.keyFile ? readFileSync(opts.keyFile) : undefined,
    };
    // The package picks TLS by the hosts' scheme; the lean client by --etcd-cafile.
    options.hosts = opts.endpoints.map((e) => (/^[a-z][a-z0-9+.-]*:\/\//i.test(e) ? e : `https://${e}`));
  }
  return { options, sticky };
}

/** A client of the etcd3 package behind EtcdKv. Loads the package now. */
export function createEtcd3PackageKv(opts: EtcdClientOptions): Etcd3PackageKv {
  if (!opts.endpoints.length) throw new Error('the etcd client needs at least one endpoint');
  const { Etcd3: Client } = require('etcd3') as typeof import('etcd3');
  const { options, sticky } = packageOptions(opts);
  const client = new Client(options);
  sticky.pool = (client as unknown as { pool: PackagePool }).pool;
  return new Etcd3PackageKv(client, opts.callTimeoutMs ?? 5_000, sticky);
}

// ---------------------------------------------------------------------------------------------
// Conversions: the package speaks snake_case with 64-bit integers as decimal strings.

const num = (v: string | number | null | undefined): number => (v === undefined || v === null ? 0 : Number(v));

function toKv(kv: IKeyValue): EtcdKeyValue {
  return {
    key: kv.key ?? EMPTY,
    value: kv.value ?? EMPTY,
    createRevision: num(kv.create_revision),
    modRevision: num(kv.mod_revision),
    version: num(kv.version),
  };
}

function rangeRequest(r: RangeRequest): IRangeRequest {
  const out: IRangeRequest = { key: r.key };
  if (r.rangeEnd?.length) out.range_end = r.rangeEnd;
  if (r.limit) out.limit = r.limit;
  if (r.revision) out.revision = r.revision;
  if (r.serializable) out.serializable = true;
  if (r.keysOnly) out.keys_only = true;
  if (r.countOnly) out.count_only = true;
  if (r.minModRevision) out.min_mod_revision = r.minModRevision;
  return out;
}

function rangeResponse(res: IRangeResponse): RangeResponse {
  return {
    header: { revision: num(res.header?.revision) },
    kvs: (res.kvs ?? []).map(toKv),
    more: !!res.more,
    count: num(res.count),
  };
}

function requestOp(op: RequestOp): IRequestOp {
  if (op.put) return { request_put: op.put.lease ? { key: op.put.key, value: op.put.value, lease: op.put.lease.toString() } : { key: op.put.key, value: op.put.value } };
  if (op.range) return { request_range: rangeRequest(op.range) };
  if (op.deleteRange) {
    const d = op.deleteRange;
    return { request_delete_range: d.rangeEnd?.length ? { key: d.key, range_end: d.rangeEnd } : { key: d.key } };
  }
  throw new TypeError('RequestOp needs one of range, put or deleteRange');
}

function compare(c: TxnRequest['compare'] extends (infer C)[] | undefined ? C : never): ICompare {
  const out: ICompare = { key: c.key, target: c.target, result: c.result };
  switch (c.target) {
    case 'Version': out.version = c.version ?? 0; break;
    case 'Create': out.create_revision = c.createRevision ?? 0; break;
    case 'Mod': out.mod_revision = c.modRevision ?? 0; break;
    case 'Value': out.value = c.value ?? EMPTY; break;
    default: throw new TypeError(`bad Compare target: ${String(c.target)}`);
  }
  return out;
}

function responseOp(r: IResponseOp): ResponseOp {
  if (r.response_range) return { responseRange: rangeResponse(r.response_range) };
  if (r.response_put) return { responsePut: { header: { revision: num(r.response_put.header?.revision) } } };
  if (r.response_delete_range) {
    return { responseDeleteRange: { header: { revision: num(r.response_delete_range.header?.revision) }, deleted: num(r.response_delete_range.deleted) } };
  }
  return {};
}

function txnResponse(res: ITxnResponse): TxnResponse {
  return {
    header: { revision: num(res.header?.revision) },
    succeeded: !!res.succeeded,
    responses: (res.responses ?? []).map(responseOp),
  };
}

function watchResponse(res: IWatchResponse): WatchResponse {
  const events: WatchEvent[] = (res.events ?? []).map((ev) => ({
    // The package's kv.proto names the values Put and Delete (etcd's: PUT, DELETE).
    type: String(ev.type).toUpperCase() === 'DELETE' || (ev.type as unknown) === EVENT_DELETE ? EVENT_DELETE : EVENT_PUT,
    kv: toKv(ev.kv),
    prevKv: ev.prev_kv ? toKv(ev.prev_kv) : undefined,
  }));
  return {
    header: { revision: num(res.header?.revision) },
    watchId: num(res.watch_id),
    created: !!res.created,
    canceled: !!res.canceled,
    compactRevision: num(res.compact_revision),
    cancelReason: res.cancel_reason ?? '',
    fragment: !!res.fragment,
    events,
  };
}

/**
 * The package's errors as StorageErrors, by etcd's texts and the gRPC class (errors.ts
 * fromEtcdError). A call that found no connection (none could be made, or the member is held out
 * by the breaker) certainly did not reach etcd: `sent` false.
 */
export function storageErrorOf(err: unknown): StorageError {
  if (err instanceof StorageError) return err;
  let e = fromEtcdError(err);
  const text = err instanceof Error ? `${err.constructor.name} ${err.message}` : String(err);
  // Say why, as the lean client does (e.g. "etcdserver: no leader").
  if (e.code === 'Unavailable' && err instanceof Error) e = new StorageError('Unavailable', `${e.message}: ${err.message}`);
  if (e.code === 'Unavailable' && /No connection established|BrokenCircuit|ClientClosed|ECONNREFUSED/i.test(text)) e.sent = false;
  return e;
}

// ---------------------------------------------------------------------------------------------
// Watches: one Watch RPC per watch.

const CREATING = 0;
const OPEN = 1;
const ENDED = 2;

class PackageWatch implements EtcdKvWatch {
  state = CREATING;
  timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly owner: Etcd3PackageKv,
    readonly stream: IDuplexStream<IWatchRequest, IWatchResponse>,
    /** The member it is on (StickyHosts' index). */
    readonly host: number,
    private readonly handler: WatchStreamHandler,
    private readonly resolve: (w: PackageWatch) => void,
    private readonly reject: (e: StorageError) => void,
  ) {}

  start(req: WatchCreateRequest, timeoutMs: number): void {
    this.stream.on('data', (res: IWatchResponse) => this.onResponse(res));
    this.stream.on('error', (err: Error) => this.broken(streamError(err)));
    this.stream.on('end', () => this.broken(fromGrpcStatus(GrpcStatus.UNAVAILABLE, 'etcd ended the watch stream')));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.state === CREATING) this.fail(fromGrpcStatus(GrpcStatus.DEADLINE_EXCEEDED, 'etcd did not create the watch in time'));
    }, timeoutMs);
    const create: IWatchRequest['create_request'] = { key: req.key };
    if (req.rangeEnd?.length) create.range_end = req.rangeEnd;
    if (req.startRevision) create.start_revision = req.startRevision;
    if (req.progressNotify) create.progress_notify = true;
    if (req.prevKv) create.prev_kv = true;
    this.stream.write({ create_request: create });
  }

  private onResponse(raw: IWatchResponse): void {
    if (this.state === ENDED) return;
    if (this.host === this.owner.sticky.current) this.owner.sticky.answered = true;
    const res = watchResponse(raw);
    if (this.state === CREATING) {
      if (!res.created) {
        this.fail(new StorageError('Internal', 'etcd answered a watch before creating it'));
        return;
      }
      if (res.canceled || res.compactRevision > 0) {
        this.fail(cancelError(res));
        return;
      }
      this.state = OPEN;
      this.clearTimer();
      this.resolve(this);
      return;
    }
    if (res.canceled || res.compactRevision > 0) {
      this.fail(cancelError(res));
      return;
    }
    this.handler.onResponse(res);
  }

  /** The stream broke: the watch ends, and its member may be left (StickyHosts.failed). */
  private broken(err: StorageError): void {
    if (this.state === ENDED) return;
    this.fail(err);
    this.owner.sticky.failed(this.host, err);
  }

  /** Ends the watch with `err`: the creation's rejection, or the one onError. */
  fail(err: StorageError): void {
    if (this.state === ENDED) return;
    const creating = this.state === CREATING;
    this.end();
    if (creating) this.reject(err);
    else this.handler.onError(err);
  }

  close(): Promise<void> {
    if (this.state !== ENDED) {
      const creating = this.state === CREATING;
      this.end();
      if (creating) this.reject(new StorageError('Unavailable', 'the watch was closed before etcd created it'));
    }
    return Promise.resolve();
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private end(): void {
    this.state = ENDED;
    this.clearTimer();
    this.owner.forget(this);
    // Cancelling the call resets its HTTP/2 stream; etcd drops the watcher with it.
    try {
      this.stream.cancel();
    } catch {
      // already ended
    }
  }
}

/** Why etcd cancelled a watch: its start revision was compacted, or what cancel_reason says. */
function cancelError(res: WatchResponse): StorageError {
  if (res.compactRevision > 0) return new StorageError('Compacted', 'mvcc: required revision has been compacted', res.compactRevision);
  return fromGrpcStatus(GrpcStatus.UNKNOWN, `etcd cancelled the watch${res.cancelReason ? `: ${res.cancelReason}` : ''}`);
}

/** A grpc-js stream error (it carries the gRPC code and details) as the lean client reports it. */
function streamError(err: Error): StorageError {
  const { code, details } = err as Error & { code?: number; details?: string };
  if (typeof code === 'number' && code !== GrpcStatus.OK) {
    const e = fromGrpcStatus(code, details ?? err.message);
    if (e.code !== 'Internal') return e;
  }
  return fromGrpcStatus(GrpcStatus.UNAVAILABLE, `the etcd watch stream was interrupted (${details ?? err.message})`);
}

// ---------------------------------------------------------------------------------------------

export class Etcd3PackageKv implements EtcdKv {
  private readonly watches = new Set<PackageWatch>();
  private closed = false;

  constructor(readonly client: Etcd3, readonly timeoutMs: number, readonly sticky: StickyHosts) {
    sticky.onLeave = (index, reason) => {
      const hosts = sticky.pool.hosts;
      for (const w of [...this.watches]) {
        if (w.host === index) w.fail(new StorageError('Unavailable', `the storage backend is not reachable: left etcd member ${hosts[index].host}: ${reason}`));
      }
    };
    sticky.start();
  }

  async range(req: RangeRequest): Promise<RangeResponse> {
    const r = rangeRequest(req);
    try {
      return rangeResponse(await this.client.kv.range(r));
    } catch (err) {
      const e = storageErrorOf(err);
      // A read may be repeated: once more, on whichever member the package picks now.
      if (e.code !== 'Unavailable' || this.closed) throw e;
      try {
        return rangeResponse(await this.client.kv.range(r));
      } catch (again) {
        throw storageErrorOf(again);
      }
    }
  }

  async txn(req: TxnRequest): Promise<TxnResponse> {
    const t = {
      compare: (req.compare ?? []).map(compare),
      success: (req.success ?? []).map(requestOp),
      failure: (req.failure ?? []).map(requestOp),
    };
    try {
      return txnResponse(await this.client.kv.txn(t));
    } catch (err) {
      const e = storageErrorOf(err);
      // Only a Txn that never left may be sent again here (see the header comment).
      if (e.code !== 'Unavailable' || e.sent !== false || this.closed) throw e;
      try {
        return txnResponse(await this.client.kv.txn(t));
      } catch (again) {
        throw storageErrorOf(again);
      }
    }
  }

  async leaseGrant(ttlSeconds: number): Promise<LeaseGrantResponse> {
    try {
      const res = await this.client.leaseClient.leaseGrant({ TTL: ttlSeconds });
      if (res.error) throw new StorageError('Internal', `etcd refused a lease: ${res.error}`);
      return { header: { revision: num(res.header?.revision) }, id: BigInt(res.ID), ttl: num(res.TTL) };
    } catch (err) {
      throw storageErrorOf(err);
    }
  }

  async compact(revision: number, physical = false): Promise<CompactResponse> {
    try {
      const res = await this.client.kv.compact({ revision, physical });
      return { header: { revision: num(res.header?.revision) } };
    } catch (err) {
      throw storageErrorOf(err);
    }
  }

  async watch(req: WatchCreateRequest, handler: WatchStreamHandler): Promise<EtcdKvWatch> {
    if (this.closed) throw new StorageError('Unavailable', 'the etcd client is closed');
    let stream: IDuplexStream<IWatchRequest, IWatchResponse>;
    let host = -1;
    try {
      // The pool's own path (as the package's WatchClient), to know the member the stream is on.
      const { pool } = this.sticky;
      stream = await pool.withConnection('Watch', ({ resource, client, metadata }) => {
        host = pool.hosts.indexOf(resource);
        return client.watch(metadata, { interceptors: this.sticky.interceptors }) as IDuplexStream<IWatchRequest, IWatchResponse>;
      });
    } catch (err) {
      throw storageErrorOf(err);
    }
    return new Promise<EtcdKvWatch>((resolve, reject) => {
      const w = new PackageWatch(this, stream, host, handler, resolve, reject);
      this.watches.add(w);
      if (this.closed) {
        void w.close();
        return;
      }
      w.start(req, this.timeoutMs);
    });
  }

  /** @internal a watch that ended. */
  forget(w: PackageWatch): void {
    this.watches.delete(w);
  }

  /** Open watches end with one onError Unavailable, as the lean client's (their owners did not close them). */
  async close(): Promise<void> {
    this.closed = true;
    this.sticky.stop();
    for (const w of [...this.watches]) w.fail(new StorageError('Unavailable', 'the storage backend is not reachable: the etcd client is closed'));
    this.client.close();
  }
}
