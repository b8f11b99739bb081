/**
 * The lean etcd watch (lib/storage/etcd3/watch-stream.ts, through Etcd3Storage.watch) against a
 * real etcd: events in order with previous values and created flags, replay from a past
 * revision, a compacted start, many watches on one session, close(), etcd going away, large
 * values and bursts. Events are cross-checked with the etcd3 package's own watcher.
 */
import { expect } from 'chai';
import { promises as fsp } from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { Etcd3, IWatchResponse } from 'etcd3';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { eventually } from '../helpers/server-harness';
import { portOf, startRelay } from '../helpers/tcp-relay';
import { createEtcdClient } from '../../lib/storage/etcd3/client';
import { EtcdKvClient } from '../../lib/storage/etcd3/kv-client';
import { RequestOp } from '../../lib/storage/etcd3/kv-types';
import { Etcd3Storage } from '../../lib/storage/etcd3/store';
import { EtcdWatch } from '../../lib/storage/etcd3/watch-stream';
import { startEmbeddedEtcd } from '../../lib/server/embedded-etcd';
import { StorageEvent, WatchHandle, WatchHandlers } from '../../lib/storage/interfaces';
import { StorageError } from '../../lib/storage/errors';

const b = (s: string) => Buffer.from(s);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

class Recorder implements WatchHandlers {
  events: StorageEvent[] = [];
  /** The revision passed with each batch. */
  batches: number[] = [];
  progress: number[] = [];
  errors: Error[] = [];
  onEvents(events: StorageEvent[], revision: number): void {
    for (const e of events) this.events.push(e);
    this.batches.push(revision);
  }
  onProgress(revision: number): void {
    this.progress.push(revision);
  }
  onError(err: Error): void {
    this.errors.push(err);
  }
  /** type:key=value (prev) created@revision */
  view(): string[] {
    return this.events.map((e) => `${e.type}:${e.key}=${e.value.toString()}${e.prevValue ? ` (${e.prevValue.toString()})` : ''}${e.created ? ' created' : ''}@${e.revision}`);
  }
}

const soon = <T>(fn: () => T | undefined | false, ms = 15_000) => eventually(async () => fn(), ms, 5);

