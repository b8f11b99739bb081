/**
 * The small parts of the HTTP/2 session that bound what a client can make it do: the reset budget
 * (nghttp2's token bucket: 1000 at once, then 33 a second) and the bounded memory of closed
 * streams (RFC 9113 5.1's answers to late frames).
 */
import { expect } from 'chai';
import { ClosedAs, ClosedStreams } from '../../../lib/http2/closed-streams';
import { ResetBudget } from '../../../lib/http2/reset-budget';

describe('HTTP/2 session parts', () => {
  it('the reset budget allows a burst, then refills at its rate', async () => {
    const budget = new ResetBudget(10, 100);
    for (let i = 0; i < 10; i++) expect(budget.take()).to.equal(true);
    expect(budget.take()).to.equal(false);
    await new Promise((r) => setTimeout(r, 60));
    // ~6 refilled at 100 a second, never more than the burst.
    let more = 0;
    while (budget.take()) more++;
    expect(more).to.be.within(3, 10);
  });

  it('closed streams remember how each closed, and only the most recent ones', () => {
    const closed = new ClosedStreams(3);
    closed.add(1, ClosedAs.Closed);
    closed.add(3, ClosedAs.ResetHere);
    closed.add(5, ClosedAs.Closed);
    expect(closed.get(1)).to.equal(ClosedAs.Closed);
    expect(closed.get(3)).to.equal(ClosedAs.ResetHere);
    closed.add(7, ClosedAs.ResetHere);
    expect(closed.get(1)).to.equal(undefined);
    expect(closed.get(7)).to.equal(ClosedAs.ResetHere);
  });
});
