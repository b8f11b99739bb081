/**
 * Queue sets: shuffle sharding (kube's dealer), fair queuing between the flows of one level,
 * queue length limits, Reject levels, and cancellation of a waiting request.
 */
import { expect } from 'chai';
import { dealIntoHand, hashFlowId } from '../../../lib/flowcontrol/dealer';
import { QueueSet, Ticket, WaitingRequest } from '../../../lib/flowcontrol/queueset';
import type { RejectReason } from '../../../lib/flowcontrol/metrics';

const ONE = { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 };

describe('flowcontrol shuffle sharding', () => {
  it('deals a hand of distinct queues within the deck, the same for the same flow', () => {
    for (let i = 0; i < 200; i++) {
      const hash = hashFlowId('global-default', `user-${i}`);
      const hand = dealIntoHand(hash, 128, 6);
      expect(new Set(hand).size).to.equal(6);
      for (const q of hand) expect(q).to.be.within(0, 127);
      expect(dealIntoHand(hashFlowId('global-default', `user-${i}`), 128, 6)).to.deep.equal(hand);
    }
  });

  it('deals as kube\'s Dealer: remainders of successive divisions, bumped past the cards dealt', () => {
    // 1000 = 10 x 100 + 0 -> 0; 100 = 9 x 11 + 1 -> 1 (>= 0: 2); 11 = 8 x 1 + 3 -> 3 (>= 1: 4, >= 0: 5).
    expect(dealIntoHand(1000n, 10, 3)).to.deep.equal([0, 2, 5]);
  });

  it('spreads flows: two users rarely share a whole hand', () => {
    let shared = 0;
    for (let i = 0; i < 500; i++) {
      const a = new Set(dealIntoHand(hashFlowId('fs', `a${i}`), 128, 6));
      const b = dealIntoHand(hashFlowId('fs', `b${i}`), 128, 6);
      if (b.every((q) => a.has(q))) shared++;
    }
    expect(shared).to.equal(0);
  });
});

/** Starts a request of `flow`; the outcome lands in `log` when it runs or is refused. */
function starter(qs: QueueSet) {
  const running: { flow: string; ticket: Ticket }[] = [];
  const order: string[] = [];
  const refused: RejectReason[] = [];
  const start = (flow: string): WaitingRequest | undefined => {
    const settle = (o: Ticket | RejectReason) => {
      if (typeof o === 'string') refused.push(o);
      else { order.push(flow); running.push({ flow, ticket: o }); }
    };
    const out = qs.start(ONE, flow, () => hashFlowId('fs', flow), settle);
    if (typeof out === 'string') refused.push(out);
    else if ('finish' in out) settle(out);
    else return out;
    return undefined;
  };
  const finishOldest = () => running.shift()!.ticket.finish();
  return { start, finishOldest, order, refused, running };
}

describe('flowcontrol queue set', () => {
  it('runs at once while seats are free, then queues', () => {
    const qs = new QueueSet({ queues: 64, handSize: 6, queueLengthLimit: 50 }, 2);
    const s = starter(qs);
    s.start('a'); s.start('a'); s.start('a');
    expect(s.order).to.deep.equal(['a', 'a']);
    expect(qs.requestsWaiting).to.equal(1);
    s.finishOldest();
    expect(s.order).to.deep.equal(['a', 'a', 'a']);
    expect(qs.requestsWaiting).to.equal(0);
  });

  it('is fair between two flows: a flood of one does not delay the other beyond its turn', () => {
    // Every request takes 10 ms of a fake clock: fair queuing charges queues by service time.
    let clock = 0;
    const qs = new QueueSet({ queues: 64, handSize: 6, queueLengthLimit: 50 }, 1, () => {}, () => clock);
    const s = starter(qs);
    s.start('noisy'); // running
    for (let i = 0; i < 40; i++) s.start('noisy');
    clock += 5;
    for (let i = 0; i < 5; i++) s.start('quiet');
    while (s.running.length > 0) { clock += 10; s.finishOldest(); }
    // The quiet flow's 5 requests are served within the first dozen dispatches, not after the 40.
    const lastQuiet = s.order.lastIndexOf('quiet');
    expect(lastQuiet).to.be.below(13);
    expect(s.order.filter((f) => f === 'quiet')).to.have.length(5);
    expect(s.order).to.have.length(46);
  });

  it('refuses a request whose queue is full while the level is full (queue-full)', () => {
    // One queue, hand of one: every request goes there.
    const qs = new QueueSet({ queues: 1, handSize: 1, queueLengthLimit: 3 }, 1);
    const s = starter(qs);
    for (let i = 0; i < 6; i++) s.start('a');
    expect(s.order).to.have.length(1);
    expect(qs.requestsWaiting).to.equal(3);
    expect(s.refused).to.deep.equal(['queue-full', 'queue-full']);
  });

  it('a Reject level runs at once or refuses (concurrency-limit)', () => {
    const qs = new QueueSet({ queues: 0, handSize: 0, queueLengthLimit: 0 }, 2);
    const s = starter(qs);
    s.start('a'); s.start('b'); s.start('c');
    expect(s.order).to.deep.equal(['a', 'b']);
    expect(s.refused).to.deep.equal(['concurrency-limit']);
  });

  it('takes a cancelled request out of its queue, and a larger limit dispatches waiting ones', () => {
    const qs = new QueueSet({ queues: 8, handSize: 2, queueLengthLimit: 10 }, 1);
    const s = starter(qs);
    s.start('a');
    const w1 = s.start('b')!;
    s.start('c');
    expect(qs.cancel(w1)).to.equal(true);
    expect(qs.cancel(w1)).to.equal(false);
    expect(qs.requestsWaiting).to.equal(1);
    qs.setLimit(2);
    expect(s.order).to.deep.equal(['a', 'c']);
  });

  it('seats: a request wider than the free seats waits; one wider than the limit runs alone', () => {
    const qs = new QueueSet({ queues: 4, handSize: 1, queueLengthLimit: 10 }, 4);
    const ran: number[] = [];
    const start = (seats: number) => qs.start({ initialSeats: seats, finalSeats: 0, additionalLatencyMs: 0 }, `f${seats}`, () => BigInt(seats), (o) => { if (typeof o !== 'string') ran.push(seats); });
    const a = start(3) as Ticket;
    expect('finish' in a).to.equal(true);
    expect(start(2)).to.not.have.property('finish');
    expect(qs.seatsExecuting).to.equal(3);
    a.finish();
    expect(ran).to.deep.equal([2]);
    expect(qs.seatsExecuting).to.equal(2);
  });
});
