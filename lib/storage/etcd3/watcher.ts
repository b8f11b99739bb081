/**
 * One etcd watch over a key prefix, delivering batches of changes with their revisions, on the
 * lean client's watch stream (watch-stream.ts). A broken stream is not resumed here: the watch
 * ends with one onError (Unavailable, or Compacted when etcd cancelled it for a compacted start
 * revision) and the caller watches again from the last revision it actually received.
 */
import { StorageEvent, WatchHandle, WatchHandlers } from '../interfaces';
import { StorageError, fromEtcdError } from '../errors';
import { EMPTY } from './protobuf-wire';
import { prefixEnd } from './prefix-end';
import type { EtcdKv } from './kv';
import { EVENT_PUT, WatchResponse, WatchStreamHandler } from './watch-stream';

/** Maps etcd's responses onto the storage contract's events: one object per event, no closures. */
class PrefixWatch implements WatchStreamHandler {
  constructor(private readonly handlers: WatchHandlers) {}

  onResponse(res: WatchResponse): void {
    const evs = res.events;
    const revision = res.header.revision;
    if (evs.length === 0) {
      this.handlers.onProgress?.(revision);
      return;
    }
    const events: StorageEvent[] = new Array(evs.length);
    for (let i = 0; i < evs.length; i++) {
      const ev = evs[i];
      const kv = ev.kv;
      const isPut = ev.type === EVENT_PUT;
      events[i] = {
        type: isPut ? 'put' : 'delete',
        key: kv.key.toString(),
        value: isPut ? kv.value : (ev.prevKv?.value ?? EMPTY),
        prevValue: isPut ? ev.prevKv?.value : undefined,
        revision: kv.modRevision,
        created: isPut && kv.createRevision === kv.modRevision,
      };
    }
    this.handlers.onEvents(events, revision);
  }

  onError(err: StorageError): void {
    this.handlers.onError(err);
  }
}

/** Resolves once etcd has created the watch; rejects with a StorageError when it cannot. */
export async function watchPrefix(client: EtcdKv, prefix: string, afterRevision: number,
  handlers: WatchHandlers, prevValues = true): Promise<WatchHandle> {
  try {
    return await client.watch({
      key: Buffer.from(prefix),
      rangeEnd: prefixEnd(prefix),
      startRevision: afterRevision + 1,
      prevKv: prevValues,
    }, new PrefixWatch(handlers));
  } catch (err) {
    throw fromEtcdError(err);
  }
}
