/**
 * ReclaimPolicy: when a quiet server ends an interval with a full garbage collection. Only after
 * a quiet interval, and only when there is something to give back: a burst of work since the last
 * collection, or a footprint grown well over its lowest reading.
 */
import { expect } from 'chai';
import { GROWTH_BYTES, QUIET_UTILISATION, ReclaimPolicy, WORK_MS } from '../../../lib/server/idle-memory-reclaim';

const MIB = 2 ** 20;
const quiet = (footprint: number, activeMs = 1) => ({ footprint, utilisation: QUIET_UTILISATION / 10, activeMs });
const busy = (footprint: number, activeMs = 4_000) => ({ footprint, utilisation: 0.8, activeMs });

describe('ReclaimPolicy', () => {
  it('never collects in a busy interval, whatever the growth or the work', () => {
    const p = new ReclaimPolicy(50 * MIB);
    expect(p.shouldReclaim(busy(500 * MIB))).to.equal(false);
    expect(p.shouldReclaim({ footprint: 500 * MIB, utilisation: QUIET_UTILISATION, activeMs: 100 })).to.equal(false);
  });

  it('collects in the first quiet interval after a burst of work, once', () => {
    const p = new ReclaimPolicy(50 * MIB);
    expect(p.shouldReclaim(busy(60 * MIB))).to.equal(false);
    expect(p.shouldReclaim(quiet(60 * MIB))).to.equal(true);
    p.collected(55 * MIB);
    expect(p.shouldReclaim(quiet(55 * MIB))).to.equal(false);
    expect(p.shouldReclaim(quiet(56 * MIB))).to.equal(false);
  });

  it('adds up work spread over quiet intervals: one collection per WORK_MS of it', () => {
    const p = new ReclaimPolicy(50 * MIB);
    const perInterval = WORK_MS / 10;
    const decisions = Array.from({ length: 10 }, () => p.shouldReclaim(quiet(50 * MIB, perInterval)));
    expect(decisions.indexOf(true)).to.equal(9);
  });

  it('collects when the footprint grew by GROWTH_BYTES over its lowest, even without much work', () => {
    const p = new ReclaimPolicy(80 * MIB);
    // The footprint fell (V8 collected by itself): growth counts from the lowest reading.
    expect(p.shouldReclaim(quiet(40 * MIB))).to.equal(false);
    expect(p.shouldReclaim(quiet(40 * MIB + GROWTH_BYTES - MIB))).to.equal(false);
    expect(p.shouldReclaim(quiet(40 * MIB + GROWTH_BYTES))).to.equal(true);
  });

  it('asks a large footprint to grow by a quarter, not by GROWTH_BYTES', () => {
    const p = new ReclaimPolicy(400 * MIB);
    expect(p.shouldReclaim(quiet(480 * MIB))).to.equal(false);
    expect(p.shouldReclaim(quiet(500 * MIB))).to.equal(true);
  });

  it('measures growth from the footprint after a collection: a live set that grew costs one collection', () => {
    const p = new ReclaimPolicy(40 * MIB);
    expect(p.shouldReclaim(quiet(200 * MIB))).to.equal(true);
    p.collected(180 * MIB);
    for (let i = 0; i < 5; i++) expect(p.shouldReclaim(quiet(180 * MIB))).to.equal(false);
  });
});
