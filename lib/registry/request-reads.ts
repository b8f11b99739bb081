/**
 * The current objects one request has read, by etcd key: a later read of the same object within
 * the request (NodeRestriction's pod and the TokenRequest handler's) gets the first read's answer,
 * so the request reads it from etcd once and every step sees the same state of it. Only for reads
 * that want the current state (a GET without resourceVersion); an error is shared as well.
 */
import { KeyValue } from '../storage/interfaces';

export class RequestReads {
  private readonly byKey = new Map<string, Promise<KeyValue | undefined>>();

  /** The key's value as this request first read it; `load` reads it the first time. */
  read(key: string, load: () => Promise<KeyValue | undefined>): Promise<KeyValue | undefined> {
    let read = this.byKey.get(key);
    if (!read) {
      read = load();
      // A read started ahead of its use (a prefetch) may fail before anyone awaits it.
      read.catch(() => undefined);
      this.byKey.set(key, read);
    }
    return read;
  }
}
