/**
 * The freshness probe over etcd v3: one keys-only range over the prefix with
 * min_mod_revision = since + 1. etcd applies mod-revision filters after counting, so `count` is
 * every key under the prefix while `kvs` are only the changed ones (see the cacher tests).
 */
import type { EtcdKv } from '../etcd3/kv';
import { prefixEnd } from '../etcd3/store';
import { FreshnessProbe, ProbeResult } from './freshness';

export class Etcd3Probe implements FreshnessProbe {
  constructor(private readonly client: EtcdKv) {}

  /** Throws StorageError (the client's) when etcd cannot answer. */
  async probe(prefix: string, sinceRevision: number): Promise<ProbeResult> {
    const res = await this.client.range({
      key: Buffer.from(prefix),
      rangeEnd: prefixEnd(prefix),
      keysOnly: true,
      minModRevision: sinceRevision + 1,
    });
    let maxModRevision = 0;
    for (const kv of res.kvs) maxModRevision = Math.max(maxModRevision, kv.modRevision);
    return {
      changedKeys: res.kvs.length,
      maxModRevision,
      count: res.count,
      revision: res.header.revision,
    };
  }
}
