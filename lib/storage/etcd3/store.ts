/**
 * Storage over etcd v3: every verb is one etcd request or one transaction, in etcd's words
 * (revision, mod_revision, create_revision). See ../interfaces.ts for the contract.
 * Everything goes through one EtcdKv (kv.ts): Range, Txn, Compact and watches (watcher.ts), on
 * the lean client (kv-client.ts, watch-stream.ts) or the etcd3 package (../etcd3pkg/etcd3-kv.ts).
 *
 * An indeterminate compare-and-swap (the Txn timed out, or the connection was lost after it was
 * sent: it may or may not have been applied) is sent once more, unchanged. The compare makes this
 * safe: if the first one was applied, the second fails its compare, and a key whose value is now
 * byte for byte ours is our own write (a create's bytes carry the object's uid and
 * creationTimestamp, so no other writer makes the same; an update by another writer to the very
 * same bytes leaves the same state, so reporting it as ours is harmless). A delete cannot be told
 * apart that way (the key is gone either way), so an indeterminate delete whose retry finds the
 * key gone fails with the first error, as before.
 */
import { LeaseManager } from './lease-manager';
import { CasResult, KeyValue, PutOptions, RangeOptions, RangeResult, Storage, WatchHandle, WatchHandlers, WatchOptions } from '../interfaces';
import { StorageError, isStorageError } from '../errors';
import { Compare, EtcdKeyValue, RangeRequest, RequestOp, TxnRequest, TxnResponse } from './kv-types';
import { prefixEnd } from './prefix-end';
import type { EtcdKv } from './kv';
import { watchPrefix } from './watcher';

// Where callers have long found it.
export { prefixEnd };

const toKv = (kv: EtcdKeyValue): KeyValue => ({
  key: kv.key.toString(),
  value: kv.value,
  createRevision: kv.createRevision,
  modRevision: kv.modRevision,
});

/** A Txn that failed this way may have been applied (see the header comment). */
function isIndeterminate(err: unknown): err is StorageError {
  return isStorageError(err) && (err.code === 'Timeout' || (err.code === 'Unavailable' && err.sent !== false));
}

/** The key of the cheapest read: a count of the single key "\0". */
const REVISION_PROBE_KEY = Buffer.from([0]);

export class Etcd3Storage implements Storage {
  /** Leases of keys written with a TTL (lease-manager.ts). */
  private readonly leases: LeaseManager;

  /** `kv` serves every read, write and watch; close() closes it, which ends open watches. */
  constructor(private readonly kv: EtcdKv) {
    this.leases = new LeaseManager(kv);
  }

  async get(key: string, opts: { revision?: number } = {}): Promise<{ kv?: KeyValue; revision: number }> {
    const req: RangeRequest = { key: Buffer.from(key) };
    if (opts.revision) req.revision = opts.revision;
    const res = await this.kv.range(req);
    return { kv: res.kvs.length ? toKv(res.kvs[0]) : undefined, revision: res.header.revision };
  }

  async range(prefix: string, opts: RangeOptions = {}): Promise<RangeResult> {
    const req: RangeRequest = {
      key: Buffer.from(opts.startKey ?? prefix),
      rangeEnd: prefixEnd(prefix),
    };
    if (opts.revision) req.revision = opts.revision;
    if (opts.limit) req.limit = opts.limit;
    if (opts.countOnly) req.countOnly = true;
    const res = await this.kv.range(req);
    return {
      kvs: res.kvs.map(toKv),
      revision: res.header.revision,
      more: res.more,
      count: res.count,
    };
  }

  create(key: string, value: Buffer, opts?: PutOptions): Promise<CasResult> {
    const k = Buffer.from(key);
    return this.put(k, { key: k, target: 'Create', result: 'Equal', createRevision: 0 }, value, opts);
  }

  update(key: string, value: Buffer, modRevision: number, opts?: PutOptions): Promise<CasResult> {
    const k = Buffer.from(key);
    return this.put(k, { key: k, target: 'Mod', result: 'Equal', modRevision }, value, opts);
  }

  /** A put under `compare`; with a TTL, under a lease (asked for first, so only such writes wait for one). */
  private put(k: Buffer, compare: Compare, value: Buffer, opts?: PutOptions): Promise<CasResult> {
    if (!opts?.ttlSeconds) return this.cas(k, compare, { put: { key: k, value } }, value);
    return this.leases.lease(opts.ttlSeconds).then((lease) => this.cas(k, compare, { put: { key: k, value, lease } }, value));
  }

  delete(key: string, modRevision: number): Promise<CasResult> {
    const k = Buffer.from(key);
    return this.cas(k, { key: k, target: 'Mod', result: 'Equal', modRevision }, { deleteRange: { key: k } });
  }

  /**
   * One transaction: if the compare holds, do `op`; otherwise read the key as it is now.
   * `value`: what a put writes (absent for a delete), to recognise our own write after a retry.
   */
  private async cas(key: Buffer, compare: Compare, op: RequestOp, value?: Buffer): Promise<CasResult> {
    const req: TxnRequest = { compare: [compare], success: [op], failure: [{ range: { key } }] };
    let res: TxnResponse;
    try {
      res = await this.kv.txn(req);
    } catch (err) {
      if (!isIndeterminate(err)) throw err;
      res = await this.kv.txn(req);
      if (!res.succeeded) {
        const current = res.responses[0]?.responseRange?.kvs[0];
        if (value !== undefined && current !== undefined && current.value.equals(value)) {
          return { ok: true, revision: current.modRevision };
        }
        // A delete that finds the key gone: ours or another's, no telling.
        if (value === undefined && current === undefined) throw err;
      }
    }
    const revision = res.header.revision;
    if (res.succeeded) return { ok: true, revision };
    const kvs = res.responses[0]?.responseRange?.kvs ?? [];
    return { ok: false, revision, current: kvs.length ? toKv(kvs[0]) : undefined };
  }

  watch(prefix: string, afterRevision: number, handlers: WatchHandlers, opts: WatchOptions = {}): Promise<WatchHandle> {
    return watchPrefix(this.kv, prefix, afterRevision, handlers, opts.prevValues !== false);
  }

  async currentRevision(): Promise<number> {
    // A one-key count over an empty range is the cheapest linearizable read that returns the header.
    const res = await this.kv.range({ key: REVISION_PROBE_KEY, countOnly: true });
    return res.header.revision;
  }

  async compact(revision: number): Promise<void> {
    await this.kv.compact(revision, false);
  }

  async close(): Promise<void> {
    await this.kv.close();
  }
}
