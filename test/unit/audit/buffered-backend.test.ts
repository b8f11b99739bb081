import { expect } from 'chai';
import { BufferedBackend, BufferedBackendOptions } from '../../../lib/audit/buffered-backend';
import { AuditMetrics } from '../../../lib/audit/metrics';
import { MetricsRegistry } from '../../../lib/metrics/registry';
import type { AuditBackend, AuditEvent } from '../../../lib/audit/types';
import { parseExposition } from '../../helpers/prom-text';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function event(i: number): AuditEvent {
  return {
    kind: 'Event', apiVersion: 'audit.orch.io/v1', level: 'Metadata', auditID: `id-${i}`, stage: 'ResponseComplete',
    requestURI: `/api/v1/namespaces/default/configmaps/c${i}`, verb: 'get', user: { username: 'alice' },
    requestReceivedTimestamp: '2024-01-01T00:00:00.000000Z', stageTimestamp: '2024-01-01T00:00:00.000000Z',
  };
}
const events = (from: number, n: number) => Array.from({ length: n }, (_, i) => event(from + i));

/** A delegate that records the batches it gets; `hold` makes it synchronous but slow to matter. */
class FakeDelegate implements AuditBackend {
  readonly name = 'webhook';
  batches: AuditEvent[][] = [];
  shutDown = false;
  processEvents(e: AuditEvent[]): void { this.batches.push(e); }
  async shutdown(): Promise<void> { this.shutDown = true; }
  get ids(): string[] { return this.batches.flat().map((e) => e.auditID); }
}

/** An asynchronous delegate whose sends wait until released (a webhook that is slow or hangs). */
class SlowDelegate extends FakeDelegate {
  private releases: (() => void)[] = [];
  sendBatch(e: AuditEvent[]): Promise<void> {
    return new Promise((r) => this.releases.push(() => { this.batches.push(e); r(); }));
  }
  releaseAll(): void { this.releases.splice(0).forEach((r) => r()); }
  get pending(): number { return this.releases.length; }
}

function setup(opts: Partial<BufferedBackendOptions> = {}, delegate: FakeDelegate = new FakeDelegate()) {
  const registry = new MetricsRegistry();
  const metrics = new AuditMetrics(registry);
  const warnings: { msg: string; meta?: Record<string, unknown> }[] = [];
  const backend = new BufferedBackend(delegate, {
    bufferSize: 100, maxBatchSize: 10, maxBatchWaitMs: 60_000, throttleEnable: false, throttleQPS: 0, throttleBurst: 0,
    metrics, log: { warn: (msg, meta) => warnings.push({ msg, meta }) }, ...opts,
  });
  const errors = async (plugin: string) => parseExposition(await registry.render()).value('apiserver_audit_error_total', { plugin });
  return { backend, delegate, warnings, errors };
}

