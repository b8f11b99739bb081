/**
 * The compactor: every interval, compact etcd to the revision seen one interval earlier.
 * Several API servers share one etcd, so a compare-and-swap on the version of one key
 * (`compact_rev_key`, as kube-apiserver) lets only one of them compact per interval; the
 * others see the key moved and adopt its version.
 */
import type { EtcdKv } from './kv';
import { fromEtcdError } from '../errors';

export const COMPACT_REV_KEY = 'compact_rev_key';

export interface CompactState {
  /** The version of compact_rev_key this server last saw (its logical clock). */
  version: number;
  /** The etcd revision recorded one interval ago: what the next round compacts to. */
  revision: number;
}

/**
 * One round: if compact_rev_key still has `state.version`, this server wins the round: it
 * records the current revision and compacts to `state.revision`. Returns the next state and
 * the revision compacted to (0 when another server won or there was nothing to compact).
 */
export async function compactRound(client: EtcdKv, state: CompactState): Promise<{ next: CompactState; compacted: number }> {
  const key = Buffer.from(COMPACT_REV_KEY);
  try {
    // The put's value is irrelevant: what counts is the key's version, bumped by each winner.
    const res = await client.txn({
      compare: [{ key, target: 'Version', result: 'Equal', version: state.version }],
      success: [{ put: { key, value: Buffer.from(String(state.revision)) } }],
      failure: [{ range: { key } }],
    });
    const current = res.header.revision;
    if (!res.succeeded) {
      const kv = res.responses[0]?.responseRange?.kvs[0];
      return { next: { version: kv ? kv.version : 0, revision: current }, compacted: 0 };
    }
    const next = { version: state.version + 1, revision: current };
    if (state.revision === 0) return { next, compacted: 0 };
    await client.compact(state.revision, false);
    return { next, compacted: state.revision };
  } catch (err) {
    const e = fromEtcdError(err);
    // Compacting to a revision another writer already compacted past is not a failure.
    if (e.code === 'Compacted') return { next: { version: state.version + 1, revision: state.revision }, compacted: 0 };
    throw e;
  }
}

export interface Compactor { stop(): void }

/** Runs compactRound every `intervalMs` until stopped; 0 disables compaction. */
export function startCompactor(client: EtcdKv, intervalMs: number, log: { info: (m: string, meta?: object) => void; warn: (m: string, meta?: object) => void }): Compactor {
  if (intervalMs <= 0) return { stop() {} };
  let state: CompactState = { version: 0, revision: 0 };
  let stopped = false;
  let timer: NodeJS.Timeout;
  const tick = async () => {
    try {
      const { next, compacted } = await compactRound(client, state);
      state = next;
      if (compacted) log.info('compacted etcd', { revision: compacted });
    } catch (err) {
      log.warn('etcd compaction failed; will retry next interval', { error: err instanceof Error ? err.message : String(err) });
    }
    if (!stopped) timer = setTimeout(tick, intervalMs);
  };
  timer = setTimeout(tick, intervalMs);
  return { stop() { stopped = true; clearTimeout(timer); } };
}
