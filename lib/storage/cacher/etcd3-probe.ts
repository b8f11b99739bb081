/**
 * The freshness probe over etcd v3: one keys-only range over the prefix with
 * min_mod_revision = since + 1. etcd applies mod-revision filters after counting, so `count` is
 * every key under the prefix while `kvs` are only the changed ones (see the cacher tests).
 */
import { Etcd3 } from 'etcd3';
import { fromEtcdError } from '../errors';
import { prefixEnd } from '../etcd3/store';
import { FreshnessProbe, ProbeResult } from './freshness';

export class Etcd3Probe implements FreshnessProbe {
  constructor(private readonly client: Etcd3) {}

  async probe(prefix: string, sinceRevision: number): Promise<ProbeResult> {
    let res;
    try {
      res = await this.client.kv.range({
        key: Buffer.from(prefix),
        range_end: prefixEnd(prefix),
        keys_only: true,
        min_mod_revision: String(sinceRevision + 1),
      });
    } catch (err) {
      throw fromEtcdError(err);
    }
    let maxModRevision = 0;
    for (const kv of res.kvs) maxModRevision = Math.max(maxModRevision, Number(kv.mod_revision));
    return {
      changedKeys: res.kvs.length,
      maxModRevision,
      count: Number(res.count),
      revision: Number(res.header.revision),
    };
  }
}
