/**
 * The spec's resourceVersion tables over HTTPS against a real etcd, with and without the watch
 * cache: every list row (resourceVersionMatch x pagination x resourceVersion), the get table,
 * versions ahead of the store (504 Too large), versions compacted away (410), continue-token
 * lifetime, remainingItemCount, and chunks that selectors filter.
 */
import { expect } from 'chai';
import { Etcd3 } from 'etcd3';
import { startTestServer, TestServer, HttpResponse, WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';
import { adminTarget, openWatch } from '../helpers/watch-client';

const NS = 'rv';
const SEL_NS = 'rv-sel';
const cmPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
const q = (params: Record<string, string | number | undefined>) => `?${new URLSearchParams(
  Object.entries(params).filter(([, v]) => v !== undefined).map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
const names = (res: HttpResponse): string[] => res.body.items.map((i: any) => i.metadata.name);
const valueOf = (res: HttpResponse, name: string): string | undefined =>
  res.body.items.find((i: any) => i.metadata.name === name)?.data?.v;
const NAMES = Array.from({ length: 10 }, (_, i) => `c${i}`);

function expectStatus(res: HttpResponse, code: number, what = ''): void {
  expect(res.status, `${what} ${res.text}`).to.equal(code);
  if (code >= 400) {
    expect(res.body?.kind, res.text).to.equal('Status');
    expect(res.body?.code, res.text).to.equal(code);
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - t0 };
}

function expectTooLarge(res: HttpResponse, ms: number, what: string): void {
  expectStatus(res, 504, what);
  expect(res.body.reason, what).to.equal('Timeout');
  expect(res.body.message, what).to.contain('Too large resource version');
  expect(Number(res.headers['retry-after']), `${what}: Retry-After`).to.be.at.least(1);
  // Held for a moment (the store might catch up) before answering.
  expect(ms, `${what}: answered after ${ms} ms`).to.be.within(1000, 15_000);
}

for (const flags of [[], ['--watch-cache=false']]) {
  describe(`resourceVersion semantics (${flags.length ? flags.join(' ') : 'watch cache on'})`, () => {
    let t: TestServer;
    /** Revision at which c0..c9 all exist with v=1. */
    let r1: number;
    /** Revision of the update of c0 to v=2. */
    let r2: number;

    const put = async (ns: string, name: string, v: string, labels: Record<string, string> = {}) => {
      const cur = await t.get(cmPath(ns, name));
      expectStatus(cur, 200, `get ${name}`);
      const res = await t.put(cmPath(ns, name), { ...cur.body, data: { v }, metadata: { ...cur.body.metadata, labels } });
      expectStatus(res, 200, `update ${name}`);
      return Number(res.body.metadata.resourceVersion);
    };
    const list = (params: Record<string, string | number | undefined> = {}, ns = NS) => t.get(cmPath(ns) + q(params));

    before(async () => {
      t = await startTestServer([...flags, WITHOUT_NAMESPACE_DEFAULTS]);
      for (const ns of [NS, SEL_NS]) {
        expectStatus(await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }), 201, ns);
      }
      for (const name of NAMES) {
        const res = await t.post(cmPath(NS), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: '1' } });
        expectStatus(res, 201, name);
        r1 = Number(res.body.metadata.resourceVersion);
      }
      r2 = await put(NS, 'c0', '2');
      // 50 objects, 1 in 5 selected by match=yes (s04, s09, ...): 10 matches.
      for (let i = 0; i < 50; i++) {
        const labels = i % 5 === 4 ? { match: 'yes' } : { match: 'no' };
        const name = `s${String(i).padStart(2, '0')}`;
        expectStatus(await t.post(cmPath(SEL_NS), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels } }), 201, name);
      }
    });
    after(async () => { await t?.stop(); });

    describe('list, resourceVersionMatch unset', () => {
      it('no limit, rv unset: the most recent state (a write is visible to the next list)', async () => {
        const w = await put(NS, 'c9', 'fresh');
        const res = await list();
        expectStatus(res, 200);
        expect(res.body.kind).to.equal('ConfigMapList');
        expect(Number(res.body.metadata.resourceVersion)).to.be.at.least(w);
        expect(valueOf(res, 'c9')).to.equal('fresh');
        expect(names(res)).to.deep.equal(NAMES);
      });

      it('no limit, rv=0: any state is served (200 with a resourceVersion)', async () => {
        const res = await list({ resourceVersion: 0 });
        expectStatus(res, 200);
        expect(res.body.metadata.resourceVersion).to.match(/^\d+$/);
        expect(names(res)).to.deep.equal(NAMES);
      });

      it('no limit, rv=N: not older than N (after the update of c0 at N, c0 is updated)', async () => {
        const res = await list({ resourceVersion: r2 });
        expectStatus(res, 200);
        expect(Number(res.body.metadata.resourceVersion)).to.be.at.least(r2);
        expect(valueOf(res, 'c0')).to.equal('2');
      });

      it('limit, rv unset: the most recent state, in chunks', async () => {
        const w = await put(NS, 'c1', 'fresh');
        const res = await list({ limit: 3 });
        expectStatus(res, 200);
        expect(names(res)).to.deep.equal(['c0', 'c1', 'c2']);
        expect(valueOf(res, 'c1')).to.equal('fresh');
        expect(Number(res.body.metadata.resourceVersion)).to.be.at.least(w);
        expect(res.body.metadata.continue).to.be.a('string').and.not.equal('');
      });

      it('limit, rv=0: any state, in chunks', async () => {
        const res = await list({ limit: 3, resourceVersion: 0 });
        expectStatus(res, 200);
        expect(names(res)).to.deep.equal(['c0', 'c1', 'c2']);
        expect(res.body.metadata.continue).to.be.a('string').and.not.equal('');
      });

      it('limit, rv=N: exactly N (resourceVersion N, c0 as it was before its later update)', async () => {
        const res = await list({ limit: 3, resourceVersion: r1 });
        expectStatus(res, 200);
        expect(res.body.metadata.resourceVersion).to.equal(String(r1));
        expect(names(res)).to.deep.equal(['c0', 'c1', 'c2']);
        expect(valueOf(res, 'c0')).to.equal('1');
        const next = await list({ limit: 3, continue: res.body.metadata.continue });
        expectStatus(next, 200);
        expect(next.body.metadata.resourceVersion).to.equal(String(r1));
        expect(names(next)).to.deep.equal(['c3', 'c4', 'c5']);
      });

      it('limit and continue, rv unset: exact at the token\'s version (later writes are not shown)', async () => {
        const first = await list({ limit: 3 });
        expectStatus(first, 200);
        const rv = first.body.metadata.resourceVersion;
        await put(NS, 'c4', 'after-first-chunk');
        const next = await list({ limit: 3, continue: first.body.metadata.continue });
        expectStatus(next, 200);
        expect(next.body.metadata.resourceVersion).to.equal(rv);
        expect(names(next)).to.deep.equal(['c3', 'c4', 'c5']);
        expect(valueOf(next, 'c4')).to.equal('1');
        // rv=0 with a token is tolerated and also reads at the token's version.
        const zero = await list({ limit: 3, continue: first.body.metadata.continue, resourceVersion: 0 });
        expectStatus(zero, 200);
        expect(zero.body.metadata.resourceVersion).to.equal(rv);
        expect(valueOf(zero, 'c4')).to.equal('1');
      });

      it('limit and continue, rv=N: 400', async () => {
        const first = await list({ limit: 3 });
        const res = await list({ limit: 3, continue: first.body.metadata.continue, resourceVersion: first.body.metadata.resourceVersion });
        expectStatus(res, 400);
        expect(res.body.reason).to.equal('BadRequest');
      });
    });

    describe('list, resourceVersionMatch=Exact', () => {
      for (const limit of [undefined, 3]) {
        const label = limit ? 'limit' : 'no limit';
        it(`${label}, rv unset or 0: 400`, async () => {
          const base = limit ? { limit } : {};
          expectStatus(await list({ ...base, resourceVersionMatch: 'Exact' }), 400, 'unset');
          expectStatus(await list({ ...base, resourceVersionMatch: 'Exact', resourceVersion: 0 }), 400, '0');
        });

        it(`${label}, rv=N: the state at exactly N`, async () => {
          const res = await list({ ...(limit ? { limit } : {}), resourceVersionMatch: 'Exact', resourceVersion: r1 });
          expectStatus(res, 200);
          expect(res.body.metadata.resourceVersion).to.equal(String(r1));
          expect(names(res)).to.deep.equal(limit ? NAMES.slice(0, limit) : NAMES);
          expect(valueOf(res, 'c0')).to.equal('1');
          if (!limit) expect(valueOf(res, 'c9')).to.equal('1');
        });
      }

      it('with a continue token: 400', async () => {
        const first = await list({ limit: 3 });
        expectStatus(await list({ limit: 3, continue: first.body.metadata.continue, resourceVersionMatch: 'Exact', resourceVersion: first.body.metadata.resourceVersion }), 400);
      });
    });

    describe('list, resourceVersionMatch=NotOlderThan', () => {
      for (const limit of [undefined, 3]) {
        const label = limit ? 'limit' : 'no limit';
        const base = () => (limit ? { limit } : {});
        it(`${label}, rv unset: 400`, async () => {
          expectStatus(await list({ ...base(), resourceVersionMatch: 'NotOlderThan' }), 400);
        });

        it(`${label}, rv=0: any state`, async () => {
          const res = await list({ ...base(), resourceVersionMatch: 'NotOlderThan', resourceVersion: 0 });
          expectStatus(res, 200);
          expect(names(res)).to.deep.equal(limit ? NAMES.slice(0, limit) : NAMES);
        });

        it(`${label}, rv=N: not older than N`, async () => {
          const res = await list({ ...base(), resourceVersionMatch: 'NotOlderThan', resourceVersion: r2 });
          expectStatus(res, 200);
          expect(Number(res.body.metadata.resourceVersion)).to.be.at.least(r2);
          expect(valueOf(res, 'c0')).to.equal('2');
        });
      }

      it('with a continue token: 400', async () => {
        const first = await list({ limit: 3 });
        expectStatus(await list({ limit: 3, continue: first.body.metadata.continue, resourceVersionMatch: 'NotOlderThan', resourceVersion: 0 }), 400);
      });
    });

    it('an unknown resourceVersionMatch or a non-numeric resourceVersion is 400', async () => {
      expectStatus(await list({ resourceVersionMatch: 'Newest', resourceVersion: 1 }), 400, 'match');
      expectStatus(await list({ resourceVersion: 'abc' }), 400, 'list rv');
      expectStatus(await t.get(cmPath(NS, 'c0') + q({ resourceVersion: 'abc' })), 400, 'get rv');
    });

    describe('get', () => {
      it('rv unset: the most recent version (a write is visible to the next get)', async () => {
        const w = await put(NS, 'c2', 'fresh');
        const res = await t.get(cmPath(NS, 'c2'));
        expectStatus(res, 200);
        expect(res.body.data.v).to.equal('fresh');
        expect(res.body.metadata.resourceVersion).to.equal(String(w));
      });

      it('rv=0: any version (200)', async () => {
        const res = await t.get(cmPath(NS, 'c0') + q({ resourceVersion: 0 }));
        expectStatus(res, 200);
        expect(res.body.metadata.name).to.equal('c0');
      });

      it('rv=N: not older than N', async () => {
        const res = await t.get(cmPath(NS, 'c0') + q({ resourceVersion: r2 }));
        expectStatus(res, 200);
        expect(res.body.data.v).to.equal('2');
        expect(res.body.metadata.resourceVersion).to.equal(String(r2));
      });
    });

    it('a version far ahead of the store: get, list and watch are held, then 504 Too large with Retry-After', async () => {
      const current = Number((await list()).body.metadata.resourceVersion);
      const big = current + 1000;
      const watchRes = async () => {
        const w = openWatch(adminTarget(t.server), cmPath(NS) + q({ watch: 'true', resourceVersion: big }));
        try {
          await w.response(15_000);
          await w.waitEnded(5_000);
          return { status: w.statusCode, headers: w.headers, text: JSON.stringify(w.errorBody), body: w.errorBody } as HttpResponse;
        } finally {
          w.close();
        }
      };
      const [get, lst, exact, watch] = await Promise.all([
        timed(() => t.get(cmPath(NS, 'c0') + q({ resourceVersion: big }))),
        timed(() => list({ resourceVersion: big })),
        timed(() => list({ resourceVersion: big, resourceVersionMatch: 'Exact', limit: 2 })),
        timed(watchRes),
      ]);
      expectTooLarge(get.value, get.ms, 'get');
      expectTooLarge(lst.value, lst.ms, 'list');
      expectTooLarge(exact.value, exact.ms, 'list Exact');
      expectTooLarge(watch.value, watch.ms, 'watch');
    });

    describe('chunks', () => {
      it('remainingItemCount counts what follows each chunk and is omitted on the last one', async () => {
        const seen: string[] = [];
        const remaining: Array<number | undefined> = [];
        let token = '';
        let rv = '';
        do {
          const res = await list(token ? { limit: 3, continue: token } : { limit: 3 });
          expectStatus(res, 200);
          if (rv) expect(res.body.metadata.resourceVersion).to.equal(rv);
          rv = res.body.metadata.resourceVersion;
          seen.push(...names(res));
          remaining.push(res.body.metadata.remainingItemCount);
          token = res.body.metadata.continue ?? '';
        } while (token);
        expect(seen).to.deep.equal(NAMES);
        expect(remaining).to.deep.equal([7, 4, 1, undefined]);
      });

      it('remainingItemCount is omitted without limit, when one chunk holds everything, and with a selector', async () => {
        expect((await list()).body.metadata).to.not.have.property('remainingItemCount');
        const all = await list({ limit: 10 });
        expect(all.body.metadata).to.not.have.property('remainingItemCount');
        expect(all.body.metadata.continue ?? '').to.equal('');
        const sel = await list({ limit: 3, labelSelector: 'match=yes' }, SEL_NS);
        expectStatus(sel, 200);
        expect(sel.body.metadata.continue).to.be.a('string').and.not.equal('');
        expect(sel.body.metadata).to.not.have.property('remainingItemCount');
      });

      it('a list across all namespaces continues from one namespace into the next', async () => {
        const keys = (res: HttpResponse) => res.body.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`);
        const seen: string[] = [];
        let token = '';
        let rv = '';
        do {
          const res = await t.get('/api/v1/configmaps' + q(token ? { limit: 4, continue: token } : { limit: 4 }));
          expectStatus(res, 200);
          rv ||= res.body.metadata.resourceVersion;
          seen.push(...keys(res));
          token = res.body.metadata.continue ?? '';
        } while (token);
        const whole = await t.get('/api/v1/configmaps' + q({ resourceVersion: rv, resourceVersionMatch: 'Exact' }));
        expectStatus(whole, 200);
        expect(seen).to.deep.equal(keys(whole));
        expect(new Set(seen.map((k) => k.split('/')[0]))).to.include.keys(NS, SEL_NS);
      });

      it('a selector that filters most items still fills every chunk, and all chunks share one resourceVersion', async () => {
        const pages: string[][] = [];
        let token = '';
        let rv = '';
        do {
          const res = await list(token ? { limit: 3, continue: token, labelSelector: 'match=yes' } : { limit: 3, labelSelector: 'match=yes' }, SEL_NS);
          expectStatus(res, 200);
          if (!rv) {
            rv = res.body.metadata.resourceVersion;
            // A new match after the first chunk belongs to a later state: not shown.
            expectStatus(await t.post(cmPath(SEL_NS), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 's99', labels: { match: 'yes' } } }), 201);
          }
          expect(res.body.metadata.resourceVersion).to.equal(rv);
          pages.push(names(res));
          token = res.body.metadata.continue ?? '';
          expect(pages.length).to.be.below(10);
        } while (token);
        const expected = Array.from({ length: 10 }, (_, i) => `s${String(i * 5 + 4).padStart(2, '0')}`);
        expect(pages.flat()).to.deep.equal(expected);
        expect(pages.slice(0, 3).map((p) => p.length)).to.deep.equal([3, 3, 3]);
        expect(pages.length).to.equal(4);
        expect(pages[3]).to.deep.equal(['s49']);
      });
    });

    describe('after etcd compaction', () => {
      let etcd: Etcd3;
      let oldToken: string;
      let oldTokenRv: string;
      let compactedTo: number;

      before(async () => {
        etcd = new Etcd3({ hosts: t.etcdEndpoint });
        const first = await list({ limit: 3 });
        expectStatus(first, 200);
        oldToken = first.body.metadata.continue;
        oldTokenRv = first.body.metadata.resourceVersion;
        await put(NS, 'c5', 'after-token');
        compactedTo = Number((await etcd.put('/test/compaction-marker').value('x').exec()).header.revision);
        await etcd.kv.compact({ revision: String(compactedTo), physical: true });
      });
      after(() => etcd?.close());

      it('a list Exact at a compacted version is 410', async () => {
        for (const limit of [undefined, 3]) {
          const res = await list({ ...(limit ? { limit } : {}), resourceVersionMatch: 'Exact', resourceVersion: r1 });
          expectStatus(res, 410, `limit ${limit}`);
          expect(res.body.reason).to.be.oneOf(['Expired', 'Gone']);
        }
        // limit + rv=N without a match is exact as well.
        const implicit = await list({ limit: 3, resourceVersion: r1 });
        expectStatus(implicit, 410);
      });

      it('an old continue token is 410 Expired with a fresh token that continues the list (inconsistently)', async () => {
        expect(Number(oldTokenRv)).to.be.below(compactedTo);
        const res = await list({ limit: 3, continue: oldToken });
        expectStatus(res, 410);
        expect(res.body.reason).to.equal('Expired');
        expect(res.body.message).to.contain('too old to display a consistent list result');
        const fresh = res.body.metadata?.continue;
        expect(fresh, res.text).to.be.a('string').and.not.equal('');
        const next = await list({ limit: 3, continue: fresh });
        expectStatus(next, 200);
        expect(names(next)).to.deep.equal(['c3', 'c4', 'c5']);
        expect(valueOf(next, 'c5')).to.equal('after-token');
        expect(Number(next.body.metadata.resourceVersion)).to.be.at.least(compactedTo);
      });

      const expectWatch410 = async (rv: number) => {
        const w = openWatch(adminTarget(t.server), cmPath(NS) + q({ watch: 'true', resourceVersion: rv }));
        try {
          await w.response();
          if (w.statusCode === 200) {
            const first = await w.next(5_000);
            expect(first.type, JSON.stringify(first)).to.equal('ERROR');
            expect(first.object.code).to.equal(410);
          } else {
            await w.waitEnded();
            expect(w.statusCode, JSON.stringify(w.errorBody)).to.equal(410);
            expect(w.errorBody.reason).to.be.oneOf(['Expired', 'Gone']);
          }
        } finally {
          w.close();
        }
      };

      if (flags.length) {
        it('a watch from a compacted version is 410 (before the stream, or as the first event)', async () => {
          await expectWatch410(r1);
        });
      } else {
        it('a watch from a compacted version the watch cache still holds streams the changes after it, as kube-apiserver\'s cacher', async () => {
          // An informer resuming after its watch's timeout must not re-list at every compaction.
          // (A start older than the cache's ring is 410: after a re-list, or a restart, as
          // python-client.test.ts shows with a real client; the ring's bound in cacher.test.ts.)
          expect(r1).to.be.below(compactedTo);
          const w = openWatch(adminTarget(t.server), cmPath(NS) + q({ watch: 'true', resourceVersion: r1 }));
          try {
            await w.response();
            expect(w.statusCode).to.equal(200);
            const first = await w.next(5_000);
            expect(first.type, JSON.stringify(first)).to.equal('MODIFIED');
            expect(first.object.metadata.name).to.equal('c0');
            expect(first.object.metadata.resourceVersion).to.equal(String(r2));
            expect(first.object.data).to.deep.equal({ v: '2' });
          } finally {
            w.close();
          }
        });
      }

      it('reads of the current state keep working', async () => {
        const w = await put(NS, 'c6', 'after-compaction');
        const res = await list();
        expectStatus(res, 200);
        expect(valueOf(res, 'c6')).to.equal('after-compaction');
        expect(Number(res.body.metadata.resourceVersion)).to.be.at.least(w);
        expectStatus(await list({ resourceVersionMatch: 'Exact', resourceVersion: res.body.metadata.resourceVersion }), 200);
      });
    });
  });
}

