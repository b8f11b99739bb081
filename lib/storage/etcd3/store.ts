/**
 * Storage over etcd v3: every verb is one etcd request or one transaction, in etcd's words
 * (revision, mod_revision, create_revision). See ../interfaces.ts for the contract.
 */
import { Etcd3, IKeyValue, IRangeRequest, IResponseOp } from 'etcd3';
import { CasResult, KeyValue, RangeOptions, RangeResult, Storage, WatchHandle, WatchHandlers } from '../interfaces';
import { fromEtcdError } from '../errors';
import { watchPrefix } from './watcher';

const toKv = (kv: IKeyValue): KeyValue => ({
  key: kv.key.toString(),
  value: kv.value,
  createRevision: Number(kv.create_revision),
  modRevision: Number(kv.mod_revision),
});

/** The first key after every key that starts with `prefix` (etcd's prefix range end). */
export function prefixEnd(prefix: string): Buffer {
  const b = Buffer.from(prefix);
  for (let i = b.length - 1; i >= 0; i--) {
    if (b[i] < 0xff) {
      const end = Buffer.from(b.subarray(0, i + 1));
      end[i] += 1;
      return end;
    }
  }
  return Buffer.from([0]);
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw fromEtcdError(err);
  }
}

export class Etcd3Storage implements Storage {
  constructor(private readonly client: Etcd3) {}

  async get(key: string, opts: { revision?: number } = {}): Promise<{ kv?: KeyValue; revision: number }> {
    const req: IRangeRequest = { key: Buffer.from(key) };
    if (opts.revision) req.revision = opts.revision;
    const res = await call(() => this.client.kv.range(req));
    return { kv: res.kvs.length ? toKv(res.kvs[0]) : undefined, revision: Number(res.header.revision) };
  }

  async range(prefix: string, opts: RangeOptions = {}): Promise<RangeResult> {
    const req: IRangeRequest = {
      key: Buffer.from(opts.startKey ?? prefix),
      range_end: prefixEnd(prefix),
    };
    if (opts.revision) req.revision = opts.revision;
    if (opts.limit) req.limit = opts.limit;
    if (opts.countOnly) req.count_only = true;
    const res = await call(() => this.client.kv.range(req));
    return {
      kvs: res.kvs.map(toKv),
      revision: Number(res.header.revision),
      more: res.more,
      count: Number(res.count),
    };
  }

  create(key: string, value: Buffer): Promise<CasResult> {
    return this.cas(key, { target: 'Create', create_revision: 0 }, { request_put: { key: Buffer.from(key), value } });
  }

  update(key: string, value: Buffer, modRevision: number): Promise<CasResult> {
    return this.cas(key, { target: 'Mod', mod_revision: modRevision }, { request_put: { key: Buffer.from(key), value } });
  }

  delete(key: string, modRevision: number): Promise<CasResult> {
    return this.cas(key, { target: 'Mod', mod_revision: modRevision }, { request_delete_range: { key: Buffer.from(key) } });
  }

  /** One transaction: if the compare holds, do `op`; otherwise read the key as it is now. */
  private async cas(key: string, compare: { target: 'Create' | 'Mod'; create_revision?: number; mod_revision?: number },
    op: { request_put?: { key: Buffer; value: Buffer }; request_delete_range?: { key: Buffer } }): Promise<CasResult> {
    const k = Buffer.from(key);
    const res = await call(() => this.client.kv.txn({
      compare: [{ key: k, result: 'Equal', ...compare }],
      success: [op],
      failure: [{ request_range: { key: k } }],
    }));
    const revision = Number(res.header.revision);
    if (res.succeeded) return { ok: true, revision };
    const range = (res.responses[0] as IResponseOp).response_range;
    return { ok: false, revision, current: range.kvs.length ? toKv(range.kvs[0]) : undefined };
  }

  watch(prefix: string, afterRevision: number, handlers: WatchHandlers): Promise<WatchHandle> {
    return watchPrefix(this.client, prefix, afterRevision, handlers);
  }

  async currentRevision(): Promise<number> {
    // A one-key count over an empty range is the cheapest linearizable read that returns the header.
    const res = await call(() => this.client.kv.range({ key: Buffer.from([0]), count_only: true }));
    return Number(res.header.revision);
  }

  async compact(revision: number): Promise<void> {
    await call(() => this.client.kv.compact({ revision, physical: false }));
  }

  async close(): Promise<void> {
    this.client.close();
  }
}
