/**
 * One etcd watch over a key prefix, delivering batches of changes with their revisions.
 * The etcd3 client re-establishes a broken stream from the last seen revision by itself;
 * a compacted start revision ends the watch with a StorageError Compacted.
 */
import { Etcd3, IWatchResponse } from 'etcd3';
import { StorageEvent, WatchHandle, WatchHandlers } from '../interfaces';
import { StorageError, fromEtcdError } from '../errors';

export async function watchPrefix(client: Etcd3, prefix: string, afterRevision: number,
  handlers: WatchHandlers): Promise<WatchHandle> {
  let closed = false;
  const watcher = await client.watch().prefix(prefix).withPreviousKV()
    .startRevision(String(afterRevision + 1)).create()
    .catch((err) => { throw fromEtcdError(err); });

  watcher.on('data', (res: IWatchResponse) => {
    if (closed) return;
    const revision = Number(res.header.revision);
    if (Number(res.compact_revision) > 0) {
      closed = true;
      handlers.onError(new StorageError('Compacted', 'mvcc: required revision has been compacted', Number(res.compact_revision)));
      return;
    }
    if (!res.events.length) {
      handlers.onProgress?.(revision);
      return;
    }
    const events: StorageEvent[] = res.events.map((ev) => {
      const isPut = ev.type === 'Put';
      return {
        type: isPut ? 'put' : 'delete',
        key: ev.kv.key.toString(),
        value: isPut ? ev.kv.value : (ev.prev_kv?.value ?? Buffer.alloc(0)),
        prevValue: isPut ? ev.prev_kv?.value : undefined,
        revision: Number(ev.kv.mod_revision),
        created: isPut && ev.kv.create_revision === ev.kv.mod_revision,
      };
    });
    handlers.onEvents(events, revision);
  });
  // Ends the watch for the caller. The etcd3 client would resume a broken stream by itself, but
  // from a header revision that can lie past undelivered events; the caller resumes instead, from
  // the last revision it actually received.
  let cancelled: Promise<void> | undefined;
  const cancel = () => (cancelled ??= Promise.race([
    watcher.cancel().catch(() => undefined),
    new Promise<void>((r) => setTimeout(r, 1000).unref()),
  ]).then(() => undefined));
  const fail = (err: StorageError) => {
    if (closed) return;
    closed = true;
    void cancel();
    handlers.onError(err);
  };
  watcher.on('error', (err: Error) => {
    const e = fromEtcdError(err);
    fail(/compacted/.test(err.message) ? new StorageError('Compacted', e.message) : e);
  });
  watcher.on('disconnected', () => fail(new StorageError('Unavailable', 'the etcd watch stream was interrupted')));

  return {
    close() {
      closed = true;
      return cancel();
    },
  };
}
