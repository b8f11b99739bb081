/**
 * Pods by node over HTTPS against a real etcd, as kubelets and the scheduler read them: a watch
 * and a list with `fieldSelector=spec.nodeName=X`, which the watch cache serves from its index
 * of spec.nodeName (Kubernetes' indexed trigger). Each node's watch sees its own pods only; a pod
 * leaving a selection (bound off `spec.nodeName=`, Succeeded under `status.phase!=Succeeded`) is
 * DELETED with its previous content at the change's resourceVersion; bookmarks still carry the
 * progress of the other nodes' changes; lists at every resourceVersion answer as without the
 * index. The same suite runs without the watch cache, where nothing is indexed.
 */
import { expect } from 'chai';
import { startTestServer, TestServer, WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';
import { adminTarget, openWatch, WatchClient, WatchEventJson, WatchTarget } from '../helpers/watch-client';

type Body = Record<string, any>;
const NS = 'by-node';
const PODS = `/api/v1/namespaces/${NS}/pods`;
const ALL_PODS = '/api/v1/pods';
const q = (params: Record<string, string | number | undefined>) => `?${new URLSearchParams(
  Object.entries(params).filter(([, v]) => v !== undefined).map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
const summary = (evs: WatchEventJson[]) => evs.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type}:${e.object?.metadata?.name ?? ''}`);
const names = (list: Body) => (list.items as Body[]).map((p) => p.metadata.name);
const pod = (name: string, nodeName?: string, labels: Record<string, string> = {}): Body => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, labels },
  spec: { containers: [{ name: 'main', image: 'registry.example.com/app:1' }], ...(nodeName ? { nodeName } : {}) },
});

