import { expect } from 'chai';
import { WorkQueue } from '../../../lib/controllers/work-queue';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('WorkQueue', () => {
  it('a key added while it waits is processed once', async () => {
    const seen: string[] = [];
    const q = new WorkQueue(async (k) => { seen.push(k); await sleep(10); }, { workers: 1 });
    q.add('busy'); // takes the only worker, so 'a' and 'b' wait
    q.add('a'); q.add('b'); q.add('a');
    await sleep(60);
    expect(seen).to.deep.equal(['busy', 'a', 'b']);
    await q.stop();
  });

  it('a key added while it is processed runs once more afterwards, never twice at a time', async () => {
    let running = 0;
    let max = 0;
    let runs = 0;
    const q = new WorkQueue(async () => {
      running++; runs++; max = Math.max(max, running);
      await sleep(20);
      running--;
    });
    q.add('k');
    await sleep(5);
    q.add('k'); q.add('k');
    await sleep(80);
    expect(runs).to.equal(2);
    expect(max).to.equal(1);
    await q.stop();
  });

  it('a failing key is retried with a growing delay until it succeeds', async () => {
    const times: number[] = [];
    const q = new WorkQueue(async () => {
      times.push(Date.now());
      if (times.length < 3) throw new Error('not yet');
    }, { baseDelayMs: 20 });
    q.add('k');
    await sleep(150);
    expect(times).to.have.length(3);
    expect(times[2] - times[1]).to.be.greaterThan(times[1] - times[0]);
    expect(q.idle).to.equal(true);
    await q.stop();
  });
});
