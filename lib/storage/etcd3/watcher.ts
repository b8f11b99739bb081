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
  watcher.on('error', (err: Error) => {
    if (closed) return;
    closed = true;
    const e = fromEtcdError(err);
    handlers.onError(/compacted/.test(err.message) ? new StorageError('Compacted', e.message) : e);
  });

  return {
    async close() {
      if (closed && !watcher.id) return;
      closed = true;
      await watcher.cancel().catch(() => undefined);
    },
  };
}
