/**
 * The division of the server's concurrency limit among priority levels, with kube-apiserver's
 * numbers: nominal limits from --max-requests-inflight=400 + --max-mutating-requests-inflight=200,
 * lendable and borrowing bounds, the starting limits, and borrowing by seat demand.
 */
import { expect } from 'chai';
import { computeLevelLimits, adjustLimits, DemandStats, fairAllocation, maxSeatsOf } from '../../../lib/flowcontrol/concurrency';
import { bootstrapConfiguration } from '../../../lib/flowcontrol/bootstrap';
import { Dispatcher } from '../../../lib/flowcontrol/dispatcher';

describe('flowcontrol concurrency division', () => {
  const levels = bootstrapConfiguration().priorityLevels;

  it('gives each level ceil(600 x shares / 245) seats, as kube-apiserver with default flags', () => {
    const limits = computeLevelLimits(levels, 600);
    const nominal = Object.fromEntries([...limits].map(([n, l]) => [n, l.nominalCL]));
    expect(nominal).to.deep.equal({
      'catch-all': 13, exempt: 0, system: 74, 'node-high': 98, 'leader-election': 25, 'workload-high': 98, 'workload-low': 245, 'global-default': 49,
    });
  });

  it('bounds each level by its lendable and borrowing percentages and starts it at NominalCL - lendable/2', () => {
    const l = computeLevelLimits(levels, 600);
    // workload-low lends 90% (round(220.5) = 221); no borrowingLimitPercent: it may borrow the server's 600.
    expect(l.get('workload-low')).to.deep.equal({ nominalCL: 245, minCL: 24, maxCL: 845, initialCL: 135 });
    // leader-election lends nothing.
    expect(l.get('leader-election')).to.deep.equal({ nominalCL: 25, minCL: 25, maxCL: 625, initialCL: 25 });
    expect(l.get('global-default')).to.deep.equal({ nominalCL: 49, minCL: 24, maxCL: 649, initialCL: 37 });
  });

  it('caps a request of a level at max(1, min(ceil(15% NominalCL), NominalCL / handSize)) seats', () => {
    expect(maxSeatsOf(245, 6)).to.equal(37);
    expect(maxSeatsOf(49, 6)).to.equal(8);
    expect(maxSeatsOf(1, 6)).to.equal(1);
    expect(maxSeatsOf(13, undefined)).to.equal(0);
  });

  it('finds the fair allocation: proportional to demand within each level\'s bounds, summing to the total', () => {
    const a = fairAllocation(100, [{ lower: 10, upper: 100, target: 10 }, { lower: 10, upper: 30, target: 80 }, { lower: 5, upper: 100, target: 5 }]);
    expect(a.reduce((x, y) => x + y)).to.be.closeTo(100, 1e-6);
    expect(a[1]).to.be.closeTo(30, 1e-6); // capped
    expect(a[0] / a[2]).to.be.closeTo(2, 1e-6); // the rest in proportion to the targets
  });

  it('lends idle levels\' seats to a busy one every adjustment period, never below their MinCL', () => {
    const limits = computeLevelLimits(levels, 600);
    const sum = [...limits.values()].reduce((s, l) => s + l.nominalCL, 0);
    const stats = (hw: number, smoothed: number) => Object.assign(new DemandStats(), { highWatermark: hw, smoothed });
    const inputs = [...limits].map(([name, l]) => ({
      name, exempt: name === 'exempt', limits: l, currentCL: l.initialCL,
      stats: name === 'global-default' ? stats(400, 400) : stats(0, 0),
    }));
    const next = adjustLimits(inputs, sum);
    expect(next.get('global-default')).to.be.greaterThan(300);
    for (const [name, l] of limits) if (name !== 'global-default' && name !== 'exempt') expect(next.get(name), name).to.be.at.least(l.minCL);
    const total = [...next.values()].reduce((s, v) => s + v, 0);
    expect(total).to.be.closeTo(sum, levels.length);
  });

  it('gives a level that keeps 64 seats busy more than 64 after one adjustment period, and runs its waiting requests then', () => {
    const realNow = Date.now;
    let t = realNow();
    Date.now = () => t;
    try {
      const d = new Dispatcher({ serverConcurrencyLimit: 600 });
      d.configure(bootstrapConfiguration());
      const level = d.level('global-default')!;
      const qs = level.queues!;
      const before = qs.concurrencyLimit;
      expect(before).to.be.below(64);
      const one = { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 };
      let running = 0;
      for (let i = 0; i < 64; i++) {
        const o = qs.start(one, 'global-default\0someone', () => 1n, () => { running++; });
        if (typeof o === 'object' && 'finish' in o) running++;
      }
      expect(running).to.equal(before);
      t += 10_000;
      d.adjustBorrowing();
      expect(qs.concurrencyLimit).to.be.greaterThan(64);
      expect(qs.concurrencyLimit).to.be.at.most(level.limits.maxCL);
      expect(running).to.equal(64);
    } finally {
      Date.now = realNow;
    }
  });

  it('applies the borrowing round to the queue sets\' limits when configured', () => {
    const d = new Dispatcher({ serverConcurrencyLimit: 600 });
    d.configure(bootstrapConfiguration());
    // No demand yet: each level gets its share of the total in proportion to its MinCL.
    const leader = d.level('leader-election')!;
    expect(leader.queues!.concurrencyLimit).to.equal(leader.currentCL);
    expect(leader.currentCL).to.be.at.least(25);
  });
});
