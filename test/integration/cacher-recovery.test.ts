/**
 * The watch cache when its etcd watch breaks: it resumes after the last applied revision without
 * a gap, re-lists (ending watchers with Compacted) when that revision was compacted meanwhile,
 * and follows a real etcd restart on the same data dir.
 */
import { expect } from 'chai';
import { promises as fsp } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Etcd3 } from 'etcd3';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { eventually } from '../helpers/server-harness';
import { portOf, startRelay } from '../helpers/tcp-relay';
import { createEtcdClient } from '../../lib/storage/etcd3/client';
import { Etcd3Storage } from '../../lib/storage/etcd3/store';
import { EtcdKvClient } from '../../lib/storage/etcd3/kv-client';
import { startEmbeddedEtcd } from '../../lib/server/embedded-etcd';
import { Storage, StorageEvent, WatchHandle, WatchHandlers } from '../../lib/storage/interfaces';
import { StorageError } from '../../lib/storage/errors';
import { Cacher } from '../../lib/storage/cacher/cacher';
import { Etcd3Probe } from '../../lib/storage/cacher/etcd3-probe';

class Recorder {
  events: StorageEvent[] = [];
  errors: Error[] = [];
  onEvents = (events: StorageEvent[]) => void this.events.push(...events);
  onError = (err: Error) => void this.errors.push(err);
}

const soon = <T>(fn: () => T | undefined | false, ms = 15_000) => eventually(async () => fn(), ms, 10);

/** A Storage whose etcd watch the test can break, holding new watches until released. */
class BreakableStorage {
  readonly storage: Storage;
  /** The revision each etcd watch started after. */
  readonly watchStarts: number[] = [];
  active = 0;
  private current?: { handle: WatchHandle; handlers: WatchHandlers };
  private gate?: Promise<void>;
  private open?: () => void;

  constructor(private readonly inner: Storage) {
    this.storage = Object.assign(Object.create(inner) as Storage, {
      watch: (prefix: string, after: number, h: WatchHandlers) => this.watch(prefix, after, h),
    });
  }

  /** Ends the current etcd watch as a lost stream would; new watches wait for release(). */
  async break(): Promise<void> {
    this.gate = new Promise((resolve) => (this.open = resolve));
    const cur = this.current!;
    this.current = undefined;
    await cur.handle.close();
    cur.handlers.onError(new StorageError('Unavailable', 'simulated loss of the watch stream'));
  }

  release(): void {
    this.open?.();
    this.gate = undefined;
  }

  private async watch(prefix: string, after: number, h: WatchHandlers): Promise<WatchHandle> {
    if (this.gate) await this.gate;
    let open = true;
    const ended = () => { if (open) { open = false; this.active--; } };
    const handlers: WatchHandlers = { onEvents: (evs, rev) => h.onEvents(evs, rev), onError: (err) => { ended(); h.onError(err); } };
    const handle = await this.inner.watch(prefix, after, handlers);
    this.watchStarts.push(after);
    this.active++;
    const wrapped = { close: async () => { ended(); await handle.close(); } };
    this.current = { handle: wrapped, handlers };
    return wrapped;
  }
}