/** A TCP relay that can stop forwarding without closing anything: etcd unreachable, not gone. */
async function startFreezableRelay(targetPort: number): Promise<{ url: string; freeze(): void; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((down) => {
    const up = net.connect(targetPort, '127.0.0.1');
    for (const s of [down, up]) { sockets.add(s); s.on('error', () => undefined); }
    down.pipe(up);
    up.pipe(down);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    freeze() {
      for (const s of sockets) { s.unpipe(); s.pause(); }
    },
    close: () => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
}

describe('etcd watch stream (lean client)', function () {
  this.timeout(60_000);
  let etcd: TestEtcd;
  let kv: EtcdKvClient;
  let storage: Etcd3Storage;
  let etcd3: Etcd3;
  const handles: WatchHandle[] = [];

  const txn = async (ops: RequestOp[]) => (await kv.txn({ success: ops })).header.revision;
  const put = (key: string, value: string | Buffer) => txn([{ put: { key: b(key), value: typeof value === 'string' ? b(value) : value } }]);
  const del = (key: string) => txn([{ deleteRange: { key: b(key) } }]);
  const watch = async (prefix: string, after: number, rec: WatchHandlers) => {
    const h = await storage.watch(prefix, after, rec);
    handles.push(h);
    return h;
  };

  before(async () => {
    etcd = await startTestEtcd();
    kv = new EtcdKvClient({ endpoints: [etcd.endpoint] });
    storage = new Etcd3Storage(kv);
    etcd3 = createEtcdClient({ endpoints: [etcd.endpoint] });
  });
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((h) => h.close()));
  });
  after(async () => {
    await storage?.close();
    etcd3?.close();
    await etcd?.stop();
  });

  it('puts and deletes under the prefix, in order, with previous values and created flags', async () => {
    const start = await storage.currentRevision();
    const rec = new Recorder();
    await watch('/order/cms/', start, rec);
    const r1 = await put('/order/cms/a', 'a1');
    const r2 = await put('/order/cms/a', 'a2');
    const r3 = await put('/order/cms/b', 'b1');
    await put('/order/cms0', 'outside');
    await put('/order/cm', 'outside');
    const r4 = await del('/order/cms/a');
    const r5 = await del('/order/cms/missing');
    const r6 = await put('/order/cms/a', 'a3');
    await soon(() => rec.events.length >= 5);
    await sleep(100);
    expect(rec.view()).to.deep.equal([
      `put:/order/cms/a=a1 created@${r1}`,
      `put:/order/cms/a=a2 (a1)@${r2}`,
      `put:/order/cms/b=b1 created@${r3}`,
      `delete:/order/cms/a=a2@${r4}`,
      `put:/order/cms/a=a3 created@${r6}`,
    ]);
    // A delete of nothing is no event (but takes no revision either).
    expect(r5).to.equal(r4);
    expect(rec.events[3].prevValue).to.equal(undefined);
    expect(rec.events[0]).to.have.property('prevValue', undefined);
    expect(rec.batches).to.deep.equal([r1, r2, r3, r4, r6]);
    expect(rec.errors).to.deep.equal([]);
    expect(rec.progress).to.deep.equal([]);
  });

  it('one transaction is one batch, at its revision, in the order of its operations', async () => {
    const start = await put('/txnbatch/x/k1', 'old');
    const rec = new Recorder();
    await watch('/txnbatch/x/', start, rec);
    const rev = await txn([
      { put: { key: b('/txnbatch/x/k2'), value: b('v2') } },
      { deleteRange: { key: b('/txnbatch/x/k1') } },
      { put: { key: b('/txnbatch/y'), value: b('outside') } },
      { put: { key: b('/txnbatch/x/k0'), value: Buffer.alloc(0) } },
    ]);
    await soon(() => rec.events.length === 3);
    expect(rec.batches).to.deep.equal([rev]);
    expect(rec.view()).to.deep.equal([`put:/txnbatch/x/k2=v2 created@${rev}`, `delete:/txnbatch/x/k1=old@${rev}`, `put:/txnbatch/x/k0= created@${rev}`]);
    expect(rec.events[2].value).to.have.length(0);
  });

  it('a start revision in the past replays every change after it', async () => {
    const r0 = await put('/replay/cms/a', '1');
    const r1 = await put('/replay/cms/a', '2');
    const r2 = await del('/replay/cms/a');
    const r3 = await put('/replay/cms/b', '1');
    const all = new Recorder();
    await watch('/replay/cms/', r0 - 1, all);
    const later = new Recorder();
    await watch('/replay/cms/', r1, later);
    await soon(() => all.events.length === 4 && later.events.length === 2);
    expect(all.view()).to.deep.equal([`put:/replay/cms/a=1 created@${r0}`, `put:/replay/cms/a=2 (1)@${r1}`, `delete:/replay/cms/a=2@${r2}`, `put:/replay/cms/b=1 created@${r3}`]);
    expect(later.view()).to.deep.equal(all.view().slice(2));
    // And then the live ones.
    const r4 = await put('/replay/cms/b', '2');
    await soon(() => later.events.length === 3);
    expect(later.view()[2]).to.equal(`put:/replay/cms/b=2 (1)@${r4}`);
  });

  it('a compacted start revision ends the watch with Compacted, carrying the compacted revision', async () => {
    const old = await put('/compacted/cms/a', '1');
    await put('/compacted/cms/a', '2');
    const now = await put('/compacted/other', 'x');
    await storage.compact(now);
    const rec = new Recorder();
    let err: unknown;
    try {
      await watch('/compacted/cms/', old - 1, rec);
      await soon(() => rec.errors.length > 0);
      err = rec.errors[0];
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(StorageError).and.include({ code: 'Compacted', compactRevision: now });
    await sleep(100);
    expect(rec.errors.length).to.be.at.most(1);
    expect(rec.events).to.deep.equal([]);
    // From the compacted revision itself it works.
    const ok = new Recorder();
    await watch('/compacted/cms/', now, ok);
    const r = await put('/compacted/cms/a', '3');
    await soon(() => ok.events.length === 1);
    expect(ok.view()).to.deep.equal([`put:/compacted/cms/a=3 (2)@${r}`]);
  });

  it('many watches share the KV calls\' session; each gets exactly its own events', async () => {
    const n = 200;
    const start = await storage.currentRevision();
    const recs = Array.from({ length: n }, () => new Recorder());
    const hs = await Promise.all(recs.map((rec, i) => watch(`/many/r${i}/`, start, rec)));
    const sessions = new Set(hs.map((h) => (h as EtcdWatch).session));
    expect(sessions.size).to.equal(1);
    expect((kv as unknown as { session: unknown }).session).to.equal([...sessions][0]);
    const revs = await Promise.all(recs.map((_, i) => put(`/many/r${i}/k`, `v${i}`)));
    await soon(() => recs.every((r) => r.events.length === 1));
    await sleep(100);
    recs.forEach((rec, i) => expect(rec.view()).to.deep.equal([`put:/many/r${i}/k=v${i} created@${revs[i]}`]));
  });

  it('close() stops delivery at once, without onError', async () => {
    const start = await storage.currentRevision();
    const rec = new Recorder();
    const h = await watch('/close/cms/', start, rec);
    await put('/close/cms/a', '1');
    await soon(() => rec.events.length === 1);
    await h.close();
    await h.close();
    await put('/close/cms/a', '2');
    const other = new Recorder();
    await watch('/close/cms/', start, other);
    await soon(() => other.events.length === 2);
    expect(rec.events).to.have.length(1);
    expect(rec.errors).to.deep.equal([]);
  });

  it('close() from within onEvents: nothing more is delivered, even from the same read', async () => {
    const start = await storage.currentRevision();
    const seen: number[] = [];
    let handle: WatchHandle | undefined;
    const rec: WatchHandlers = {
      onEvents: (events) => { seen.push(events.length); void handle?.close(); },
      onError: (err) => { throw err; },
    };
    handle = await watch('/close-inside/cms/', start, rec);
    // Many at once, so that several responses come in one chunk.
    await Promise.all(Array.from({ length: 100 }, (_, i) => put(`/close-inside/cms/k${i}`, 'v')));
    await soon(() => seen.length > 0);
    await sleep(200);
    expect(seen).to.have.length(1);
  });

  it('closing the storage ends open watches with one Unavailable', async () => {
    const kv2 = new EtcdKvClient({ endpoints: [etcd.endpoint] });
    const s2 = new Etcd3Storage(kv2);
    const rec = new Recorder();
    await s2.watch('/closing/cms/', await s2.currentRevision(), rec);
    const started = Date.now();
    await s2.close();
    expect(Date.now() - started).to.be.below(1000);
    await soon(() => rec.errors.length === 1);
    await sleep(100);
    expect(rec.errors).to.have.length(1);
    expect(rec.errors[0]).to.be.instanceOf(StorageError).and.include({ code: 'Unavailable' });
    expect(rec.errors[0].message).to.include('closed');
  });

  it('etcd unreachable: close() resolves at once; creating a watch fails with Timeout at the call deadline', async () => {
    const relay = await startFreezableRelay(portOf(etcd.endpoint));
    const kv2 = new EtcdKvClient({ endpoints: [relay.url], callTimeoutMs: 500 });
    const s2 = new Etcd3Storage(kv2);
    try {
      const rec = new Recorder();
      const h = await s2.watch('/frozen/cms/', await s2.currentRevision(), rec);
      relay.freeze();
      const started = Date.now();
      await h.close();
      expect(Date.now() - started).to.be.below(100);
      const createdAt = Date.now();
      let err: unknown;
      await s2.watch('/frozen/cms/', 1, new Recorder()).catch((e) => { err = e; });
      expect(err).to.be.instanceOf(StorageError).and.include({ code: 'Timeout' });
      expect(Date.now() - createdAt).to.be.within(400, 3000);
      expect(rec.errors).to.deep.equal([]);
    } finally {
      await Promise.race([s2.close(), sleep(200)]);
      await relay.close();
    }
  });

  it('no etcd listening: creating a watch fails with Unavailable, quickly', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const s2 = new Etcd3Storage(new EtcdKvClient({ endpoints: [`http://127.0.0.1:${port}`] }));
    try {
      const started = Date.now();
      let err: unknown;
      await s2.watch('/none/', 1, new Recorder()).catch((e) => { err = e; });
      expect(err).to.be.instanceOf(StorageError).and.include({ code: 'Unavailable' });
      expect(Date.now() - started).to.be.below(1000);
    } finally {
      await s2.close();
    }
  });

  it('etcd stopped: every watch gets one Unavailable; restarted: watching again from the last revision misses nothing', async function () {
    this.timeout(90_000);
    const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-watch-restart-'));
    let node = await startEmbeddedEtcd({ dataDir, etcdBinary: process.env.ETCD_BINARY || undefined });
    const relay = await startRelay(portOf(node.clientUrl));
    const kv2 = new EtcdKvClient({ endpoints: [relay.url], callTimeoutMs: 2_000 });
    const s2 = new Etcd3Storage(kv2);
    try {
      const start = await s2.currentRevision();
      const recs = [new Recorder(), new Recorder(), new Recorder()];
      await Promise.all(recs.map((rec) => s2.watch('/restart/cms/', start, rec)));
      const r1 = (await kv2.txn({ success: [{ put: { key: b('/restart/cms/a'), value: b('1') } }] })).header.revision;
      await soon(() => recs.every((r) => r.events.length === 1));
      await node.stop();
      await soon(() => recs.every((r) => r.errors.length === 1), 10_000);
      for (const rec of recs) {
        expect(rec.errors[0]).to.be.instanceOf(StorageError).and.include({ code: 'Unavailable' });
      }
      // While etcd is down, a new watch cannot be created.
      let err: unknown;
      await s2.watch('/restart/cms/', r1, new Recorder()).catch((e) => { err = e; });
      expect(err).to.be.instanceOf(StorageError).and.include({ code: 'Unavailable' });

      node = await startEmbeddedEtcd({ dataDir, etcdBinary: process.env.ETCD_BINARY || undefined });
      relay.retarget(portOf(node.clientUrl));
      const r2 = await eventually(async () => kv2.txn({ success: [{ put: { key: b('/restart/cms/b'), value: b('1') } }] }).then((r) => r.header.revision, () => undefined), 30_000, 50);
      const again = new Recorder();
      await s2.watch('/restart/cms/', recs[0].events[0].revision, again);
      const r3 = (await kv2.txn({ success: [{ put: { key: b('/restart/cms/a'), value: b('2') } }] })).header.revision;
      await soon(() => again.events.length === 2);
      expect(again.view()).to.deep.equal([`put:/restart/cms/b=1 created@${r2}`, `put:/restart/cms/a=2 (1)@${r3}`]);
      // The old watches stay ended: one error each, nothing more.
      for (const rec of recs) expect([rec.events.length, rec.errors.length]).to.deep.equal([1, 1]);
    } finally {
      await Promise.race([s2.close(), sleep(1000)]);
      await relay.close();
      await node.stop();
      await fsp.rm(dataDir, { recursive: true, force: true });
    }
  });

  it('1 MiB values (a 2 MiB update with its previous value) arrive complete', async () => {
    const start = await storage.currentRevision();
    const rec = new Recorder();
    await watch('/large/cms/', start, rec);
    const v1 = Buffer.alloc(1024 * 1024);
    const v2 = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < v1.length; i++) { v1[i] = i % 251; v2[i] = (i * 7) % 253; }
    const r1 = await put('/large/cms/a', v1);
    const r2 = await put('/large/cms/a', v2);
    const r3 = await del('/large/cms/a');
    await soon(() => rec.events.length === 3);
    expect(rec.events.map((e) => [e.type, e.revision])).to.deep.equal([['put', r1], ['put', r2], ['delete', r3]]);
    expect(rec.events[0].value.equals(v1)).to.equal(true);
    expect(rec.events[1].value.equals(v2)).to.equal(true);
    expect(rec.events[1].prevValue!.equals(v1)).to.equal(true);
    expect(rec.events[2].value.equals(v2)).to.equal(true);
  });

  it('a burst of 1,000 transactions at once (and 10 of 100 puts) arrives complete and in order', async () => {
    const start = await storage.currentRevision();
    const rec = new Recorder();
    await watch('/burst/cms/', start, rec);
    const value = (i: number) => `value-${i}-${'x'.repeat(i % 300)}`;
    const revs = await Promise.all(Array.from({ length: 1000 }, (_, i) => put(`/burst/cms/k${i % 250}`, value(i))));
    const batchRevs: number[] = [];
    for (let t = 0; t < 10; t++) {
      batchRevs.push(await txn(Array.from({ length: 100 }, (_, i) => ({ put: { key: b(`/burst/cms/t${t}/k${i}`), value: b(value(i)) } }))));
    }
    await soon(() => rec.events.length === 2000, 30_000);
    await sleep(100);
    expect(rec.events).to.have.length(2000);
    const single = rec.events.slice(0, 1000);
    // Every revision once, in increasing order, and each event what that write put.
    expect(single.map((e) => e.revision)).to.deep.equal([...revs].sort((x, y) => x - y));
    const byRev = new Map(revs.map((r, i) => [r, i]));
    const last = new Map<string, string>();
    for (const e of single) {
      const i = byRev.get(e.revision)!;
      expect(e.key).to.equal(`/burst/cms/k${i % 250}`);
      expect(e.value.toString()).to.equal(value(i));
      expect(e.prevValue?.toString()).to.equal(last.get(e.key));
      expect(e.created).to.equal(!last.has(e.key));
      last.set(e.key, e.value.toString());
    }
    const txnEvents = rec.events.slice(1000);
    expect(txnEvents.map((e) => e.revision)).to.deep.equal(batchRevs.flatMap((r) => Array(100).fill(r)));
    expect(txnEvents.map((e) => e.key)).to.deep.equal(batchRevs.flatMap((_, t) => Array.from({ length: 100 }, (__, i) => `/burst/cms/t${t}/k${i}`)));
    // A batch may hold several revisions (etcd sends a watcher that fell behind what it missed at once).
    expect(rec.batches.every((r, i) => i === 0 || r > rec.batches[i - 1])).to.equal(true);
    expect(rec.batches[rec.batches.length - 1]).to.equal(batchRevs[9]);
    expect(rec.errors).to.deep.equal([]);
  });

  it('the same events as the etcd3 package\'s watcher, mapped as the store did with it', async () => {
    const start = await storage.currentRevision();
    const ours = new Recorder();
    await watch('/cross/cms/', start, ours);
    const theirs: StorageEvent[] = [];
    const w = await etcd3.watch().prefix('/cross/cms/').withPreviousKV().startRevision(String(start + 1)).create();
    w.on('data', (res: IWatchResponse) => {
      for (const ev of res.events) {
        const isPut = ev.type === 'Put';
        theirs.push({
          type: isPut ? 'put' : 'delete',
          key: ev.kv.key.toString(),
          value: isPut ? ev.kv.value : (ev.prev_kv?.value ?? Buffer.alloc(0)),
          prevValue: isPut ? ev.prev_kv?.value : undefined,
          revision: Number(ev.kv.mod_revision),
          created: isPut && ev.kv.create_revision === ev.kv.mod_revision,
        });
      }
    });
    try {
      let seed = 42;
      const random = (n: number) => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed % n; };
      for (let i = 0; i < 300; i++) {
        const key = `/cross/cms/k${random(20)}`;
        if (random(4) === 0) await del(key);
        else await put(key, `v${i}-${'y'.repeat(random(2000))}`);
      }
      await soon(() => theirs.length > 0 && ours.events.length === theirs.length && ours.events[ours.events.length - 1].revision === theirs[theirs.length - 1].revision);
      await sleep(200);
      const plain = (evs: StorageEvent[]) => evs.map((e) => ({ ...e, value: e.value.toString(), prevValue: e.prevValue?.toString() }));
      expect(plain(ours.events)).to.deep.equal(plain(theirs));
    } finally {
      await w.cancel();
    }
  });
});