for (const flags of [[], ['--watch-cache=false']]) {
  const cached = !flags.length;
  describe(`pods by node (${cached ? 'watch cache on: indexed' : flags.join(' ')})`, () => {
    let t: TestServer;
    let target: WatchTarget;
    const opened: WatchClient[] = [];
    const watch = (path: string) => {
      const w = openWatch(target, path);
      opened.push(w);
      return w;
    };
    const ok = (res: { status: number; text: string; body: unknown }, status: number) => {
      expect(res.status, res.text).to.equal(status);
      return res.body as Body;
    };
    const create = async (name: string, nodeName?: string, labels?: Record<string, string>) => ok(await t.post(PODS, pod(name, nodeName, labels)), 201);
    const bind = async (name: string, node: string) => {
      ok(await t.post(`${PODS}/${name}/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: node } }), 201);
      return ok(await t.get(`${PODS}/${name}`), 200);
    };
    const setPhase = async (name: string, phase: string) => {
      const cur = ok(await t.get(`${PODS}/${name}`), 200);
      cur.status = { ...cur.status, phase };
      return ok(await t.put(`${PODS}/${name}/status`, cur), 200);
    };
    const relabel = async (name: string, labels: Record<string, string>) => {
      const cur = ok(await t.get(`${PODS}/${name}`), 200);
      cur.metadata.labels = labels;
      return ok(await t.put(`${PODS}/${name}`, cur), 200);
    };
    const remove = async (name: string) => ok(await t.del(`${PODS}/${name}`, { gracePeriodSeconds: 0 }), 200);
    const listRv = async () => ok(await t.get(ALL_PODS), 200).metadata.resourceVersion as string;
    const byNode = (node: string, extra: Record<string, string | number | undefined> = {}) => q({ fieldSelector: `spec.nodeName=${node}`, ...extra });

    before(async () => {
      t = await startTestServer([...flags, WITHOUT_NAMESPACE_DEFAULTS]);
      target = adminTarget(t.server);
      ok(await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), 201);
      // The ServiceAccount admission plugin wants the pods' account (its controller is off here).
      ok(await t.post(`/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }), 201);
    });
    afterEach(() => { opened.splice(0).forEach((w) => w.close()); });
    after(async () => { await t?.stop(); });

    it('each node\'s watch sees only its pods; a pod bound off `spec.nodeName=` is DELETED there with its previous content', async () => {
      const rv = await listRv();
      const n1 = watch(ALL_PODS + byNode('w-n1', { watch: 'true', resourceVersion: rv }));
      const n2 = watch(ALL_PODS + byNode('w-n2', { watch: 'true', resourceVersion: rv }));
      const n3 = watch(ALL_PODS + byNode('w-n3', { watch: 'true', resourceVersion: rv }));
      const unscheduled = watch(PODS + q({ watch: 'true', resourceVersion: rv, fieldSelector: 'spec.nodeName=' }));
      await Promise.all([n1, n2, n3, unscheduled].map((w) => w.response()));

      await create('w-a');
      await create('w-b', 'w-n2');
      const bound = await bind('w-a', 'w-n1');
      await setPhase('w-a', 'Running');
      await relabel('w-b', { touched: 'yes' });
      await remove('w-a');
      await create('w-end', 'w-n1');
      await create('w-end2', 'w-n2');
      await create('w-end3');

      await n1.waitFor((e) => e.object?.metadata?.name === 'w-end');
      await n2.waitFor((e) => e.object?.metadata?.name === 'w-end2');
      await unscheduled.waitFor((e) => e.object?.metadata?.name === 'w-end3');
      expect(summary(n1.events)).to.deep.equal(['ADDED:w-a', 'MODIFIED:w-a', 'DELETED:w-a', 'ADDED:w-end']);
      expect(summary(n2.events)).to.deep.equal(['ADDED:w-b', 'MODIFIED:w-b', 'ADDED:w-end2']);
      expect(summary(unscheduled.events)).to.deep.equal(['ADDED:w-a', 'DELETED:w-a', 'ADDED:w-end3']);
      expect(n3.events).to.deep.equal([]);

      // Bound to w-n1: w-n1's watch is told ADDED with the node; `spec.nodeName=` DELETED with the pod as it was.
      expect(n1.events[0].object.spec.nodeName).to.equal('w-n1');
      expect(n1.events[0].object.metadata.resourceVersion).to.equal(bound.metadata.resourceVersion);
      const left = unscheduled.events[1].object;
      expect(left.spec.nodeName).to.equal(undefined);
      expect(left.metadata.resourceVersion).to.equal(bound.metadata.resourceVersion);
    });

    it('a combined selector follows the pod out (`spec.nodeName=X,status.phase!=Succeeded`), and a label selector narrows further', async () => {
      const rv = await listRv();
      const active = watch(ALL_PODS + q({ watch: 'true', resourceVersion: rv, fieldSelector: 'spec.nodeName=c-n1,status.phase!=Succeeded' }));
      const labelled = watch(PODS + q({ watch: 'true', resourceVersion: rv, fieldSelector: 'spec.nodeName==c-n1', labelSelector: 'app=web' }));
      await Promise.all([active.response(), labelled.response()]);

      await create('c-a', 'c-n1', { app: 'web' });
      await create('c-b', 'c-n1', { app: 'db' });
      await create('c-other', 'c-n2', { app: 'web' });
      await setPhase('c-a', 'Running');
      const done = await setPhase('c-a', 'Succeeded');
      await relabel('c-b', { app: 'web' });
      await create('c-end', 'c-n1', { app: 'web' });

      await active.waitFor((e) => e.object?.metadata?.name === 'c-end');
      await labelled.waitFor((e) => e.object?.metadata?.name === 'c-end');
      expect(summary(active.events)).to.deep.equal(['ADDED:c-a', 'ADDED:c-b', 'MODIFIED:c-a', 'DELETED:c-a', 'MODIFIED:c-b', 'ADDED:c-end']);
      const gone = active.events[3].object;
      expect(gone.status.phase).to.equal('Running');
      expect(gone.metadata.resourceVersion).to.equal(done.metadata.resourceVersion);
      expect(summary(labelled.events)).to.deep.equal(['ADDED:c-a', 'MODIFIED:c-a', 'MODIFIED:c-a', 'ADDED:c-b', 'ADDED:c-end']);
    });

    it('a watch with its initial state sends only the node\'s pods, then sendInitialEvents\' bookmark', async () => {
      await create('i-a', 'i-n1');
      await create('i-b', 'i-n2');
      await create('i-c', 'i-n1');
      const w = watch(ALL_PODS + byNode('i-n1', { watch: 'true', sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true' }));
      const end = await w.waitFor((e) => e.type === 'BOOKMARK');
      expect(summary(w.events)).to.deep.equal(['ADDED:i-a', 'ADDED:i-c']);
      expect(end.object.metadata.annotations).to.deep.equal({ [`${t.server.naming.domain}/initial-events-end`]: 'true' });
      await create('i-d', 'i-n2');
      await create('i-e', 'i-n1');
      await w.waitFor((e) => e.object?.metadata?.name === 'i-e');
      expect(summary(w.events)).to.deep.equal(['ADDED:i-a', 'ADDED:i-c', 'ADDED:i-e']);
    });

    it('a bookmark of a node\'s watch carries the revision of the other nodes\' changes', async () => {
      const rv = await listRv();
      const w = watch(ALL_PODS + byNode('b-n1', { watch: 'true', resourceVersion: rv, allowWatchBookmarks: 'true', timeoutSeconds: 2 }));
      await w.response();
      await create('b-mine', 'b-n1');
      const last = await create('b-other', 'b-n2');
      await w.waitEnded(10_000);
      expect(summary(w.events)).to.deep.equal(['ADDED:b-mine']);
      const bookmarks = w.events.filter((e) => e.type === 'BOOKMARK');
      expect(bookmarks).to.have.length.above(0);
      expect(Number(bookmarks[bookmarks.length - 1].object.metadata.resourceVersion)).to.be.at.least(Number(last.metadata.resourceVersion));
    });

    it('lists a node\'s pods at RV unset, 0 and an exact RV, in pages, across and within a namespace', async () => {
      await create('l-a', 'l-n1');
      await create('l-b', 'l-n2');
      await create('l-c', 'l-n1');
      const before = ok(await t.get(ALL_PODS + byNode('l-n1')), 200);
      expect(names(before)).to.deep.equal(['l-a', 'l-c']);
      await create('l-d', 'l-n1');
      await remove('l-a');

      expect(names(ok(await t.get(ALL_PODS + byNode('l-n1')), 200))).to.deep.equal(['l-c', 'l-d']);
      expect(names(ok(await t.get(ALL_PODS + byNode('l-n1', { resourceVersion: '0' })), 200))).to.have.members(['l-c', 'l-d']);
      expect(names(ok(await t.get(PODS + byNode('l-n1', { resourceVersion: '0' })), 200))).to.have.members(['l-c', 'l-d']);
      const exact = ok(await t.get(ALL_PODS + byNode('l-n1', { resourceVersion: before.metadata.resourceVersion, resourceVersionMatch: 'Exact' })), 200);
      expect(names(exact)).to.deep.equal(['l-a', 'l-c']);
      expect(exact.metadata.resourceVersion).to.equal(before.metadata.resourceVersion);
      expect(names(ok(await t.get(ALL_PODS + byNode('l-n2')), 200))).to.deep.equal(['l-b']);
      expect(names(ok(await t.get(ALL_PODS + byNode('l-n9')), 200))).to.deep.equal([]);
      expect(names(ok(await t.get(ALL_PODS + q({ fieldSelector: 'spec.nodeName=l-n1,metadata.name!=l-c' })), 200))).to.deep.equal(['l-d']);

      // Pages: one pod each, the continue token at the first page's revision.
      const first = ok(await t.get(ALL_PODS + byNode('l-n1', { limit: 1 })), 200);
      expect(names(first)).to.deep.equal(['l-c']);
      expect(first.metadata.continue).to.be.a('string').and.not.equal('');
      await create('l-e', 'l-n1');
      const second = ok(await t.get(ALL_PODS + byNode('l-n1', { limit: 1, continue: first.metadata.continue })), 200);
      expect(names(second)).to.deep.equal(['l-d']);
      expect(second.metadata.resourceVersion).to.equal(first.metadata.resourceVersion);
      const rest = second.metadata.continue ? names(ok(await t.get(ALL_PODS + byNode('l-n1', { limit: 1, continue: second.metadata.continue })), 200)) : [];
      expect(rest).to.deep.equal([]);
    });

    it('lists the unscheduled pods with `spec.nodeName=`', async () => {
      await create('u-a');
      await create('u-b', 'u-n1');
      const unscheduled = names(ok(await t.get(PODS + q({ fieldSelector: 'spec.nodeName=' })), 200));
      expect(unscheduled).to.include('u-a');
      expect(unscheduled).to.not.include('u-b');
    });
  });
}
