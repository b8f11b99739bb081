/**
 * Storage over etcd v3: every verb is one etcd request or one transaction, in etcd's words
 * (revision, mod_revision, create_revision). See ../interfaces.ts for the contract.
 * Everything goes through the lean client: Range, Txn and Compact (kv-client.ts), and watches
 * on the same sessions (watcher.ts, watch-stream.ts).
 */
import { CasResult, KeyValue, RangeOptions, RangeResult, Storage, WatchHandle, WatchHandlers, WatchOptions } from '../interfaces';
import { Compare, EtcdKeyValue, EtcdKvClient, RangeRequest, RequestOp, prefixEnd } from './kv-client';
import { watchPrefix } from './watcher';

// Where callers have long found it.
export { prefixEnd };

const toKv = (kv: EtcdKeyValue): KeyValue => ({
  key: kv.key.toString(),
  value: kv.value,
  createRevision: kv.createRevision,
  modRevision: kv.modRevision,
});

/** The key of the cheapest read: a count of the single key "\0". */
const REVISION_PROBE_KEY = Buffer.from([0]);

export class Etcd3Storage implements Storage {
  /** `kv` serves every read, write and watch; close() closes it, which ends open watches. */
  constructor(private readonly kv: EtcdKvClient) {}

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

  create(key: string, value: Buffer): Promise<CasResult> {
    const k = Buffer.from(key);
    return this.cas(k, { key: k, target: 'Create', result: 'Equal', createRevision: 0 }, { put: { key: k, value } });
  }

  update(key: string, value: Buffer, modRevision: number): Promise<CasResult> {
    const k = Buffer.from(key);
    return this.cas(k, { key: k, target: 'Mod', result: 'Equal', modRevision }, { put: { key: k, value } });
  }

  delete(key: string, modRevision: number): Promise<CasResult> {
    const k = Buffer.from(key);
    return this.cas(k, { key: k, target: 'Mod', result: 'Equal', modRevision }, { deleteRange: { key: k } });
  }

  /** One transaction: if the compare holds, do `op`; otherwise read the key as it is now. */
  private async cas(key: Buffer, compare: Compare, op: RequestOp): Promise<CasResult> {
    const res = await this.kv.txn({ compare: [compare], success: [op], failure: [{ range: { key } }] });
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
