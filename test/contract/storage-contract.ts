/**
 * The storage contract (lib/storage/interfaces.ts, lib/storage/etcd3/kv.ts), as one suite that
 * runs against every etcd client: Etcd3Storage on the client `make` builds, over a real etcd.
 * test/integration/storage-contract.test.ts runs it for the lean client and for the etcd3
 * package. What one client does and the other does not is a bug in one of them.
 */
import { expect } from 'chai';
import * as net from 'node:net';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { portOf } from '../helpers/tcp-relay';
import { Etcd3Storage, prefixEnd } from '../../lib/storage/etcd3/store';
import { EtcdClientOptions } from '../../lib/storage/etcd3/kv-client';
import { EtcdKv, EtcdKvWatch, TxnRequest, TxnResponse, WatchCreateRequest, WatchStreamHandler } from '../../lib/storage/etcd3/kv';
import { WatchResponse } from '../../lib/storage/etcd3/watch-stream';
import { StorageEvent, WatchHandle, WatchHandlers } from '../../lib/storage/interfaces';
import { StorageError } from '../../lib/storage/errors';
import { startCuttingRelay } from './cutting-relay';
import { freePort, startEtcdProcess, startTwoMembers } from './etcd-process';

export type MakeKv = (opts: EtcdClientOptions) => EtcdKv;

const b = (s: string) => Buffer.from(s);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The StorageError a promise rejects with (fails the test when it resolves). */
async function storageErrorOf(p: Promise<unknown>): Promise<StorageError> {
  try {
    await p;
  } catch (err) {
    expect(err, String(err)).to.be.instanceOf(StorageError);
    return err as StorageError;
  }
  throw new Error('expected a StorageError, but the call succeeded');
}

async function timed<T>(p: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await p;
  return { value, ms: Date.now() - started };
}

