/**
 * A cache watcher whose consumer is behind is ended when its live backlog passes either bound:
 * the event count or the bytes of the values it holds (so 1,000 events of 1 MiB cannot pin 1 GiB).
 * A consumer that keeps up is never ended, however large one delivery is.
 */
import { expect } from 'chai';
import { CacheWatcher, CacheWatchHandlers } from '../../../lib/storage/cacher/cache-watcher';
import { StorageEvent } from '../../../lib/storage/interfaces';

const put = (revision: number, bytes: number): StorageEvent => ({ type: 'put', key: `/r/k${revision}`, value: Buffer.alloc(bytes), revision, created: true });

/** A consumer that holds every delivery until release() (an HTTP response waiting for 'drain'). */
function stalledConsumer() {
  const delivered: number[] = [];
  let release!: () => void;
  const errors: Error[] = [];
  const handlers: CacheWatchHandlers = {
    onEvents: (evs) => {
      for (const e of evs) delivered.push(e.revision);
      return new Promise<void>((r) => { release = r; });
    },
    onError: (err) => { errors.push(err); },
  };
  return { handlers, delivered, errors, release: () => release() };
}

function watcher(handlers: CacheWatchHandlers, eventLimit: number, byteLimit: number): { w: CacheWatcher; detached: () => boolean } {
  let detached = false;
  const w = new CacheWatcher('/r/', 0, handlers, eventLimit, (x) => setImmediate(() => x.drain()), () => { detached = true; }, byteLimit);
  return { w, detached: () => detached };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('CacheWatcher queue limits', () => {
  it('ends a stalled watcher once its backlog holds more bytes than the byte bound, below the event bound', async () => {
    const c = stalledConsumer();
    const { w, detached } = watcher(c.handlers, 1000, 64 * 1024);
    w.push([put(1, 10)], true);
    await turn();
    expect(c.delivered).to.deep.equal([1]); // the consumer now holds this delivery
    // 10 events of 8 KiB = 80 KiB behind: over 64 KiB, far under 1,000 events.
    for (let r = 2; r <= 7; r++) w.push([put(r, 8 * 1024)], true);
    await turn();
    expect(w.closed).to.equal(false);
    for (let r = 8; r <= 11; r++) w.push([put(r, 8 * 1024)], true);
    await turn();
    expect(w.closed).to.equal(true);
    expect(detached()).to.equal(true);
    expect(c.errors.map((e) => e.message)).to.deep.equal(['watcher could not keep up']);
  });

  it('ends a stalled watcher past the event bound with small values', async () => {
    const c = stalledConsumer();
    const { w } = watcher(c.handlers, 5, 1 << 20);
    w.push([put(1, 10)], true);
    await turn();
    for (let r = 2; r <= 6; r++) w.push([put(r, 10)], true);
    await turn();
    expect(w.closed).to.equal(false);
    w.push([put(7, 10)], true);
    await turn();
    expect(w.closed).to.equal(true);
    expect(c.errors).to.have.length(1);
  });

  it('keeps a consumer that takes each delivery, whatever its size, and frees the bytes it took', async () => {
    const c = stalledConsumer();
    const { w } = watcher(c.handlers, 1000, 64 * 1024);
    // One delivery of 1 MiB to a consumer that has taken everything: handed over whole.
    w.push([put(1, 1 << 20)], true);
    await turn();
    expect(w.closed).to.equal(false);
    c.release();
    await turn();
    // Repeatedly 40 KiB behind, then caught up: the byte count goes down as deliveries are taken.
    for (let round = 0; round < 5; round++) {
      const base = 2 + round * 5;
      w.push([put(base, 10)], true);
      await turn();
      for (let r = base + 1; r < base + 5; r++) w.push([put(r, 10 * 1024)], true);
      await turn();
      c.release();
      await turn();
      c.release();
      await turn();
    }
    expect(w.closed).to.equal(false);
    expect(c.errors).to.deep.equal([]);
    expect(c.delivered).to.have.length(26);
    await w.close();
  });
});
