/**
 * --audit-log-mode=batch and the --audit-log-batch-* flags as the server builds the log backend
 * from them (buildAudit with auditBackendsFromFlags): the mode wraps the log in the batch buffer,
 * and each flag shapes that buffer (size, wait, buffer, throttle).
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { auditBackendsFromFlags } from '../../../lib/audit/backends-from-flags';
import { BufferedBackend } from '../../../lib/audit/buffered-backend';
import { buildAudit } from '../../../lib/audit/build';
import type { AuditBackend, AuditEvent } from '../../../lib/audit/types';
import { MetricsRegistry } from '../../../lib/metrics/registry';
import { flavors } from '../../../lib/naming';
import { parseFlags } from '../../../lib/server/flags';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quiet = { warn: () => undefined, info: () => undefined };

function event(i: number): AuditEvent {
  return {
    kind: 'Event', apiVersion: 'audit.orch.io/v1', level: 'Metadata', auditID: `id-${i}`, stage: 'ResponseComplete',
    requestURI: '/api/v1/namespaces', verb: 'list', user: { username: 'alice' },
    requestReceivedTimestamp: '2024-01-01T00:00:00.000000Z', stageTimestamp: '2024-01-01T00:00:00.000000Z',
  };
}
const events = (n: number) => Array.from({ length: n }, (_, i) => event(i));

/** Stands in for the log: records the batches the buffer hands it. */
class Recorder implements AuditBackend {
  readonly name = 'log';
  batches: AuditEvent[][] = [];
  processEvents(e: AuditEvent[]): void { this.batches.push(e); }
  async shutdown(): Promise<void> { /* nothing held */ }
}

/** The log's batch buffer as the flags make it, around a recorder. */
function batchLog(flags: string[]): { buffer: BufferedBackend; log: Recorder } {
  const config = parseFlags(['--audit-log-path=/unused.log', '--audit-log-mode=batch', ...flags]);
  const log = new Recorder();
  const buffer = auditBackendsFromFlags(config, new MetricsRegistry(), quiet).wrapBatch!(log) as BufferedBackend;
  return { buffer, log };
}

describe('the audit log backend from --audit-log-mode and --audit-log-batch-*', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'audit-batch-flags-')); });
  afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

  for (const [mode, batched] of [['batch', true], ['blocking', false]] as const) {
    it(`--audit-log-mode=${mode} ${batched ? 'wraps the log in the batch buffer' : 'writes the log directly'}`, async () => {
      const config = parseFlags([`--audit-log-path=${path.join(dir, 'audit.log')}`, `--audit-log-mode=${mode}`]);
      const audit = await buildAudit({
        config, naming: flavors.orch, log: quiet, ...auditBackendsFromFlags(config, new MetricsRegistry(), quiet),
      });
      try {
        expect(audit.backends).to.have.length(1);
        expect(audit.backends[0] instanceof BufferedBackend).to.equal(batched);
      } finally {
        await audit.shutdown();
      }
    });
  }

  it('--audit-log-batch-max-size and --audit-log-batch-max-wait: full batches at once, the rest after the wait', async () => {
    const { buffer, log } = batchLog(['--audit-log-batch-max-size=3', '--audit-log-batch-max-wait=100ms']);
    buffer.processEvents(events(7));
    await sleep(30);
    expect(log.batches.map((b) => b.length)).to.deep.equal([3, 3]);
    await sleep(200);
    expect(log.batches.map((b) => b.length)).to.deep.equal([3, 3, 1]);
    await buffer.shutdown();
  });

  it('--audit-log-batch-buffer-size: events past a full buffer are dropped', async () => {
    const { buffer, log } = batchLog(['--audit-log-batch-buffer-size=2', '--audit-log-batch-max-size=10', '--audit-log-batch-max-wait=50ms']);
    buffer.processEvents(events(5));
    expect(buffer.buffered).to.equal(2);
    await sleep(150);
    expect(log.batches.flat().map((e) => e.auditID)).to.deep.equal(['id-0', 'id-1']);
    await buffer.shutdown();
  });

  it('--audit-log-batch-throttle-enable, -qps and -burst: a burst at once, then the rate', async () => {
    const { buffer, log } = batchLog(['--audit-log-batch-throttle-enable', '--audit-log-batch-throttle-qps=4', '--audit-log-batch-throttle-burst=2']);
    buffer.processEvents(events(4)); // --audit-log-batch-max-size is 1 by default: one event per batch
    await sleep(50);
    expect(log.batches, 'the burst').to.have.length(2);
    await sleep(700); // 4 per second: two more tokens in 500 ms
    expect(log.batches).to.have.length(4);
    await buffer.shutdown();
  });
});