describe('BufferedBackend (kube-apiserver batch mode)', () => {
  it('sends a batch as soon as maxBatchSize events are buffered, and keeps a partial one waiting', async () => {
    const { backend, delegate } = setup({ maxBatchSize: 3 });
    backend.processEvents(events(0, 7));
    await sleep(20);
    expect(delegate.batches.map((b) => b.length)).to.deep.equal([3, 3]);
    expect(delegate.ids).to.deep.equal(['id-0', 'id-1', 'id-2', 'id-3', 'id-4', 'id-5']);
    expect(backend.buffered).to.equal(1);
  });

  it('sends a partial batch once maxBatchWait has passed', async () => {
    const { backend, delegate } = setup({ maxBatchSize: 10, maxBatchWaitMs: 80 });
    backend.processEvents(events(0, 2));
    backend.processEvents(events(2, 1));
    await sleep(20);
    expect(delegate.batches).to.have.length(0);
    await sleep(150);
    expect(delegate.batches.map((b) => b.length)).to.deep.equal([3]);
    expect(delegate.ids).to.deep.equal(['id-0', 'id-1', 'id-2']);
  });

  it('maxBatchSize 1 (the log default) hands each event over at once, but never within the request', async () => {
    const { backend, delegate } = setup({ maxBatchSize: 1 });
    backend.processEvents(events(0, 2));
    expect(delegate.batches, 'not synchronously in processEvents').to.have.length(0);
    await sleep(10);
    expect(delegate.batches.map((b) => b.length)).to.deep.equal([1, 1]);
  });

  it('throttles batches to throttleQPS after a burst of throttleBurst', async () => {
    const { backend, delegate } = setup({ maxBatchSize: 1, throttleEnable: true, throttleQPS: 4, throttleBurst: 2 });
    backend.processEvents(events(0, 4));
    await sleep(50);
    expect(delegate.batches, 'the burst goes out at once, the rest waits for tokens').to.have.length(2);
    expect(backend.buffered).to.equal(2);
    await sleep(700); // 4 per second: two more tokens in 500 ms
    expect(delegate.ids).to.deep.equal(['id-0', 'id-1', 'id-2', 'id-3']);
  });

  it('a full buffer drops events without waiting, counts them as errors of the delegate plugin and logs without contents', async () => {
    const delegate = new SlowDelegate();
    const { backend, warnings, errors } = setup({ bufferSize: 5, maxBatchSize: 5, throttleEnable: true, throttleQPS: 0.001, throttleBurst: 1, shutdownTimeoutMs: 100 }, delegate);
    backend.processEvents(events(0, 5)); // one batch, then the throttle holds the next one for a long time
    await sleep(20);
    expect(delegate.pending).to.equal(1);
    const started = Date.now();
    backend.processEvents(events(5, 5));
    backend.processEvents(events(10, 3));
    backend.processEvents(events(13, 4));
    expect(Date.now() - started, 'processEvents returned at once').to.be.below(1000);
    expect(backend.buffered).to.equal(5);
    expect(await errors('webhook')).to.equal(7);
    // Rate-limited: one line for the burst of drops, with kube's wording and the count.
    expect(warnings).to.have.length(1);
    expect(warnings[0].msg).to.equal("Error in audit plugin 'webhook' affecting 3 audit events: audit buffer queue blocked");
    expect(JSON.stringify(warnings)).to.not.include('id-1').and.not.include('alice').and.not.include('configmaps');
    delegate.releaseAll();
    await backend.shutdown();
  });

  it('logs again after the interval, with the events dropped meanwhile', async () => {
    const { backend, warnings, errors } = setup({ bufferSize: 1, maxBatchSize: 10, dropLogIntervalMs: 50 });
    backend.processEvents(events(0, 2)); // 1 dropped, logged
    backend.processEvents(events(2, 1)); // 1 dropped, not logged yet
    await sleep(80);
    backend.processEvents(events(3, 1)); // logged with both
    expect(warnings.map((w) => w.msg)).to.deep.equal([
      "Error in audit plugin 'webhook' affecting 1 audit events: audit buffer queue blocked",
      "Error in audit plugin 'webhook' affecting 2 audit events: audit buffer queue blocked",
    ]);
    expect(await errors('webhook')).to.equal(3);
    await backend.shutdown();
  });

  it('shutdown sends what is buffered, waits for sends under way, then shuts the delegate down', async () => {
    const { backend, delegate } = setup({ maxBatchSize: 4, maxBatchWaitMs: 60_000 });
    backend.processEvents(events(0, 6));
    await sleep(10);
    expect(delegate.batches).to.have.length(1);
    await backend.shutdown();
    expect(delegate.ids).to.have.length(6);
    expect(delegate.batches.map((b) => b.length)).to.deep.equal([4, 2]);
    expect(delegate.shutDown).to.equal(true);
  });

  it('shutdown is bounded when the delegate hangs, and events after it are counted as errors', async () => {
    const delegate = new SlowDelegate();
    const { backend, errors, warnings } = setup({ maxBatchSize: 2, shutdownTimeoutMs: 100 }, delegate);
    backend.processEvents(events(0, 2));
    await sleep(10);
    const started = Date.now();
    await backend.shutdown();
    expect(Date.now() - started).to.be.below(2000);
    expect(delegate.shutDown).to.equal(true);
    backend.processEvents(events(2, 3));
    expect(await errors('webhook')).to.equal(3);
    expect(warnings.at(-1)!.msg).to.equal("Error in audit plugin 'webhook' affecting 3 audit events: audit backend shut down");
    delegate.releaseAll();
  });

  it('a delegate that throws costs its batch (counted and logged), not the next ones', async () => {
    const delegate = new FakeDelegate();
    let calls = 0;
    delegate.processEvents = function (e) { if (calls++ === 0) throw new Error('disk full'); this.batches.push(e); };
    const { backend, errors, warnings } = setup({ maxBatchSize: 2 }, delegate);
    backend.processEvents(events(0, 4));
    await sleep(20);
    expect(delegate.ids).to.deep.equal(['id-2', 'id-3']);
    expect(await errors('webhook')).to.equal(2);
    expect(warnings[0].msg).to.equal("Error in audit plugin 'webhook' affecting 2 audit events: disk full");
    await backend.shutdown();
  });
});
