/**
 * The cache's fan-out: deliveries are spaced, and whenDelivered() tells a synchronous consumer
 * that everything published so far has reached it (what ResourceFeed.sync and so the garbage
 * collector's orphaning rely on).
 */
import { expect } from 'chai';
import { CacheWatcher } from '../../../lib/storage/cacher/cache-watcher';
import { WatchDispatcher } from '../../../lib/storage/cacher/watch-dispatcher';
import { StorageEvent } from '../../../lib/storage/interfaces';

const put = (key: string, revision: number): StorageEvent => ({ type: 'put', key, value: Buffer.from('{}'), revision, created: false });

describe('WatchDispatcher', () => {
  it('whenDelivered resolves only after the spaced delivery of everything published before it', async () => {
    const dispatcher = new WatchDispatcher(30);
    const seen: number[] = [];
    const w = new CacheWatcher('/r/', 0, { onEvents: (evs) => { for (const e of evs) seen.push(e.revision); }, onError: () => undefined },
      1000, dispatcher.schedule, (x) => dispatcher.remove(x));
    dispatcher.add(w);
    await dispatcher.whenDelivered(); // nothing pending: at once

    dispatcher.publish([put('/r/a', 1)]);
    await dispatcher.whenDelivered();
    expect(seen).to.deep.equal([1]);

    // The next delivery waits for the 30 ms spacing; a check after a few turns would miss it.
    dispatcher.publish([put('/r/b', 2)]);
    dispatcher.publish([put('/other/c', 3), put('/r/d', 4)]);
    await new Promise((r) => setImmediate(r));
    expect(seen).to.deep.equal([1]);
    await dispatcher.whenDelivered();
    expect(seen).to.deep.equal([1, 2, 4]);
    await w.close();
  });
});
