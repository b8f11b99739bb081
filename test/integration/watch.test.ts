/**
 * Watches over HTTPS against a real etcd, with and without the watch cache: the `watch`
 * parameter, the stream's shape, where a watch starts per resourceVersion, event types,
 * bookmarks, timeouts, selectors, sendInitialEvents, a randomized list-then-watch check that no
 * event is lost or repeated, and one etcd watch per resource behind many client watches.
 */
import { expect } from 'chai';
import { eventually, HttpResponse, startTestServer, TestServer, WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';
import { adminTarget, openWatch, WatchClient, WatchEventJson, WatchTarget } from '../helpers/watch-client';

const cmPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
const q = (params: Record<string, string | number | undefined>) => `?${new URLSearchParams(
  Object.entries(params).filter(([, v]) => v !== undefined).map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const summary = (evs: WatchEventJson[]) => evs.map((e) => `${e.type}:${e.object?.metadata?.name ?? ''}`);

function expectStatus(res: HttpResponse, code: number, what = ''): void {
  expect(res.status, `${what} ${res.text}`).to.equal(code);
}

for (const flags of [[], ['--watch-cache=false']]) {
  const cached = !flags.length;
  describe(`watch (${cached ? 'watch cache on' : flags.join(' ')})`, () => {
    let t: TestServer;
    let target: WatchTarget;
    const opened: WatchClient[] = [];
    const watch = (path: string) => {
      const w = openWatch(target, path);
      opened.push(w);
      return w;
    };

    async function namespace(name: string): Promise<void> {
      expectStatus(await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }), 201, name);
    }
    async function create(ns: string, name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}): Promise<any> {
      const res = await t.post(cmPath(ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data });
      expectStatus(res, 201, `create ${ns}/${name}`);
      return res.body;
    }
    async function update(ns: string, name: string, change: (o: any) => void): Promise<any> {
      const cur = await t.get(cmPath(ns, name));
      expectStatus(cur, 200, `get ${ns}/${name}`);
      change(cur.body);
      const res = await t.put(cmPath(ns, name), cur.body);
      expectStatus(res, 200, `update ${ns}/${name}`);
      return res.body;
    }
    async function remove(ns: string, name: string): Promise<void> {
      expectStatus(await t.del(cmPath(ns, name)), 200, `delete ${ns}/${name}`);
    }
    async function listRv(path: string): Promise<string> {
      const res = await t.get(path);
      expectStatus(res, 200, path);
      return res.body.metadata.resourceVersion;
    }

    before(async () => {
      t = await startTestServer([...flags, WITHOUT_NAMESPACE_DEFAULTS]);
      target = adminTarget(t.server);
    });
    afterEach(() => { opened.splice(0).forEach((w) => w.close()); });
    after(async () => { await t?.stop(); });

    it('watch=1|true|True|t stream events, watch=false lists, watch=maybe is 400', async () => {
      await namespace('w-param');
      await create('w-param', 'a');
      for (const v of ['1', 'true', 'True', 't']) {
        const w = watch(cmPath('w-param') + q({ watch: v }));
        const ev = await w.next(5_000);
        expect(w.statusCode, v).to.equal(200);
        expect(summary([ev]), v).to.deep.equal(['ADDED:a']);
        w.close();
      }
      const listed = await t.get(cmPath('w-param') + q({ watch: 'false' }));
      expectStatus(listed, 200);
      expect(listed.body.kind).to.equal('ConfigMapList');
      const bad = await t.get(cmPath('w-param') + q({ watch: 'maybe' }));
      expectStatus(bad, 400);
      expect(bad.body.reason).to.equal('BadRequest');
    });

    it('answers 200, application/json, chunked, with headers at once even when there is nothing to send', async () => {
      await namespace('w-empty');
      const rv = await listRv(cmPath('w-empty'));
      for (const params of [{ watch: 'true', resourceVersion: rv }, { watch: 'true' }]) {
        const w = watch(cmPath('w-empty') + q(params));
        // The headers come with nothing to send: no event exists, so they cannot have waited for one
        // (the 5 s is a hang guard; a server that held them back until an event would never answer).
        await w.response(5_000);
        expect(w.statusCode).to.equal(200);
        expect(String(w.headers['content-type'])).to.match(/^application\/json\b/);
        expect(w.headers['transfer-encoding']).to.equal('chunked');
        await sleep(200);
        expect(w.events).to.deep.equal([]);
        expect(w.ended).to.equal(false);
      }
    });

    for (const rv of [undefined, '0']) {
      it(`resourceVersion ${rv === undefined ? 'unset' : rv}: ADDED for every existing object, then live events`, async () => {
        const ns = `w-initial-${rv ?? 'unset'}`;
        await namespace(ns);
        for (const n of ['a', 'b', 'c']) await create(ns, n);
        const w = watch(cmPath(ns) + q(rv === undefined ? { watch: 'true' } : { watch: 'true', resourceVersion: rv }));
        const initial = [await w.next(), await w.next(), await w.next()];
        expect(summary(initial).sort()).to.deep.equal(['ADDED:a', 'ADDED:b', 'ADDED:c']);
        await create(ns, 'd');
        await update(ns, 'a', (o) => { o.data = { v: '2' }; });
        await remove(ns, 'b');
        const live = [await w.next(), await w.next(), await w.next()];
        expect(summary(live)).to.deep.equal(['ADDED:d', 'MODIFIED:a', 'DELETED:b']);
        expect(w.junk).to.deep.equal([]);
      });
    }

    it('resourceVersion N: only changes after N, no synthetic events', async () => {
      await namespace('w-from');
      await create('w-from', 'old');
      const atN = await create('w-from', 'at-n');
      await create('w-from', 'after-n');
      const w = watch(cmPath('w-from') + q({ watch: 'true', resourceVersion: atN.metadata.resourceVersion }));
      expect(summary([await w.next()])).to.deep.equal(['ADDED:after-n']);
      await update('w-from', 'old', (o) => { o.data = { v: '2' }; });
      expect(summary([await w.next()])).to.deep.equal(['MODIFIED:old']);
      expect(w.events).to.have.length(2);
    });

    it('ADDED, MODIFIED and DELETED carry the object; DELETED carries its last state', async () => {
      await namespace('w-types');
      const rv = await listRv(cmPath('w-types'));
      const w = watch(cmPath('w-types') + q({ watch: 'true', resourceVersion: rv }));
      await w.response();
      const created = await create('w-types', 'x', { v: '1' }, { app: 'demo' });
      const updated = await update('w-types', 'x', (o) => { o.data = { v: '2' }; });
      await remove('w-types', 'x');
      const [added, modified, deleted] = [await w.next(), await w.next(), await w.next()];
      expect(added.type).to.equal('ADDED');
      expect(added.object).to.deep.equal(created);
      expect(modified.type).to.equal('MODIFIED');
      expect(modified.object).to.deep.equal(updated);
      expect(deleted.type).to.equal('DELETED');
      expect(deleted.object.kind).to.equal('ConfigMap');
      expect(deleted.object.apiVersion).to.equal('v1');
      expect(deleted.object.metadata.name).to.equal('x');
      expect(deleted.object.metadata.uid).to.equal(created.metadata.uid);
      expect(deleted.object.data).to.deep.equal({ v: '2' });
      expect(deleted.object.metadata.labels).to.deep.equal({ app: 'demo' });
      // The deletion's version, so that a watch resumed from it does not see the delete again.
      expect(Number(deleted.object.metadata.resourceVersion)).to.be.above(Number(updated.metadata.resourceVersion));
    });

    it('BOOKMARK events only with allowWatchBookmarks, holding only kind, apiVersion and metadata.resourceVersion', async () => {
      await namespace('w-bookmark');
      const rv = await listRv(cmPath('w-bookmark'));
      const withBm = watch(cmPath('w-bookmark') + q({ watch: 'true', resourceVersion: rv, allowWatchBookmarks: 'true', timeoutSeconds: 2 }));
      const without = watch(cmPath('w-bookmark') + q({ watch: 'true', resourceVersion: rv, timeoutSeconds: 2 }));
      await Promise.all([withBm.response(), without.response()]);
      const made = await create('w-bookmark', 'b1');
      await Promise.all([withBm.waitEnded(6_000), without.waitEnded(6_000)]);
      expect(summary(without.events)).to.deep.equal(['ADDED:b1']);
      const bookmarks = withBm.events.filter((e) => e.type === 'BOOKMARK');
      expect(bookmarks, summary(withBm.events).join()).to.not.have.length(0);
      for (const b of bookmarks) {
        expect(Object.keys(b.object).sort()).to.deep.equal(['apiVersion', 'kind', 'metadata']);
        expect(b.object.kind).to.equal('ConfigMap');
        expect(b.object.apiVersion).to.equal('v1');
        expect(Object.keys(b.object.metadata)).to.deep.equal(['resourceVersion']);
        expect(Number(b.object.metadata.resourceVersion)).to.be.at.least(Number(rv));
      }
      // A bookmark after the change marks it as sent.
      const last = bookmarks[bookmarks.length - 1];
      expect(Number(last.object.metadata.resourceVersion)).to.be.at.least(Number(made.metadata.resourceVersion));
    });

    it('timeoutSeconds=1 ends the stream after about a second', async () => {
      const w = watch(cmPath('default') + q({ watch: 'true', timeoutSeconds: 1 }));
      await w.response();
      await w.waitEnded(4_000);
      const ms = Date.now() - w.openedAt;
      expect(ms).to.be.within(900, 4_000);
    });

    it('a label selector watch: relabelled in is ADDED, relabelled out is DELETED', async () => {
      await namespace('w-label');
      await create('w-label', 'web-0', {}, { app: 'web' });
      const rv = await listRv(cmPath('w-label'));
      const w = watch(cmPath('w-label') + q({ watch: 'true', resourceVersion: rv, labelSelector: 'app=web' }));
      await w.response();
      await create('w-label', 'x', {}, { app: 'db' });
      await update('w-label', 'x', (o) => { o.data = { v: 'still db' }; });
      await update('w-label', 'x', (o) => { o.metadata.labels = { app: 'web' }; });
      await update('w-label', 'x', (o) => { o.data = { v: 'web now' }; });
      const out = await update('w-label', 'x', (o) => { o.metadata.labels = { app: 'db' }; });
      await remove('w-label', 'x');
      await update('w-label', 'web-0', (o) => { o.data = { v: 'marker' }; });
      await w.waitFor((e) => e.object?.metadata?.name === 'web-0');
      expect(summary(w.events)).to.deep.equal(['ADDED:x', 'MODIFIED:x', 'DELETED:x', 'MODIFIED:web-0']);
      expect(w.events[0].object.metadata.labels).to.deep.equal({ app: 'web' });
      expect(w.events[2].object.metadata.resourceVersion).to.equal(out.metadata.resourceVersion);
      // The same selector on a watch with initial state sends only the matching objects.
      const initial = watch(cmPath('w-label') + q({ watch: 'true', labelSelector: 'app=web' }));
      await initial.waitFor((e) => e.object?.metadata?.name === 'web-0');
      await sleep(200);
      expect(summary(initial.events)).to.deep.equal(['ADDED:web-0']);
    });

    it('a field selector on metadata.name follows that one object', async () => {
      await namespace('w-field');
      const w = watch(cmPath('w-field') + q({ watch: 'true', fieldSelector: 'metadata.name=fa' }));
      await w.response();
      // Every change of "fb" comes before the matching change of "fa", so a leaked event would show.
      await create('w-field', 'fb');
      await create('w-field', 'fa');
      await update('w-field', 'fb', (o) => { o.data = { v: '2' }; });
      await update('w-field', 'fa', (o) => { o.data = { v: '2' }; });
      await remove('w-field', 'fb');
      await remove('w-field', 'fa');
      await w.waitFor((e) => e.type === 'DELETED');
      expect(summary(w.events)).to.deep.equal(['ADDED:fa', 'MODIFIED:fa', 'DELETED:fa']);
    });

    it('sendInitialEvents: ADDED for the current state, a BOOKMARK marking its end, then live events', async () => {
      await namespace('w-sie');
      let last: any;
      for (const n of ['a', 'b', 'c']) last = await create('w-sie', n);
      const w = watch(cmPath('w-sie') + q({ watch: 'true', sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true' }));
      const initial = [await w.next(), await w.next(), await w.next()];
      expect(summary(initial).sort()).to.deep.equal(['ADDED:a', 'ADDED:b', 'ADDED:c']);
      const end = await w.next();
      expect(end.type).to.equal('BOOKMARK');
      expect(end.object.metadata.annotations).to.deep.equal({ [`${t.server.naming.domain}/initial-events-end`]: 'true' });
      expect(t.server.naming.domain).to.equal('orch.io');
      expect(Number(end.object.metadata.resourceVersion)).to.be.at.least(Number(last.metadata.resourceVersion));
      await create('w-sie', 'd');
      expect(summary([await w.next()])).to.deep.equal(['ADDED:d']);
    });

    it('sendInitialEvents without resourceVersionMatch=NotOlderThan is 400', async () => {
      for (const params of [
        { watch: 'true', sendInitialEvents: 'true', allowWatchBookmarks: 'true' },
        { watch: 'true', sendInitialEvents: 'true', allowWatchBookmarks: 'true', resourceVersionMatch: 'Exact', resourceVersion: '1' },
      ]) {
        const res = await t.get(cmPath('default') + q(params));
        expectStatus(res, 400, JSON.stringify(params));
        expect(res.body.reason).to.equal('BadRequest');
      }
    });

    it('list then watch from the list\'s resourceVersion: randomized writes, no event lost or repeated', async function () {
      this.timeout(40_000);
      const namespaces = ['w-rand-a', 'w-rand-b'];
      for (const ns of namespaces) await namespace(ns);
      const seed = Date.now() % 100_000;
      let state = seed;
      const rand = () => {
        // A small LCG: a failure can be replayed from the printed seed.
        state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
        return state / 2 ** 31;
      };
      const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
      const exists = new Map<string, boolean>();
      const problems: string[] = [];

      interface Follower { path: string; nsFilter?: string; state: Map<string, string>; w?: WatchClient; applied: number; ready: Promise<void> }
      const followers: Follower[] = [];
      const follow = (chunked: boolean, nsFilter?: string) => {
        const path = nsFilter ? cmPath(nsFilter) : '/api/v1/configmaps';
        const f: Follower = { path, nsFilter, state: new Map(), applied: 0, ready: Promise.resolve() };
        f.ready = (async () => {
          let token = '';
          let rv = '';
          do {
            const res = await t.get(path + q(chunked ? (token ? { limit: 4, continue: token } : { limit: 4 }) : {}));
            expectStatus(res, 200, path);
            rv ||= res.body.metadata.resourceVersion;
            for (const o of res.body.items) f.state.set(`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion);
            token = res.body.metadata.continue ?? '';
          } while (token);
          f.w = watch(path + q({ watch: 'true', resourceVersion: rv }));
        })();
        followers.push(f);
      };
      const applyEvents = (f: Follower) => {
        if (!f.w) return;
        for (; f.applied < f.w.events.length; f.applied++) {
          const ev = f.w.events[f.applied];
          const key = `${ev.object?.metadata?.namespace}/${ev.object?.metadata?.name}`;
          const rv = ev.object?.metadata?.resourceVersion;
          const had = f.state.get(key);
          if (ev.type === 'ADDED') {
            if (had !== undefined) problems.push(`${f.path}: ADDED ${key}@${rv} already held @${had}`);
            f.state.set(key, rv);
          } else if (ev.type === 'MODIFIED') {
            if (had === undefined || Number(had) >= Number(rv)) problems.push(`${f.path}: MODIFIED ${key}@${rv} held @${had}`);
            f.state.set(key, rv);
          } else if (ev.type === 'DELETED') {
            if (had === undefined) problems.push(`${f.path}: DELETED ${key}@${rv} not held`);
            f.state.delete(key);
          } else {
            problems.push(`${f.path}: unexpected ${ev.type} ${JSON.stringify(ev.object)}`);
          }
        }
      };

      for (let i = 0; i < 200; i++) {
        if (i % 15 === 0 || rand() < 0.04) follow(rand() < 0.5, rand() < 0.5 ? pick(namespaces) : undefined);
        const ns = pick(namespaces);
        const name = `cm-${Math.floor(rand() * 12)}`;
        const key = `${ns}/${name}`;
        if (!exists.get(key)) {
          await create(ns, name, { i: String(i) });
          exists.set(key, true);
        } else if (rand() < 0.6) {
          await update(ns, name, (o) => { o.data = { i: String(i) }; });
        } else {
          await remove(ns, name);
          exists.set(key, false);
        }
        if (rand() < 0.1) await sleep(Math.floor(rand() * 10));
      }
      await Promise.all(followers.map((f) => f.ready));

      for (const f of followers) {
        const fresh = await t.get(f.path);
        expectStatus(fresh, 200);
        const want = new Map<string, string>(fresh.body.items.map((o: any) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion]));
        const same = () => {
          applyEvents(f);
          return want.size === f.state.size && [...want].every(([k, v]) => f.state.get(k) === v);
        };
        await eventually(async () => same(), 10_000, 20).catch(() => undefined);
        expect(f.w?.ended, `${f.path}: stream ended early`).to.equal(false);
        expect(Object.fromEntries([...f.state].sort()), `${f.path} (seed ${seed})`).to.deep.equal(Object.fromEntries([...want].sort()));
      }
      expect(problems, `seed ${seed}`).to.deep.equal([]);
      expect(followers.length).to.be.at.least(10);
    });

    it(cached ? 'many client watches share one etcd watch per resource'
      : 'without the cache each client watch is its own etcd watch (the metric this relies on counts them)', async () => {
      const watchers = async () => {
        const text = await (await fetch(`${t.etcdEndpoint}/metrics`)).text();
        const m = /^etcd_debugging_mvcc_watcher_total (\d+)/m.exec(text);
        expect(m, 'etcd_debugging_mvcc_watcher_total').to.not.equal(null);
        return Number(m![1]);
      };
      await namespace('w-many');
      const before = await watchers();
      const ws = Array.from({ length: 50 }, (_, i) => watch(cmPath(i % 2 ? 'w-many' : 'default') + q({ watch: 'true' })));
      await Promise.all(ws.map((w) => w.response()));
      await create('w-many', 'ping');
      await Promise.all(ws.filter((_, i) => i % 2).map((w) => w.waitFor((e) => e.object?.metadata?.name === 'ping')));
      if (cached) {
        await sleep(500);
        expect((await watchers()) - before).to.be.below(5);
      } else {
        // etcd registers watchers asynchronously: wait for the count to settle. Watches of earlier
        // tests may still be closing under load, so the control asks for most of the 50, not all.
        let grown = 0;
        await eventually(async () => (grown = (await watchers()) - before) >= 50, 10_000, 100).catch(() => undefined);
        expect(grown).to.be.at.least(40);
      }
    });
  });
}
