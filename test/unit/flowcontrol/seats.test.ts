/**
 * Seats of a request (kube-apiserver's work estimators): lists by the objects they read, writes
 * by the watchers they notify, everything else one seat.
 */
import { expect } from 'chai';
import { estimateWork, Counts } from '../../../lib/flowcontrol/seats';

const counts = (objects: number | undefined | null, watchers = 0): Counts => ({ objects: () => objects, watchers: () => watchers });
const req = (verb: string, query = '', name?: string, resource = 'pods') => ({ verb, isResourceRequest: true, resource, name, query: new URLSearchParams(query) });

describe('flowcontrol seats (work estimation)', () => {
  const TABLE: [string, ReturnType<typeof req>, Counts, number, number][] = [
    // what, request, counts, level max seats, initial seats
    ['a get', req('get', '', 'p'), counts(5000), 0, 1],
    ['a list of 50 objects', req('list'), counts(50), 0, 1],
    ['a list of 250 objects (from the cache: all of them)', req('list'), counts(250), 0, 3],
    ['a list of 5000 objects: at most 10 seats', req('list'), counts(5000), 0, 10],
    ['a list of 5000 objects in a level of max 8', req('list'), counts(5000), 8, 8],
    ['a paged continuation (from storage: 2 x limit)', req('list', 'limit=200&continue=abc'), counts(5000), 0, 4],
    ['a list with a selector from storage (count + limit)', req('list', 'limit=100&resourceVersion=5&labelSelector=a%3Db'), counts(1000), 0, 10],
    ['a list by name (metadata.name field selector)', req('list', '', 'p'), counts(5000), 0, 1],
    ['a list of a resource with no count', req('list'), counts(undefined), 0, 1],
    ['a list while the count is not known yet: the maximum', req('list'), counts(null), 0, 10],
    ['a watch without sendInitialEvents', req('watch'), counts(5000), 0, 1],
    ['a watch with sendInitialEvents=true (its initial list)', req('watch', 'sendInitialEvents=true'), counts(450), 0, 5],
  ];
  for (const [what, r, c, max, seats] of TABLE) {
    it(`${what}: ${seats}`, () => {
      expect(estimateWork(r, c, max).initialSeats).to.equal(seats);
    });
  }

  it('a write to a resource with many watchers holds final seats for their events', () => {
    expect(estimateWork(req('create'), counts(0, 25), 0)).to.deep.equal({ initialSeats: 1, finalSeats: 3, additionalLatencyMs: 5 });
    // Capped at the level's maximum; the work (seats x time) is kept.
    expect(estimateWork(req('update', '', 'p'), counts(0, 200), 0)).to.deep.equal({ initialSeats: 1, finalSeats: 10, additionalLatencyMs: 10 });
    expect(estimateWork(req('create'), counts(0, 9), 0)).to.deep.equal({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
    // Events are exempt; deletecollection is not a mutating estimate.
    expect(estimateWork(req('create', '', undefined, 'events'), counts(0, 100), 0).finalSeats).to.equal(0);
    expect(estimateWork(req('deletecollection'), counts(0, 100), 0).finalSeats).to.equal(0);
  });

  it('a non-resource request takes one seat', () => {
    expect(estimateWork({ verb: 'get', isResourceRequest: false, resource: '', query: new URLSearchParams() }, counts(5000), 0).initialSeats).to.equal(1);
  });
});
