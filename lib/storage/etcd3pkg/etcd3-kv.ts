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
 *
 * Beside it: one member at a time (sticky-hosts.ts), one watch (package-watch.ts), the messages
 * to and from the package's (etcd3-messages.ts) and its failures as StorageErrors (etcd3-errors.ts).
 */
import { readFileSync } from 'node:fs';
import type { Interceptor } from '@grpc/grpc-js';
import type { Etcd3, IDuplexStream, IOptions, IWatchRequest, IWatchResponse } from 'etcd3';
import { StorageError } from '../errors';
import type { CompactResponse, LeaseGrantResponse, RangeRequest, RangeResponse, TxnRequest, TxnResponse } from '../etcd3/kv-types';
import type { EtcdClientOptions } from '../etcd3/kv-client';
import type { EtcdKv, EtcdKvWatch } from '../etcd3/kv';
import type { WatchCreateRequest, WatchStreamHandler } from '../etcd3/watch-stream';
import { compare, num, rangeRequest, rangeResponse, requestOp, txnResponse } from './etcd3-messages';
import { storageErrorOf } from './etcd3-errors';
import { PackagePool, StickyHosts } from './sticky-hosts';
import { PackageWatch, PackageWatchOwner } from './package-watch';

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

export class Etcd3PackageKv implements EtcdKv, PackageWatchOwner {
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
