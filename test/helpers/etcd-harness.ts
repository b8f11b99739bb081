/**
 * A throw-away etcd for integration tests: the real binary on loopback, data in a fresh temp
 * dir that is removed on stop.
 */
import { promises as fsp } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { startEmbeddedEtcd } from '../../lib/server/embedded-etcd';

export interface TestEtcd {
  /** `http://127.0.0.1:<port>`, for etcd3 `hosts` or `--etcd-servers`. */
  endpoint: string;
  /** The etcd process (for CPU accounting in benchmarks). */
  pid?: number;
  /** Its data dir, a fresh temp dir removed by stop() (absent for an etcd reached through a relay). */
  dataDir?: string;
  /** Stops etcd and deletes its data dir. */
  stop(): Promise<void>;
}

/**
 * Starts etcd (binary from `$ETCD_BINARY`, else `etcd` on PATH) in a new temp dir.
 * fsync is skipped where the binary allows it (etcd 3.5+): test data need not survive a crash.
 */
export async function startTestEtcd(): Promise<TestEtcd> {
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-test-etcd-'));
  try {
    const etcd = await startEmbeddedEtcd({
      dataDir,
      etcdBinary: process.env.ETCD_BINARY || undefined,
      unsafeNoFsync: true,
    });
    return {
      endpoint: etcd.clientUrl,
      pid: etcd.process.pid,
      dataDir,
      async stop() {
        await etcd.stop();
        await fsp.rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await fsp.rm(dataDir, { recursive: true, force: true });
    throw err;
  }
}
