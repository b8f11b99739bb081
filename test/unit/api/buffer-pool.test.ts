/**
 * BufferPool, the chunk buffers of big list bodies: reused while lists are in flight, as many as
 * they need up to a limit, and trimmed once no list has taken one for a while.
 */
import { expect } from 'chai';
import { BufferPool } from '../../../lib/api/json-list-body';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('BufferPool', () => {
  it('hands back a returned buffer instead of allocating', () => {
    const pool = new BufferPool(1024, 4, 1, 50);
    const a = pool.take(100);
    expect(a.length).to.equal(1024);
    pool.giveBack(a);
    expect(pool.size).to.equal(1);
    expect(pool.take(1024)).to.equal(a);
    expect(pool.size).to.equal(0);
  });

  it('allocates a bigger buffer for a request over the buffer size and does not keep it', () => {
    const pool = new BufferPool(1024, 4, 1, 50);
    const big = pool.take(5000);
    expect(big.length).to.equal(5000);
    pool.giveBack(big);
    expect(pool.size).to.equal(0);
  });

  it('keeps as many as were in use at once, up to the limit', () => {
    const pool = new BufferPool(1024, 4, 1, 50);
    const held = Array.from({ length: 6 }, () => pool.take(10));
    for (const b of held) pool.giveBack(b);
    expect(pool.size).to.equal(4);
    const again = Array.from({ length: 4 }, () => pool.take(10));
    expect(new Set(again).size).to.equal(4);
    expect(again.every((b) => held.includes(b))).to.equal(true);
  });

  it('trims to the idle limit once nothing was taken for idleMs, not while buffers are still taken', async () => {
    const pool = new BufferPool(1024, 8, 2, 300);
    const held = Array.from({ length: 6 }, () => pool.take(10));
    for (const b of held) pool.giveBack(b);
    expect(pool.size).to.equal(6);
    // Taking within the idle window postpones the trim.
    await sleep(150);
    pool.giveBack(pool.take(10));
    await sleep(150);
    expect(pool.size).to.equal(6);
    await sleep(450);
    expect(pool.size).to.equal(2);
  });
});