async function until(cond: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms`);
    await sleep(10);
  }
}

/** Records everything a watch delivers. */
class Recorder implements WatchHandlers {
  events: StorageEvent[] = [];
  batches: number[] = [];
  errors: Error[] = [];
  onEvents(events: StorageEvent[], revision: number): void {
    this.events.push(...events);
    this.batches.push(revision);
  }
  onError(err: Error): void {
    this.errors.push(err);
  }
}

/** An EtcdKv that records the outcome of every Txn (to see the CAS retry happen). */
class TxnLog implements EtcdKv {
  outcomes: Array<'error' | 'succeeded' | 'failed'> = [];
  constructor(private readonly inner: EtcdKv) {}
  range: EtcdKv['range'] = (req) => this.inner.range(req);
  compact: EtcdKv['compact'] = (rev, physical) => this.inner.compact(rev, physical);
  leaseGrant: EtcdKv['leaseGrant'] = (ttl) => this.inner.leaseGrant(ttl);
  watch: EtcdKv['watch'] = (req, handler) => this.inner.watch(req, handler);
  close: EtcdKv['close'] = () => this.inner.close();
  async txn(req: TxnRequest): Promise<TxnResponse> {
    try {
      const res = await this.inner.txn(req);
      this.outcomes.push(res.succeeded ? 'succeeded' : 'failed');
      return res;
    } catch (err) {
      this.outcomes.push('error');
      throw err;
    }
  }
}

/** A TCP server that accepts connections and never answers. */
async function blackHole(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => { sockets.add(s); s.on('data', () => undefined).on('error', () => undefined); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
}

/**
 * A TCP relay in front of etcd that can hang like a SIGSTOPped member: once frozen it keeps every
 * connection open and accepts new ones, but forwards nothing either way.
 */
async function freezingRelay(targetPort: number): Promise<{ url: string; freeze(): void; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let frozen = false;
  const server = net.createServer((down) => {
    sockets.add(down);
    down.on('error', () => undefined);
    if (frozen) return;
    const up = net.connect(targetPort, '127.0.0.1');
    sockets.add(up);
    const end = () => { down.destroy(); up.destroy(); };
    up.on('error', end).on('close', () => { if (!frozen) end(); });
    down.on('close', () => { if (!frozen) end(); });
    down.on('data', (chunk: Buffer) => { if (!frozen) up.write(chunk); });
    up.on('data', (chunk: Buffer) => { if (!frozen) down.write(chunk); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    freeze: () => { frozen = true; },
    close: () => new Promise<void>((resolve) => { for (const x of sockets) x.destroy(); server.close(() => resolve()); }),
  };
}

export function describeStorageContract(name: string, make: MakeKv): void {
  describe(`storage contract: ${name}`, function () {
    this.timeout(60_000);
    let etcd: TestEtcd;
    let storage: Etcd3Storage;
    const opened: EtcdKv[] = [];
    let n = 0;
    /** A fresh prefix per test. */
    let p: string;

    const client = (opts: EtcdClientOptions): EtcdKv => {
      const kv = make(opts);
      opened.push(kv);
      return kv;
    };

    before(async () => {
      etcd = await startTestEtcd();
      storage = new Etcd3Storage(client({ endpoints: [etcd.endpoint] }));
    });
    after(async () => {
      for (const kv of opened) await Promise.race([kv.close().catch(() => undefined), sleep(1_000)]);
      await etcd?.stop();
    });
    beforeEach(() => { p = `/contract/${name}/${++n}/`; });

    describe('create, update, delete (compare-and-swap)', () => {
      it('create writes a new key; a second create fails with the key as it is', async () => {
        const res = await storage.create(`${p}a`, b('v1'));
        expect(res.ok).to.equal(true);
        const got = await storage.get(`${p}a`);
        expect(got.kv).to.deep.include({ key: `${p}a`, createRevision: res.revision, modRevision: res.revision });
        expect(got.kv!.value.toString()).to.equal('v1');
        const again = await storage.create(`${p}a`, b('v2'));
        expect(again.ok).to.equal(false);
        expect(again.revision).to.be.at.least(res.revision);
        if (again.ok) return;
        expect(again.current!.value.toString()).to.equal('v1');
        expect(again.current!.modRevision).to.equal(res.revision);
        expect((await storage.get(`${p}a`)).kv!.value.toString()).to.equal('v1');
      });

      it('update succeeds at the current mod_revision and fails at a stale one, returning the key now', async () => {
        const c = await storage.create(`${p}a`, b('v1'));
        const u = await storage.update(`${p}a`, b('v2'), c.revision);
        expect(u.ok).to.equal(true);
        expect(u.revision).to.be.above(c.revision);
        const stale = await storage.update(`${p}a`, b('v3'), c.revision);
        expect(stale.ok).to.equal(false);
        if (stale.ok) return;
        expect(stale.current!.value.toString()).to.equal('v2');
        expect(stale.current!.modRevision).to.equal(u.revision);
        expect(stale.current!.createRevision).to.equal(c.revision);
        const got = await storage.get(`${p}a`);
        expect(got.kv!.value.toString()).to.equal('v2');
      });

      it('delete succeeds at the current mod_revision, fails at a stale one; update of a deleted key has no current', async () => {
        const c = await storage.create(`${p}a`, b('v1'));
        const u = await storage.update(`${p}a`, b('v2'), c.revision);
        const stale = await storage.delete(`${p}a`, c.revision);
        expect(stale.ok).to.equal(false);
        if (!stale.ok) expect(stale.current!.modRevision).to.equal(u.revision);
        const d = await storage.delete(`${p}a`, u.revision);
        expect(d.ok).to.equal(true);
        expect(d.revision).to.be.above(u.revision);
        const got = await storage.get(`${p}a`);
        expect(got.kv).to.equal(undefined);
        expect(got.revision).to.be.at.least(d.revision);
        const gone = await storage.update(`${p}a`, b('v3'), u.revision);
        expect(gone.ok).to.equal(false);
        if (!gone.ok) expect(gone.current).to.equal(undefined);
      });

      it('a key written with ttlSeconds is deleted by etcd when its lease ends; an update renews it; others stay', async () => {
        const granted = await storage['kv'].leaseGrant(30);
        expect(typeof granted.id).to.equal('bigint');
        expect(granted.id > 0n).to.equal(true);
        expect(granted.ttl).to.equal(30);
        const c = await storage.create(`${p}short`, b('v1'), { ttlSeconds: 2 });
        expect(c.ok).to.equal(true);
        await storage.create(`${p}kept`, b('v1'));
        await sleep(1_200);
        // Written again: a new lease of its own, counted from now.
        expect((await storage.update(`${p}short`, b('v2'), c.revision, { ttlSeconds: 2 })).ok).to.equal(true);
        await sleep(1_200);
        expect((await storage.get(`${p}short`)).kv?.value.toString(), 'renewed by the update').to.equal('v2');
        const deadline = Date.now() + 10_000;
        while ((await storage.get(`${p}short`)).kv && Date.now() < deadline) await sleep(200);
        expect((await storage.get(`${p}short`)).kv, 'expired').to.equal(undefined);
        expect((await storage.get(`${p}kept`)).kv?.value.toString()).to.equal('v1');
      });

      it('get of a missing key has no kv and the current revision', async () => {
        const rev = await storage.currentRevision();
        const got = await storage.get(`${p}missing`);
        expect(got.kv).to.equal(undefined);
        expect(got.revision).to.equal(rev);
      });
    });

    describe('ranges', () => {
      it('a prefix covers exactly its keys, in key order', async () => {
        for (const k of ['a/', 'a/b', 'a/c/d', 'a0', 'a', 'b/x']) await storage.create(`${p}${k}`, b(k));
        const res = await storage.range(`${p}a/`);
        expect(res.kvs.map((kv) => kv.key)).to.deep.equal([`${p}a/`, `${p}a/b`, `${p}a/c/d`]);
        expect(res.kvs.map((kv) => kv.value.toString())).to.deep.equal(['a/', 'a/b', 'a/c/d']);
        expect(res).to.include({ more: false, count: 3 });
        expect(res.revision).to.equal(await storage.currentRevision());
      });

      it('limit, more and count; startKey; countOnly', async () => {
        for (const k of ['k1', 'k2', 'k3', 'k4', 'k5']) await storage.create(`${p}${k}`, b(k));
        const first = await storage.range(p, { limit: 2 });
        expect(first.kvs.map((kv) => kv.key)).to.deep.equal([`${p}k1`, `${p}k2`]);
        expect(first).to.include({ more: true, count: 5 });
        const next = await storage.range(p, { startKey: `${p}k2\0`, limit: 2 });
        expect(next.kvs.map((kv) => kv.key)).to.deep.equal([`${p}k3`, `${p}k4`]);
        expect(next).to.include({ more: true, count: 3 });
        const last = await storage.range(p, { startKey: `${p}k5`, limit: 2 });
        expect(last.kvs.map((kv) => kv.key)).to.deep.equal([`${p}k5`]);
        expect(last).to.include({ more: false, count: 1 });
        const counted = await storage.range(p, { countOnly: true });
        expect(counted.kvs).to.deep.equal([]);
        expect(counted.count).to.equal(5);
      });

      it('a read at an old revision sees the data as it was then', async () => {
        const c = await storage.create(`${p}a`, b('old'));
        await storage.create(`${p}b`, b('b'));
        const u = await storage.update(`${p}a`, b('new'), c.revision);
        expect(u.ok).to.equal(true);
        const then = await storage.range(p, { revision: c.revision });
        expect(then.kvs.map((kv) => [kv.key, kv.value.toString()])).to.deep.equal([[`${p}a`, 'old']]);
        expect((await storage.get(`${p}a`, { revision: c.revision })).kv!.value.toString()).to.equal('old');
        expect((await storage.get(`${p}a`)).kv!.value.toString()).to.equal('new');
      });

      it('a future revision is FutureRevision', async () => {
        const now = await storage.currentRevision();
        const err = await storageErrorOf(storage.range(p, { revision: now + 1000 }));
        expect(err.code).to.equal('FutureRevision');
      });
    });

    describe('watch', () => {
      it('delivers creates, updates and deletes in order, with created and prevValue', async () => {
        const from = await storage.currentRevision();
        const rec = new Recorder();
        const h = await storage.watch(p, from, rec);
        try {
          const c = await storage.create(`${p}a`, b('v1'));
          const u = await storage.update(`${p}a`, b('v2'), c.revision);
          const d = await storage.delete(`${p}a`, u.revision);
          await until(() => rec.events.length >= 3, 'three events');
          expect(rec.events.map((e) => [e.type, e.key, e.value.toString(), e.prevValue?.toString(), e.revision, e.created])).to.deep.equal([
            ['put', `${p}a`, 'v1', undefined, c.revision, true],
            ['put', `${p}a`, 'v2', 'v1', u.revision, false],
            ['delete', `${p}a`, 'v2', undefined, d.revision, false],
          ]);
          expect(rec.batches.at(-1)).to.equal(d.revision);
          expect(rec.errors).to.deep.equal([]);
        } finally {
          await h.close();
        }
      });

      it('without prevValues, updates carry no previous value', async () => {
        const from = await storage.currentRevision();
        const rec = new Recorder();
        const h = await storage.watch(p, from, rec, { prevValues: false });
        try {
          const c = await storage.create(`${p}a`, b('v1'));
          const u = await storage.update(`${p}a`, b('v2'), c.revision);
          await storage.delete(`${p}a`, u.revision);
          await until(() => rec.events.length >= 3, 'three events');
          expect(rec.events.map((e) => [e.type, e.value.toString(), e.prevValue])).to.deep.equal([
            ['put', 'v1', undefined], ['put', 'v2', undefined], ['delete', '', undefined],
          ]);
        } finally {
          await h.close();
        }
      });

      it('replays history from an old revision, and only the watched prefix', async () => {
        const from = await storage.currentRevision();
        await storage.create(`${p}in/a`, b('1'));
        await storage.create(`${p}out`, b('x'));
        await storage.create(`${p}in/b`, b('2'));
        const rec = new Recorder();
        const h = await storage.watch(`${p}in/`, from, rec);
        try {
          await until(() => rec.events.length >= 2, 'two replayed events');
          await sleep(100);
          expect(rec.events.map((e) => e.key)).to.deep.equal([`${p}in/a`, `${p}in/b`]);
        } finally {
          await h.close();
        }
      });

      it('close() ends deliveries without onError; watching again from the last revision resumes exactly', async () => {
        const from = await storage.currentRevision();
        const rec = new Recorder();
        const h = await storage.watch(p, from, rec);
        await storage.create(`${p}a`, b('1'));
        await storage.create(`${p}b`, b('2'));
        await until(() => rec.events.length >= 2, 'two events');
        await h.close();
        await storage.create(`${p}c`, b('3'));
        await storage.create(`${p}d`, b('4'));
        await sleep(300);
        expect(rec.events.map((e) => e.key)).to.deep.equal([`${p}a`, `${p}b`]);
        expect(rec.errors).to.deep.equal([]);
        const again = new Recorder();
        const h2 = await storage.watch(p, rec.events[1].revision, again);
        try {
          await until(() => again.events.length >= 2, 'the two later events');
          await sleep(100);
          expect(again.events.map((e) => e.key)).to.deep.equal([`${p}c`, `${p}d`]);
        } finally {
          await h2.close();
        }
      });

      it('closing the client ends its watches with one onError Unavailable', async () => {
        const kv = client({ endpoints: [etcd.endpoint] });
        const s = new Etcd3Storage(kv);
        const rec = new Recorder();
        await s.watch(p, await storage.currentRevision(), rec);
        await storage.create(`${p}a`, b('1'));
        await until(() => rec.events.length >= 1, 'the event');
        await s.close();
        await storage.create(`${p}b`, b('2'));
        await sleep(300);
        expect(rec.events.length).to.equal(1);
        expect(rec.errors.map((e) => (e as StorageError).code)).to.deep.equal(['Unavailable']);
      });

      it('a lost connection ends the watch with one onError Unavailable, and it is not resumed inside the client', async () => {
        const relay = await startCuttingRelay(portOf(etcd.endpoint));
        try {
          const s = new Etcd3Storage(client({ endpoints: [relay.url], callTimeoutMs: 2_000 }));
          const rec = new Recorder();
          await s.watch(p, await storage.currentRevision(), rec);
          await storage.create(`${p}a`, b('1'));
          await until(() => rec.events.length >= 1, 'the first event');
          // Cut the connection without an answer to lose: any next write's event is swallowed.
          const cut = relay.loseNextAnswer();
          await storage.create(`${p}b`, b('2'));
          await cut;
          await until(() => rec.errors.length >= 1, 'onError');
          expect((rec.errors[0] as StorageError).code).to.equal('Unavailable');
          await storage.create(`${p}c`, b('3'));
          await sleep(1_500);
          expect(rec.errors.length).to.equal(1);
          expect(rec.events.map((e) => e.key)).to.deep.equal([`${p}a`]);
          // The client itself goes on: a new watch from the last revision seen gets the rest.
          const again = new Recorder();
          const h = await s.watch(p, rec.events[0].revision, again);
          await until(() => again.events.length >= 2, 'the events after the cut');
          expect(again.events.map((e) => e.key)).to.deep.equal([`${p}b`, `${p}c`]);
          await h.close();
        } finally {
          await relay.close();
        }
      });
    });

    describe('the underlying EtcdKv', () => {
      it('progress notifications arrive as responses without events, at the current revision', async () => {
        const e = await startEtcdProcess({ args: ['--experimental-watch-progress-notify-interval=300ms'] });
        try {
          const kv = client({ endpoints: [e.endpoint] });
          const s = new Etcd3Storage(kv);
          const c = await s.create('/progress/a', b('1'));
          const got: WatchResponse[] = [];
          const errors: Error[] = [];
          const handler: WatchStreamHandler = { onResponse: (r) => got.push(r), onError: (err) => errors.push(err) };
          const req: WatchCreateRequest = { key: b('/progress/'), rangeEnd: prefixEnd('/progress/'), startRevision: c.revision + 1, progressNotify: true };
          const w: EtcdKvWatch = await kv.watch(req, handler);
          try {
            await until(() => got.some((r) => r.events.length === 0), 'a progress notification');
            const progress = got.find((r) => r.events.length === 0)!;
            expect(progress.header.revision).to.equal(c.revision);
            expect(progress.canceled).to.equal(false);
            expect(errors).to.deep.equal([]);
          } finally {
            await w.close();
          }
        } finally {
          await e.stop();
        }
      });

      it('TLS: reads, writes and watches with the CA and a client certificate; without either, Unavailable', async () => {
        const e = await startEtcdProcess({ tls: true });
        try {
          const pki = e.pki!;
          const s = new Etcd3Storage(client({ endpoints: [e.endpoint], caFile: pki.caCertFile, certFile: pki.adminCertFile, keyFile: pki.adminKeyFile }));
          const rec = new Recorder();
          const h = await s.watch('/tls/', await s.currentRevision(), rec);
          const c = await s.create('/tls/a', b('secret'));
          expect(c.ok).to.equal(true);
          expect((await s.get('/tls/a')).kv!.value.toString()).to.equal('secret');
          await until(() => rec.events.length >= 1, 'the event over TLS');
          await h.close();
          for (const opts of [{ caFile: pki.caCertFile }, { certFile: pki.adminCertFile, keyFile: pki.adminKeyFile }]) {
            const bad = new Etcd3Storage(client({ endpoints: [e.endpoint], callTimeoutMs: 3_000, ...opts }));
            expect((await storageErrorOf(bad.get('/tls/a'))).code, JSON.stringify(Object.keys(opts))).to.equal('Unavailable');
          }
        } finally {
          await e.stop();
        }
      });
    });

    describe('errors', () => {
      it("a value over etcd's --max-request-bytes is RequestTooLarge and writes nothing", async () => {
        const err = await storageErrorOf(storage.create(`${p}big`, Buffer.alloc(2 * 1024 * 1024, 'x')));
        expect(err.code).to.equal('RequestTooLarge');
        expect((await storage.get(`${p}big`)).kv).to.equal(undefined);
        // The connection is still fine.
        expect((await storage.create(`${p}small`, b('x'))).ok).to.equal(true);
      });

      it('an endpoint with nothing listening is Unavailable, quickly', async () => {
        const s = new Etcd3Storage(client({ endpoints: [`http://127.0.0.1:${await freePort()}`] }));
        const { value: err, ms } = await timed(storageErrorOf(s.get('/k')));
        expect(err.code).to.equal('Unavailable');
        expect(ms).to.be.below(3_000);
        const w = await timed(storageErrorOf(s.create('/k', b('v'))));
        expect(w.value.code).to.equal('Unavailable');
        expect(w.ms).to.be.below(3_000);
      });

      it('etcd stopped under a connected client: reads, writes and watches are Unavailable, quickly', async () => {
        const own = await startTestEtcd();
        let stopped = false;
        try {
          const s = new Etcd3Storage(client({ endpoints: [own.endpoint] }));
          expect((await s.create('/stop/a', b('1'))).ok).to.equal(true);
          const rec = new Recorder();
          await s.watch('/stop/', await s.currentRevision(), rec);
          await own.stop();
          stopped = true;
          await until(() => rec.errors.length >= 1, 'onError of the watch');
          expect((rec.errors[0] as StorageError).code).to.equal('Unavailable');
          const r = await timed(storageErrorOf(s.get('/stop/a')));
          expect(r.value.code).to.equal('Unavailable');
          expect(r.ms).to.be.below(3_000);
          const w = await timed(storageErrorOf(s.create('/stop/b', b('2'))));
          expect(w.value.code).to.equal('Unavailable');
          expect(w.ms).to.be.below(3_000);
          await sleep(200);
          expect(rec.errors.length).to.equal(1);
        } finally {
          if (!stopped) await own.stop();
        }
      });

      it('a member without a leader answers Unavailable at once, not at the deadline', async () => {
        const two = await startTwoMembers();
        try {
          const s = new Etcd3Storage(client({ endpoints: [two.endpoints[0]], callTimeoutMs: 6_000 }));
          const created = await s.create('/leader/a', b('1'));
          expect(created.ok).to.equal(true);
          const rec = new Recorder();
          await s.watch('/leader/', await s.currentRevision(), rec);
          await two.kill(1);
          // Until m0 notices (an election timeout, 500 ms), calls may still be held; then refused at once.
          const deadline = Date.now() + 15_000;
          for (;;) {
            const r = await timed(s.get('/leader/a').then(() => undefined, (e: unknown) => e as StorageError));
            if (r.value instanceof StorageError && /no leader/.test(r.value.message)) {
              expect(r.value.code).to.equal('Unavailable');
              expect(r.ms, "well before the 6 s deadline").to.be.below(3_000);
              break;
            }
            if (Date.now() > deadline) throw new Error(`no "no leader" answer within 15 s (last: ${String(r.value)})`);
            await sleep(100);
          }
          const w = await timed(storageErrorOf(s.create('/leader/b', b('2'))));
          expect(w.value.code).to.equal('Unavailable');
          expect(w.ms, "well before the 6 s deadline").to.be.below(3_000);
          // A watch asked for with a leader is ended by the member when it has none (etcd checks
          // every few election timeouts): one onError Unavailable, so the Reflector can go elsewhere.
          await until(() => rec.errors.length >= 1, 'onError of the watch', 15_000);
          await sleep(200);
          expect(rec.errors.map((e) => (e as StorageError).code)).to.deep.equal(['Unavailable']);
        } finally {
          await two.stop();
        }
      });

      it('a member that stops answering (hung) is left after the keepalive: its watch ends with one onError Unavailable, calls and watches go to the next endpoint', async () => {
        const relay = await freezingRelay(portOf(etcd.endpoint));
        try {
          // The first endpoint is the relay (the hung member to be), the second etcd itself.
          const s = new Etcd3Storage(client({ endpoints: [relay.url, etcd.endpoint], keepaliveIntervalMs: 500, keepaliveTimeoutMs: 500 }));
          expect((await s.create(`${p}a`, b('1'))).ok).to.equal(true);
          const rec = new Recorder();
          await s.watch(p, await s.currentRevision(), rec);
          relay.freeze();
          const frozenAt = Date.now();
          // Found by the probe (interval + timeout), with slack for a loaded machine.
          await until(() => rec.errors.length >= 1, 'onError of the watch on the hung member', 10_000);
          expect(Date.now() - frozenAt).to.be.below(5_000);
          expect((rec.errors[0] as StorageError).code).to.equal('Unavailable');
          const r = await timed(s.get(`${p}a`));
          expect(r.value.kv?.value.toString()).to.equal('1');
          expect(r.ms).to.be.below(2_000);
          const rec2 = new Recorder();
          await s.watch(p, await s.currentRevision(), rec2);
          expect((await s.create(`${p}b`, b('2'))).ok).to.equal(true);
          await until(() => rec2.events.length >= 1, 'the event on the new watch');
          expect(rec2.events.map((e) => e.key)).to.deep.equal([`${p}b`]);
          await sleep(300);
          expect(rec.errors.length, 'onError calls of the first watch').to.equal(1);
          expect(rec2.errors).to.deep.equal([]);
        } finally {
          await relay.close();
        }
      });

      it('an endpoint that accepts and never answers fails within the deadline (Timeout or Unavailable)', async () => {
        const hole = await blackHole();
        try {
          const s = new Etcd3Storage(client({ endpoints: [hole.url], callTimeoutMs: 500 }));
          const r = await timed(storageErrorOf(s.get('/k')));
          expect(r.value.code).to.be.oneOf(['Timeout', 'Unavailable']);
          expect(r.ms).to.be.within(200, 4_000);
          // A write is retried once (it may have been applied): two deadlines at most.
          const w = await timed(storageErrorOf(s.create('/k', b('v'))));
          expect(w.value.code).to.be.oneOf(['Timeout', 'Unavailable']);
          expect(w.ms).to.be.below(5_000);
        } finally {
          await hole.close();
        }
      });
    });

    describe('indeterminate compare-and-swap (the answer lost with the connection)', () => {
      let relay: Awaited<ReturnType<typeof startCuttingRelay>>;
      let log: TxnLog;
      let s: Etcd3Storage;
      before(async () => {
        relay = await startCuttingRelay(portOf(etcd.endpoint));
        log = new TxnLog(client({ endpoints: [relay.url], callTimeoutMs: 3_000 }));
        s = new Etcd3Storage(log);
      });
      after(async () => { await relay?.close(); });
      beforeEach(async () => {
        await s.get(`${p}warm`); // a connection through the relay, before the answer is lost
        log.outcomes = [];
      });

      /** Runs `write` while the relay loses its answer; returns the events etcd recorded for `p`. */
      async function withLostAnswer<T>(write: () => Promise<T>): Promise<{ result: T; events: StorageEvent[] }> {
        const rec = new Recorder();
        const h: WatchHandle = await storage.watch(p, await storage.currentRevision(), rec);
        try {
          const cuts = relay.cuts;
          const cut = relay.loseNextAnswer();
          const result = await write();
          await cut;
          expect(relay.cuts).to.equal(cuts + 1);
          await sleep(200);
          return { result, events: rec.events };
        } finally {
          await h.close();
        }
      }

      it('a create applied before the connection was lost is reported as done, with its revision', async () => {
        const { result, events } = await withLostAnswer(() => s.create(`${p}a`, b('mine')));
        expect(result.ok).to.equal(true);
        // The first Txn's answer was lost; the retry found the key holding our bytes.
        expect(log.outcomes).to.deep.equal(['error', 'failed']);
        const got = await storage.get(`${p}a`);
        expect(got.kv!.value.toString()).to.equal('mine');
        expect(result.revision).to.equal(got.kv!.modRevision);
        expect(events.map((e) => [e.type, e.key, e.revision])).to.deep.equal([['put', `${p}a`, result.revision]]);
      });

      it('an update likewise', async () => {
        const c = await storage.create(`${p}a`, b('v1'));
        const { result, events } = await withLostAnswer(() => s.update(`${p}a`, b('v2'), c.revision));
        expect(result.ok).to.equal(true);
        expect(log.outcomes).to.deep.equal(['error', 'failed']);
        const got = await storage.get(`${p}a`);
        expect(got.kv!.value.toString()).to.equal('v2');
        expect(result.revision).to.equal(got.kv!.modRevision);
        expect(events.map((e) => [e.type, e.value.toString()])).to.deep.equal([['put', 'v2']]);
      });

      it("a create that lost to another writer stays a conflict (their bytes are not ours)", async () => {
        await storage.create(`${p}a`, b('theirs'));
        const { result, events } = await withLostAnswer(() => s.create(`${p}a`, b('mine')));
        expect(result.ok).to.equal(false);
        if (!result.ok) expect(result.current!.value.toString()).to.equal('theirs');
        expect(events).to.deep.equal([]);
      });

      it('a delete whose answer was lost cannot be told from another\'s: it fails, and the key is gone', async () => {
        const c = await storage.create(`${p}a`, b('v1'));
        const { result: err, events } = await withLostAnswer(() => storageErrorOf(s.delete(`${p}a`, c.revision)));
        expect(err.code).to.be.oneOf(['Unavailable', 'Timeout']);
        expect(log.outcomes).to.deep.equal(['error', 'failed']);
        expect((await storage.get(`${p}a`)).kv).to.equal(undefined);
        expect(events.map((e) => e.type)).to.deep.equal(['delete']);
      });
    });

    describe('compaction', () => {
      it('reads and watches from before the compacted revision are Compacted, with the compact revision', async () => {
        const r1 = (await storage.create(`${p}a`, b('1'))).revision;
        await storage.create(`${p}b`, b('2'));
        await storage.create(`${p}c`, b('3'));
        const r4 = (await storage.create(`${p}d`, b('4'))).revision;
        await storage.compact(r4);
        expect((await storageErrorOf(storage.range(p, { revision: r1 }))).code).to.equal('Compacted');
        expect((await storageErrorOf(storage.get(`${p}a`, { revision: r1 }))).code).to.equal('Compacted');
        // At the compacted revision itself, history is still there.
        expect((await storage.range(p, { revision: r4 })).kvs.length).to.equal(4);
        // A watch from before it: a rejected start or one onError, either way Compacted.
        const rec = new Recorder();
        let err: StorageError;
        try {
          const h = await storage.watch(p, r1, rec);
          await until(() => rec.errors.length >= 1, 'onError Compacted');
          err = rec.errors[0] as StorageError;
          await h.close();
        } catch (e) {
          err = e as StorageError;
        }
        expect(err).to.be.instanceOf(StorageError);
        expect(err.code).to.equal('Compacted');
        expect(err.compactRevision).to.equal(r4);
        expect(rec.events).to.deep.equal([]);
        // Compacting to a revision already compacted is Compacted too.
        expect((await storageErrorOf(storage.compact(r4 - 1))).code).to.equal('Compacted');
      });
    });
  });
}
