/**
 * Graceful deletion of pods over HTTPS against a real etcd, as kube-apiserver does it: a pod on
 * a node stays Terminating (deletionTimestamp = now + grace, deletionGracePeriodSeconds) until a
 * delete with gracePeriodSeconds=0 (its kubelet's); later deletes may only shorten the grace; a
 * pod no node runs (unscheduled, Succeeded, Failed) goes at once; the grace comes from the
 * request, else spec.terminationGracePeriodSeconds; finalizers, dry run, deletecollection,
 * eviction, watch events and the Table's Terminating status.
 */
import { expect } from 'chai';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { WatchClient, adminTarget } from '../helpers/watch-client';

const NS = 'graceful';
type Body = Record<string, any>;
const pods = (name = '') => `/api/v1/namespaces/${NS}/pods${name ? `/${name}` : ''}`;
const seconds = (timestamp: string) => Date.parse(timestamp) / 1000;

describe('pods: graceful deletion', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
    // ServiceAccount admission wants the namespace's default service account, which comes moments later.
    await eventually(async () => (await t.get(`/api/v1/namespaces/${NS}/serviceaccounts/default`)).status === 200);
  });
  after(async () => { await t?.stop(); });

  /** A pod, on `node` when given, with `spec` and `meta` merged in, and `phase` written through /status. */
  async function pod(name: string, node: string | undefined, opts: { spec?: Body; meta?: Body; phase?: string } = {}): Promise<Body> {
    const spec = { containers: [{ name: 'app', image: 'registry.example.com/app:1' }], ...(node ? { nodeName: node } : {}), ...opts.spec };
    const created = await t.post(pods(), { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { test: 'graceful' }, ...opts.meta }, spec });
    expect(created.status, created.text).to.equal(201);
    if (!opts.phase) return created.body;
    const res = await t.put(pods(`${name}/status`), { ...created.body, status: { ...created.body.status, phase: opts.phase } });
    expect(res.status, res.text).to.equal(200);
    return res.body;
  }
  async function del(name: string, query = '', body?: Body): Promise<Body> {
    const res = await t.del(`${pods(name)}${query}`, body);
    expect(res.status, res.text).to.equal(200);
    return res.body;
  }
  const get = async (name: string): Promise<Body> => {
    const res = await t.get(pods(name));
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };
  const gone = async (name: string) => expect((await t.get(pods(name))).status).to.equal(404);
  async function mergePatch(path: string, patch: Body): Promise<void> {
    const res = await t.request('PATCH', path, { raw: JSON.stringify(patch), headers: { 'content-type': 'application/merge-patch+json' } });
    expect(res.status, res.text).to.equal(200);
  }

  it('keeps a scheduled pod Terminating for its grace period, tells watchers, and removes it at the final delete', async () => {
    const created = await pod('web', 'node-a');
    const watch = new WatchClient(adminTarget(t.server), `${pods()}?watch=true&fieldSelector=metadata.name%3Dweb&resourceVersion=${created.metadata.resourceVersion}`);
    try {
      await watch.response();
      const before = Math.floor(Date.now() / 1000);
      const marked = await del('web');
      const after = Math.ceil(Date.now() / 1000);
      expect(marked.kind).to.equal('Pod');
      expect(marked.metadata.deletionGracePeriodSeconds).to.equal(30);
      expect(seconds(marked.metadata.deletionTimestamp)).to.be.within(before + 30, after + 30);
      expect(marked.metadata.resourceVersion).to.not.equal(created.metadata.resourceVersion);
      expect((await get('web')).metadata).to.deep.include({ deletionTimestamp: marked.metadata.deletionTimestamp, deletionGracePeriodSeconds: 30 });
      const modified = await watch.next();
      expect(modified.type).to.equal('MODIFIED');
      expect(modified.object.metadata.deletionGracePeriodSeconds).to.equal(30);

      // kubectl shows it Terminating.
      const table = await t.get(pods('web'), { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
      expect(table.status, table.text).to.equal(200);
      const columns = table.body.columnDefinitions.map((c: Body) => c.name);
      expect(table.body.rows[0].cells[columns.indexOf('Status')]).to.equal('Terminating');

      // A longer or equal grace, or none, changes nothing.
      for (const query of ['?gracePeriodSeconds=60', '?gracePeriodSeconds=30', '']) {
        expect((await del('web', query)).metadata).to.deep.include(
          { resourceVersion: marked.metadata.resourceVersion, deletionTimestamp: marked.metadata.deletionTimestamp, deletionGracePeriodSeconds: 30 });
      }
      // A shorter one moves the deadline back by the difference.
      const shortened = await del('web', '', { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 10 });
      expect(shortened.metadata.deletionGracePeriodSeconds).to.equal(10);
      expect(seconds(shortened.metadata.deletionTimestamp)).to.equal(seconds(marked.metadata.deletionTimestamp) - 20);
      expect((await watch.next()).object.metadata.deletionGracePeriodSeconds).to.equal(10);

      // The kubelet's final delete: grace 0 with a UID precondition.
      const wrongUid = await t.del(pods('web'), { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid: 'not-the-uid' } });
      expect(wrongUid.status, wrongUid.text).to.equal(409);
      await get('web');
      const final = await del('web', '', { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid: created.metadata.uid } });
      expect(final.metadata.uid).to.equal(created.metadata.uid);
      await gone('web');
      const deleted = await watch.next();
      expect(deleted.type).to.equal('DELETED');
      expect(deleted.object.metadata.uid).to.equal(created.metadata.uid);
    } finally {
      watch.close();
    }
  });

  it('removes at once a pod no node runs: unscheduled, Succeeded, Failed', async () => {
    await pod('pending', undefined);
    await pod('done', 'node-a', { phase: 'Succeeded' });
    await pod('crashed', 'node-a', { phase: 'Failed' });
    for (const name of ['pending', 'done', 'crashed']) {
      const res = await del(name);
      expect(res.metadata.deletionTimestamp, name).to.equal(undefined);
      await gone(name);
    }
  });

  it('removes a scheduled pod at once when the delete asks for grace 0 (a force delete)', async () => {
    await pod('forced', 'node-a');
    await del('forced', '?gracePeriodSeconds=0');
    await gone('forced');
  });

  it('takes the grace from spec.terminationGracePeriodSeconds when the delete names none; a negative one counts as 1', async () => {
    await pod('quick', 'node-a', { spec: { terminationGracePeriodSeconds: 5 } });
    expect((await del('quick')).metadata.deletionGracePeriodSeconds).to.equal(5);
    await pod('negative', 'node-a', { spec: { terminationGracePeriodSeconds: -7 } });
    expect((await del('negative')).metadata.deletionGracePeriodSeconds).to.equal(1);
    // The request's own grace wins over the spec's.
    await pod('asked', 'node-a', { spec: { terminationGracePeriodSeconds: 5 } });
    expect((await del('asked', '?gracePeriodSeconds=12')).metadata.deletionGracePeriodSeconds).to.equal(12);
    for (const name of ['quick', 'negative', 'asked']) await del(name, '?gracePeriodSeconds=0');
  });

  it('keeps a Terminating pod through status writes, and through the loss of its last finalizer while the grace runs', async () => {
    await pod('held', 'node-a', { meta: { finalizers: ['example.com/hold'] } });
    expect((await del('held')).metadata.deletionGracePeriodSeconds).to.equal(30);
    await mergePatch(pods('held/status'), { status: { phase: 'Running' } });
    await mergePatch(pods('held'), { metadata: { finalizers: null } });
    expect((await get('held')).metadata.deletionGracePeriodSeconds).to.equal(30);
    await del('held', '?gracePeriodSeconds=0');
    await gone('held');
  });

  it('with a finalizer: the final delete leaves the pod Terminating at grace 0 until the finalizer goes', async () => {
    await pod('kept', 'node-a', { meta: { finalizers: ['example.com/hold'] } });
    const marked = await del('kept');
    const zero = await del('kept', '?gracePeriodSeconds=0');
    expect(zero.metadata.deletionGracePeriodSeconds).to.equal(0);
    expect(seconds(zero.metadata.deletionTimestamp)).to.equal(seconds(marked.metadata.deletionTimestamp) - 30);
    expect(zero.metadata.finalizers).to.deep.equal(['example.com/hold']);
    await get('kept');
    await mergePatch(pods('kept'), { metadata: { finalizers: null } });
    await gone('kept');
  });

  it('changes nothing on a dry run', async () => {
    const created = await pod('dry', 'node-a');
    const res = await del('dry', '?dryRun=All');
    expect(res.metadata.deletionGracePeriodSeconds).to.equal(30);
    const stored = await get('dry');
    expect(stored.metadata.deletionTimestamp).to.equal(undefined);
    expect(stored.metadata.resourceVersion).to.equal(created.metadata.resourceVersion);
    await del('dry', '?gracePeriodSeconds=0');
  });

  it('deletecollection marks the scheduled pods and removes the others', async () => {
    await pod('many-a', 'node-a', { meta: { labels: { batch: 'many' } } });
    await pod('many-b', undefined, { meta: { labels: { batch: 'many' } } });
    const res = await t.del(`${pods()}?labelSelector=batch%3Dmany`);
    expect(res.status, res.text).to.equal(200);
    expect((await get('many-a')).metadata.deletionGracePeriodSeconds).to.equal(30);
    await gone('many-b');
    await del('many-a', '?gracePeriodSeconds=0');
  });

  it('eviction deletes gracefully, with the grace its DeleteOptions give', async () => {
    await pod('evicted', 'node-a', { phase: 'Running' });
    const res = await t.post(`${pods('evicted')}/eviction`, {
      apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evicted', namespace: NS }, deleteOptions: { gracePeriodSeconds: 15 },
    });
    expect(res.status, res.text).to.equal(201);
    expect((await get('evicted')).metadata.deletionGracePeriodSeconds).to.equal(15);
    await del('evicted', '?gracePeriodSeconds=0');
    await gone('evicted');
  });
});
