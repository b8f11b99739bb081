/**
 * withTurnBudget: a burst of requests is started at most N per turn of the event loop, in
 * arrival order, so the answers to the first ones can be written while the rest are computed.
 */
import { expect } from 'chai';
import { withTurnBudget } from '../../../lib/server/turn-budget';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('withTurnBudget', () => {
  it('starts the first N of a burst at once and the rest N per turn, in arrival order', async () => {
    const started: number[] = [];
    const handle = withTurnBudget((req: number) => { started.push(req); }, 3);
    for (let i = 0; i < 8; i++) handle(i, undefined);
    expect(started).to.deep.equal([0, 1, 2]);
    await nextTurn();
    expect(started).to.deep.equal([0, 1, 2, 3, 4, 5]);
    // Arriving while others wait: behind them.
    handle(8, undefined);
    expect(started).to.have.length(6);
    await nextTurn();
    expect(started).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    await nextTurn();
    // A new turn has a whole budget again.
    handle(9, undefined);
    handle(10, undefined);
    expect(started).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('hands each request its own response object', async () => {
    const pairs: Array<[string, string]> = [];
    const handle = withTurnBudget((req: string, res: string) => { pairs.push([req, res]); }, 1);
    handle('a', 'ra');
    handle('b', 'rb');
    await nextTurn();
    expect(pairs).to.deep.equal([['a', 'ra'], ['b', 'rb']]);
  });

  it('without a limit starts everything at once', () => {
    let n = 0;
    const handle = withTurnBudget(() => { n++; }, Infinity);
    for (let i = 0; i < 1000; i++) handle(i, i);
    expect(n).to.equal(1000);
  });
});
