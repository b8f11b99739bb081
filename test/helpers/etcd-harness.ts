/**
 * A throw-away etcd for integration tests: the embedding API's (lib/server/embed.ts), the real
 * binary on loopback, data in a fresh temp dir that is removed on stop.
 */
import { EtcdHandle, startThrowawayEtcd } from '../../lib/server/embed';

/** An etcd of a test; `pid` and `dataDir` are absent for one reached through a relay. */
export type TestEtcd = EtcdHandle;

/**
 * Starts etcd (binary from `$ETCD_BINARY`, else `etcd` on PATH) in a new temp dir.
 * fsync is skipped where the binary allows it (etcd 3.5+): test data need not survive a crash.
 */
export function startTestEtcd(): Promise<TestEtcd> {
  return startThrowawayEtcd();
}
