/**
 * A RangeAllocation (core/v1: `range` and `data`, the allocation bitmap) kept in etcd as
 * kube-apiserver keeps it (allocator/storage/storage.go): at `<prefix>/ranges/serviceips`,
 * `/ranges/secondaryserviceips` and `/ranges/servicenodeports`, changed only by
 * compare-and-swap on the key's mod_revision and retried on a lost race, so that server
 * replicas sharing one etcd never hand out one item twice. Every change reads the key, applies
 * the change to the bitmap it holds, and writes it back in one guarded put.
 */
import type { Storage } from '../../../storage/interfaces';
import { errors } from '../../../meta/api-errors';
import { AllocationBitmap } from './bitmap';

/** What the bitmap's offsets mean: one IP range or the node-port range. */
export interface RangeShape {
  /** The key under `<prefix>/ranges/`. */
  readonly key: string;
  /** RangeAllocation.range: `10.0.0.0/24`, `30000-32767`. */
  readonly rangeText: string;
  /** Usable items. */
  readonly max: number;
  /** The start of the upper band dynamic allocation prefers. */
  readonly offset: number;
  /** Kubernetes' resource name for the allocations (errors). */
  readonly resource: string;
}

/** How many times a lost compare-and-swap is retried before the change fails. */
const MAX_CAS_RETRIES = 32;

export interface StoredRange {
  bitmap: AllocationBitmap;
  /** The stored object's `range` differed from this server's: its bits mean nothing here. */
  mismatched: boolean;
  modRevision?: number;
}

/** The RangeAllocation object as it is written to etcd (JSON, as Go's encoding/json writes it). */
export function rangeAllocationJson(rangeText: string, data: Buffer): Buffer {
  return Buffer.from(JSON.stringify({
    kind: 'RangeAllocation', apiVersion: 'v1', metadata: { creationTimestamp: null }, range: rangeText, data: data.toString('base64'),
  }));
}

export class RangeStore {
  constructor(private readonly storage: Storage, private readonly prefix: string, readonly shape: RangeShape) {}

  get etcdKey(): string {
    return `${this.prefix}/ranges/${this.shape.key}`;
  }

  private decode(value: Buffer | undefined): { bitmap: AllocationBitmap; mismatched: boolean } {
    const empty = () => new AllocationBitmap(this.shape.max, this.shape.offset);
    if (!value) return { bitmap: empty(), mismatched: false };
    let obj: { range?: unknown; data?: unknown };
    try {
      obj = JSON.parse(value.toString('utf8')) as typeof obj;
    } catch {
      return { bitmap: empty(), mismatched: true };
    }
    if (obj.range !== this.shape.rangeText) return { bitmap: empty(), mismatched: true };
    const data = typeof obj.data === 'string' ? Buffer.from(obj.data, 'base64') : Buffer.alloc(0);
    return { bitmap: AllocationBitmap.fromBytes(this.shape.max, this.shape.offset, data), mismatched: false };
  }

  /** The bitmap as stored now (empty when the key is absent). */
  async read(): Promise<StoredRange> {
    const { kv } = await this.storage.get(this.etcdKey);
    return { ...this.decode(kv?.value), modRevision: kv?.modRevision };
  }

  /**
   * Applies `change` to the stored bitmap and writes it back guarded by mod_revision, again on a
   * lost race. `change` returns its result and whether it changed the bitmap (no write if not);
   * it throws to refuse (nothing is written). A missing key is created.
   */
  async update<R>(change: (bitmap: AllocationBitmap, stored: StoredRange) => { result: R; changed: boolean }): Promise<R> {
    for (let attempt = 0; attempt < MAX_CAS_RETRIES; attempt++) {
      const stored = await this.read();
      const { result, changed } = change(stored.bitmap, stored);
      if (!changed && stored.modRevision !== undefined && !stored.mismatched) return result;
      const value = rangeAllocationJson(this.shape.rangeText, stored.bitmap.toBytes());
      const res = stored.modRevision === undefined
        ? await this.storage.create(this.etcdKey, value)
        : await this.storage.update(this.etcdKey, value, stored.modRevision);
      if (res.ok) return result;
    }
    throw errors.conflict({ group: '', resource: this.shape.resource }, '',
      'the allocation range is being changed too often; please retry');
  }
}