describe('continue-token lifetime (--continue-token-ttl=2s)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['--continue-token-ttl=2s', WITHOUT_NAMESPACE_DEFAULTS]);
    for (let i = 0; i < 3; i++) {
      expectStatus(await t.post(cmPath('default'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `ttl-${i}` } }), 201);
    }
  });
  after(async () => { await t?.stop(); });

  it('a token within its lifetime continues; one older than the lifetime is 410 Expired with a fresh token', async () => {
    const first = await t.get(cmPath('default') + q({ limit: 1 }));
    expectStatus(first, 200);
    const token = first.body.metadata.continue;
    const soon = await t.get(cmPath('default') + q({ limit: 1, continue: token }));
    expectStatus(soon, 200);
    expect(names(soon)).to.deep.equal(['ttl-1']);
    const laterToken = soon.body.metadata.continue;

    await new Promise((r) => setTimeout(r, 2_300));
    // etcd still holds the revision: only the lifetime has passed.
    for (const tok of [token, laterToken]) {
      const res = await t.get(cmPath('default') + q({ limit: 1, continue: tok }));
      expectStatus(res, 410);
      expect(res.body.reason).to.equal('Expired');
      expect(res.body.metadata?.continue).to.be.a('string').and.not.equal('');
    }
    const expired = await t.get(cmPath('default') + q({ limit: 1, continue: laterToken }));
    const resumed = await t.get(cmPath('default') + q({ limit: 1, continue: expired.body.metadata.continue }));
    expectStatus(resumed, 200);
    expect(names(resumed)).to.deep.equal(['ttl-2']);
  });
});
