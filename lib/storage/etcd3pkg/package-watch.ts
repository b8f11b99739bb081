/**
 * One watch on the etcd3 package: a Watch RPC of its own (its raw stream), resolved once etcd
 * has created it, ended by exactly one onError (or its creation's rejection), never resumed; a
 * compacted start is StorageError Compacted with etcd's compact_revision. What it tells the
 * client that made it, it names (PackageWatchOwner).
 */
import type { IDuplexStream, IWatchRequest, IWatchResponse } from 'etcd3';
import { GrpcStatus, StorageError, fromGrpcStatus } from '../errors';
import type { EtcdKvWatch } from '../etcd3/kv';
import type { WatchCreateRequest, WatchStreamHandler } from '../etcd3/watch-stream';
import { watchResponse } from './etcd3-messages';
import { cancelError, streamError } from './etcd3-errors';
import type { StickyHosts } from './sticky-hosts';

const CREATING = 0;
const OPEN = 1;
const ENDED = 2;

/** What a watch needs of the client that made it (Etcd3PackageKv implements it). */
export interface PackageWatchOwner {
  /** The member a watch is on is current, answers, or fails (StickyHosts). */
  readonly sticky: StickyHosts;
  /** The watch ended. */
  forget(w: PackageWatch): void;
}

export class PackageWatch implements EtcdKvWatch {
  state = CREATING;
  timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly owner: PackageWatchOwner,
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