describe('Cacher recovery', () => {
  let etcd: TestEtcd;
  let client: Etcd3;
  let kv: EtcdKvClient;
  let storage: Etcd3Storage;
  const cachers: Cacher[] = [];
  const put = async (key: string, value: string) => Number((await client.put(key).value(value).exec()).header.revision);
  const del = async (key: string) => Number((await client.delete().key(key).exec()).header.revision);

  before(async () => {
    etcd = await startTestEtcd();
    client = createEtcdClient({ endpoints: [etcd.endpoint] });
    kv = new EtcdKvClient({ endpoints: [etcd.endpoint] });
    storage = new Etcd3Storage(kv);
  });
  afterEach(async () => {
    await Promise.all(cachers.splice(0).map((c) => c.stop()));
  });
  after(async () => {
    await storage?.close();
    client?.close();
    await etcd?.stop();
  });

  it('a broken etcd watch resumes after the last applied revision: watchers see no gap and no error', async () => {
    const b = new BreakableStorage(storage);
    const c = new Cacher(b.storage, '/resume/cms/', { probe: new Etcd3Probe(kv), freshnessTimeoutMs: 300 });
    cachers.push(c);
    await c.start();
    const rec = new Recorder();
    c.watch('/resume/cms/', c.revision, rec);
    const r1 = await put('/resume/cms/ns/a', '1');
    await soon(() => rec.events.length === 1);
    await b.break();
    await put('/resume/cms/ns/b', '1');
    await del('/resume/cms/ns/a');
    // The cache cannot see these yet: it must not claim to be consistent.
    expect(await c.consistentRevision()).to.equal(undefined);
    b.release();
    await soon(() => rec.events.length === 3);
    expect(rec.events.map((e) => `${e.type}:${e.key}`)).to.deep.equal(['put:/resume/cms/ns/a', 'put:/resume/cms/ns/b', 'delete:/resume/cms/ns/a']);
    expect(rec.errors).to.deep.equal([]);
    expect(b.watchStarts.slice(1)).to.deep.equal([r1]);
    expect(b.active).to.equal(1);
    expect(c.list('/resume/cms/').kvs.map((kv) => kv.key)).to.deep.equal(['/resume/cms/ns/b']);
    expect(await c.consistentRevision()).to.be.a('number');
  });

  it('when the resume revision was compacted meanwhile, it re-lists and ends watchers with Compacted', async () => {
    const b = new BreakableStorage(storage);
    const c = new Cacher(b.storage, '/relist/cms/', { probe: new Etcd3Probe(kv) });
    cachers.push(c);
    await c.start();
    const rec = new Recorder();
    const before = c.revision;
    c.watch('/relist/cms/', c.revision, rec);
    await put('/relist/cms/ns/a', '1');
    await soon(() => rec.events.length === 1);
    await b.break();
    await put('/relist/cms/ns/b', '1');
    await del('/relist/cms/ns/a');
    const compactedAt = await put('/relist/other/x', '1');
    await storage.compact(compactedAt);
    b.release();
    // etcd itself may first cancel a watch from the compacted revision; the last one is the re-list's.
    await soon(() => rec.errors.length === 1 && b.active === 1 && b.watchStarts[b.watchStarts.length - 1] >= compactedAt);
    expect(rec.errors[0]).to.be.instanceOf(StorageError).and.include({ code: 'Compacted' });
    expect(rec.events.length).to.equal(1);
    expect(c.list('/relist/cms/').kvs.map((kv) => kv.key)).to.deep.equal(['/relist/cms/ns/b']);
    expect(() => c.watch('/relist/cms/', before, new Recorder())).to.throw(StorageError).with.property('code', 'Compacted');
    const fresh = new Recorder();
    const { initial } = c.watchWithInitialState('/relist/cms/', fresh);
    expect(initial.map((kv) => kv.key)).to.deep.equal(['/relist/cms/ns/b']);
    await put('/relist/cms/ns/c', '1');
    await soon(() => fresh.events.length === 1);
    expect(b.active).to.equal(1);
  });

  it('follows a real etcd restart on the same data dir', async function () {
    this.timeout(90_000);
    const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-cacher-restart-'));
    let node = await startEmbeddedEtcd({ dataDir, etcdBinary: process.env.ETCD_BINARY || undefined });
    const relay = await startRelay(portOf(node.clientUrl));
    const c2 = createEtcdClient({ endpoints: [relay.url], callTimeoutMs: 2_000 });
    const kv2 = new EtcdKvClient({ endpoints: [relay.url], callTimeoutMs: 2_000 });
    const s2 = new Etcd3Storage(kv2);
    const write = (key: string) => eventually(async () => {
      try {
        return Number((await c2.put(key).value('v').exec()).header.revision);
      } catch {
        return undefined;
      }
    }, 60_000, 200);
    try {
      const c = new Cacher(s2, '/restart/cms/', { probe: new Etcd3Probe(kv2) });
      cachers.push(c);
      await c.start();
      const rec = new Recorder();
      c.watch('/restart/cms/', c.revision, rec);
      await write('/restart/cms/ns/a');
      await soon(() => rec.events.length === 1);
      await node.stop();
      node = await startEmbeddedEtcd({ dataDir, etcdBinary: process.env.ETCD_BINARY || undefined });
      relay.retarget(portOf(node.clientUrl));
      await write('/restart/cms/ns/b');
      const last = await write('/restart/cms/ns/c');
      await soon(() => rec.events.length === 3, 60_000);
      expect(rec.events.map((e) => e.key)).to.deep.equal(['/restart/cms/ns/a', '/restart/cms/ns/b', '/restart/cms/ns/c']);
      expect(rec.errors).to.deep.equal([]);
      expect(await c.consistentRevision()).to.be.at.least(last);
    } finally {
      await Promise.all(cachers.splice(0).map((x) => x.stop()));
      await s2.close();
      c2.close();
      await relay.close();
      await node.stop();
      await fsp.rm(dataDir, { recursive: true, force: true });
    }
  });
});
