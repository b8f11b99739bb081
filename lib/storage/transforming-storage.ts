/**
 * Encryption at rest as a Storage: values are transformed on their way to etcd and back, below
 * the watch cache (which therefore holds plaintext, and its JSON fast paths keep working).
 * One wrapper per resource; the transformer is looked up at each call, so a reloaded
 * --encryption-provider-config applies to the next request without rebuilding any store.
 *
 * As kube-apiserver: a value that cannot be read is a StorageError Internal, answered
 * `500 Internal error occurred: <reason>`; a range names the key (`unable to transform key ...`).
 * A watch event that cannot be read ends the watch, reported as Compacted: its consumer must
 * re-list (as Kubernetes' reflector does after a watch error), not resume into the same event
 * again. The watch cache then re-lists until the value is readable or gone (each attempt a 500 of
 * `unable to transform key`), and recovers by itself once it is.
 */
import { CasResult, KeyValue, PutOptions, RangeOptions, RangeResult, Storage, StorageEvent, WatchHandle, WatchHandlers, WatchOptions } from './interfaces';
import { StorageError } from './errors';
import { ValueTransformer } from './value/transformer';

export class TransformingStorage implements Storage {
  readonly transformsValues = true;
  /** `transformer`: the resource's transformer now (it changes when the configuration is reloaded). */
  constructor(readonly inner: Storage, private readonly transformer: () => ValueTransformer) {}

  private write(key: string, value: Buffer): Buffer {
    try {
      return this.transformer().toStorage(value, key);
    } catch (err) {
      throw new StorageError('Internal', (err as Error).message);
    }
  }

  /** The plaintext of a stored key; `inRange` words the error as kube's list does. */
  private read(kv: KeyValue, inRange = false): KeyValue {
    let out;
    try {
      out = this.transformer().fromStorage(kv.value, kv.key);
    } catch (err) {
      const reason = (err as Error).message;
      throw new StorageError('Internal', inRange ? `unable to transform key ${JSON.stringify(kv.key)}: ${reason}` : reason);
    }
    // Identity's answer is the stored value itself: the KeyValue (and its memos) is kept.
    if (out.value === kv.value && !out.stale) return kv;
    const plain: KeyValue = { key: kv.key, value: out.value, createRevision: kv.createRevision, modRevision: kv.modRevision };
    if (out.stale) plain.stale = true;
    return plain;
  }

  private cas(result: CasResult): CasResult {
    if (result.ok || !result.current) return result;
    return { ok: false, current: this.read(result.current), revision: result.revision };
  }

  async get(key: string, opts?: { revision?: number }): Promise<{ kv?: KeyValue; revision: number }> {
    const r = await this.inner.get(key, opts);
    return r.kv ? { kv: this.read(r.kv), revision: r.revision } : r;
  }

  async range(prefix: string, opts?: RangeOptions): Promise<RangeResult> {
    const r = await this.inner.range(prefix, opts);
    if (opts?.countOnly || !r.kvs.length) return r;
    return { ...r, kvs: r.kvs.map((kv) => this.read(kv, true)) };
  }

  async create(key: string, value: Buffer, opts?: PutOptions): Promise<CasResult> {
    return this.cas(await this.inner.create(key, this.write(key, value), opts));
  }

  async update(key: string, value: Buffer, modRevision: number, opts?: PutOptions): Promise<CasResult> {
    return this.cas(await this.inner.update(key, this.write(key, value), modRevision, opts));
  }

  async delete(key: string, modRevision: number): Promise<CasResult> {
    return this.cas(await this.inner.delete(key, modRevision));
  }

  async watch(prefix: string, afterRevision: number, handlers: WatchHandlers, opts?: WatchOptions): Promise<WatchHandle> {
    let failed = false;
    let handle: WatchHandle | undefined;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      void handle?.close().catch(() => undefined);
      handlers.onError(err);
    };
    handle = await this.inner.watch(prefix, afterRevision, {
      onEvents: (events, revision) => {
        if (failed) return;
        let plain: StorageEvent[];
        try {
          plain = events.map((ev) => this.event(ev));
        } catch (err) {
          fail(new StorageError('Compacted', `watch ended: ${(err as Error).message}`));
          return;
        }
        handlers.onEvents(plain, revision);
      },
      onProgress: handlers.onProgress && ((revision) => { if (!failed) handlers.onProgress!(revision); }),
      onError: (err) => {
        if (failed) return;
        failed = true;
        handlers.onError(err);
      },
    }, opts);
    if (failed) void handle.close().catch(() => undefined);
    return handle;
  }

  private event(ev: StorageEvent): StorageEvent {
    const value = ev.value.length ? this.read({ key: ev.key, value: ev.value, createRevision: 0, modRevision: ev.revision }, true).value : ev.value;
    const prevValue = ev.prevValue?.length ? this.read({ key: ev.key, value: ev.prevValue, createRevision: 0, modRevision: ev.revision }, true).value : ev.prevValue;
    return { ...ev, value, prevValue };
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
