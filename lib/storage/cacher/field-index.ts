/**
 * The watch cache's index on one field (Kubernetes' indexed trigger, e.g. a pod's spec.nodeName):
 * which keys hold which value of it. A list or watch whose field selector demands one value
 * (`spec.nodeName=X`) reads and is dispatched through it: the keys of node X, the changes to and
 * from node X, not every pod. The field selector is still applied to what the index yields, so
 * the index only narrows, never decides.
 */
import { ApiObject } from '../../scheme/types';
import { compareKeys } from './key-order';

export interface CacheIndex {
  /** The field whose `=` selector the index answers, e.g. `spec.nodeName`. */
  field: string;
  /**
   * The field's value in a stored object, which `object` decodes (a watch event's decoding is
   * shared with the watch streams, event-objects.ts; it throws when the bytes do not decode);
   * '' when unset. Must not throw.
   */
  valueOf(object: () => ApiObject): string;
}

/** An event's index values: the object's before (undefined: it did not exist) and after (undefined: deleted). */
export interface IndexChange {
  before?: string;
  after?: string;
}

export class FieldIndexKeys {
  private readonly valueByKey = new Map<string, string>();
  private readonly keysByValue = new Map<string, Set<string>>();

  constructor(readonly index: CacheIndex) {}

  /** The value `key` is indexed under, if it exists. */
  valueOf(key: string): string | undefined {
    return this.valueByKey.get(key);
  }

  clear(): void {
    this.valueByKey.clear();
    this.keysByValue.clear();
  }

  /** Indexes `key` under `value` (undefined: the key is gone); returns the value it had. */
  set(key: string, value: string | undefined): string | undefined {
    const old = this.valueByKey.get(key);
    if (old === value) return old;
    if (old !== undefined) {
      const keys = this.keysByValue.get(old)!;
      keys.delete(key);
      if (!keys.size) this.keysByValue.delete(old);
    }
    if (value === undefined) {
      this.valueByKey.delete(key);
      return old;
    }
    this.valueByKey.set(key, value);
    let keys = this.keysByValue.get(value);
    if (!keys) this.keysByValue.set(value, (keys = new Set()));
    keys.add(key);
    return old;
  }

  /** The keys under `value` within `prefix`, from `from` (inclusive), in etcd key order. */
  keys(value: string, prefix: string, from: string): string[] {
    const keys = this.keysByValue.get(value);
    if (!keys) return [];
    const out: string[] = [];
    for (const key of keys) if (key.startsWith(prefix) && compareKeys(key, from) >= 0) out.push(key);
    return out.sort(compareKeys);
  }
}
