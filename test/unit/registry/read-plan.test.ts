import { expect } from 'chai';
import { planGet, planList, planWatch, ReadPlan } from '../../../lib/registry/read-plan';
import { ApiError } from '../../../lib/meta/api-errors';

function badRequest(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    expect(e).to.be.instanceOf(ApiError);
    expect((e as ApiError).code).to.equal(400);
    return e as ApiError;
  }
  throw new Error('expected a 400');
}

describe('planGet (the spec get table)', () => {
  it('unset is a consistent read, 0 any, N not older than N', () => {
    expect(planGet(undefined)).to.deep.equal({ kind: 'consistent' });
    expect(planGet('0')).to.deep.equal({ kind: 'any' });
    expect(planGet('42')).to.deep.equal({ kind: 'notOlderThan', revision: 42 });
  });
  it('a non-numeric resourceVersion is 400', () => {
    expect(badRequest(() => planGet('abc')).message).to.include('resourceVersion');
  });
});

describe('planList (the spec list table)', () => {
  const rows: [string, Parameters<typeof planList>[0], ReadPlan | 'invalid'][] = [
    ['no match, no limit, rv unset', {}, { kind: 'consistent' }],
    ['no match, no limit, rv 0', { resourceVersion: '0' }, { kind: 'any' }],
    ['no match, no limit, rv N', { resourceVersion: '7' }, { kind: 'notOlderThan', revision: 7 }],
    ['no match, limit, rv unset', { limit: 5 }, { kind: 'consistent' }],
    ['no match, limit, rv 0', { limit: 5, resourceVersion: '0' }, { kind: 'any' }],
    ['no match, limit, rv N', { limit: 5, resourceVersion: '7' }, { kind: 'exact', revision: 7 }],
    ['continue, rv unset', { limit: 5, continueRevision: 9 }, { kind: 'exact', revision: 9 }],
    ['continue, rv 0', { limit: 5, continueRevision: 9, resourceVersion: '0' }, { kind: 'exact', revision: 9 }],
    ['continue, rv N', { limit: 5, continueRevision: 9, resourceVersion: '7' }, 'invalid'],
    ['Exact, no limit, rv unset', { resourceVersionMatch: 'Exact' }, 'invalid'],
    ['Exact, no limit, rv 0', { resourceVersionMatch: 'Exact', resourceVersion: '0' }, 'invalid'],
    ['Exact, no limit, rv N', { resourceVersionMatch: 'Exact', resourceVersion: '7' }, { kind: 'exact', revision: 7 }],
    ['Exact, limit, rv unset', { resourceVersionMatch: 'Exact', limit: 5 }, 'invalid'],
    ['Exact, limit, rv 0', { resourceVersionMatch: 'Exact', limit: 5, resourceVersion: '0' }, 'invalid'],
    ['Exact, limit, rv N', { resourceVersionMatch: 'Exact', limit: 5, resourceVersion: '7' }, { kind: 'exact', revision: 7 }],
    ['NotOlderThan, no limit, rv unset', { resourceVersionMatch: 'NotOlderThan' }, 'invalid'],
    ['NotOlderThan, no limit, rv 0', { resourceVersionMatch: 'NotOlderThan', resourceVersion: '0' }, { kind: 'any' }],
    ['NotOlderThan, no limit, rv N', { resourceVersionMatch: 'NotOlderThan', resourceVersion: '7' }, { kind: 'notOlderThan', revision: 7 }],
    ['NotOlderThan, limit, rv unset', { resourceVersionMatch: 'NotOlderThan', limit: 5 }, 'invalid'],
    ['NotOlderThan, limit, rv 0', { resourceVersionMatch: 'NotOlderThan', limit: 5, resourceVersion: '0' }, { kind: 'any' }],
    ['NotOlderThan, limit, rv N', { resourceVersionMatch: 'NotOlderThan', limit: 5, resourceVersion: '7' }, { kind: 'notOlderThan', revision: 7 }],
    ['a match with continue', { resourceVersionMatch: 'Exact', resourceVersion: '7', continueRevision: 9 }, 'invalid'],
  ];
  for (const [name, input, want] of rows) {
    it(name, () => {
      if (want === 'invalid') badRequest(() => planList(input));
      else expect(planList(input)).to.deep.equal(want);
    });
  }
});

describe('planWatch (the spec watch table)', () => {
  it('unset and 0 start with the current state; N streams after N', () => {
    expect(planWatch({ allowWatchBookmarks: false })).to.deep.equal({ kind: 'initialState', plan: { kind: 'consistent' } });
    expect(planWatch({ resourceVersion: '0', allowWatchBookmarks: false })).to.deep.equal({ kind: 'initialState', plan: { kind: 'any' } });
    expect(planWatch({ resourceVersion: '12', allowWatchBookmarks: false })).to.deep.equal({ kind: 'after', revision: 12 });
  });
  it('sendInitialEvents=true needs NotOlderThan and bookmarks', () => {
    badRequest(() => planWatch({ sendInitialEvents: true, allowWatchBookmarks: true }));
    badRequest(() => planWatch({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: false }));
    expect(planWatch({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true }))
      .to.deep.equal({ kind: 'initialState', plan: { kind: 'consistent' } });
    expect(planWatch({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', resourceVersion: '5', allowWatchBookmarks: true }))
      .to.deep.equal({ kind: 'initialState', plan: { kind: 'notOlderThan', revision: 5 } });
  });
  it('resourceVersionMatch without sendInitialEvents is 400', () => {
    badRequest(() => planWatch({ resourceVersionMatch: 'NotOlderThan', resourceVersion: '5', allowWatchBookmarks: false }));
  });
});
