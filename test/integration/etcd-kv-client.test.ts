/**
 * The lean etcd KV client (lib/storage/etcd3/kv-client.ts) against a real etcd: Range, Txn and
 * Compact with the fields the store uses, etcd's errors as StorageError codes, dead and restarted
 * endpoints, deadlines, many calls at once, and TLS with client certificates. Writes are
 * cross-checked with the etcd3 package's client where it matters.
 */
import { expect } from 'chai';
import { promises as fsp } from 'fs';
import * as net from 'net';
import * as http2 from 'http2';
import * as os from 'os';
import * as path from 'path';
import { Etcd3 } from 'etcd3';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { eventually } from '../helpers/server-harness';
import { portOf, startRelay } from '../helpers/tcp-relay';
import { createEtcdClient } from '../../lib/storage/etcd3/client';
import { EtcdKvClient } from '../../lib/storage/etcd3/kv-client';
import { RangeResponse, TxnResponse } from '../../lib/storage/etcd3/kv-types';
import { prefixEnd } from '../../lib/storage/etcd3/store';
import { startEmbeddedEtcd } from '../../lib/server/embedded-etcd';
import type { Pki } from '../../lib/server/pki';
import { StorageError } from '../../lib/storage/errors';
import { EtcdProcess, startEtcdProcess } from '../contract/etcd-process';
import { freeLoopbackPort } from '../helpers/free-port';

const b = (s: string) => Buffer.from(s);

/** The StorageError a call rejects with (fails the test when it resolves). */
async function storageErrorOf(p: Promise<unknown>): Promise<StorageError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(StorageError);
    return err as StorageError;
  }
  throw new Error('expected the call to fail');
}

async function timed<T>(p: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await p;
  return { value, ms: Date.now() - started };
}

/** A loopback port with nothing listening on it. */
const deadPort = freeLoopbackPort;

const kvView = (r: RangeResponse) => r.kvs.map((kv) => [kv.key.toString(), kv.value.toString()]);

describe('EtcdKvClient', function () {
  this.timeout(60_000);
  let etcd: TestEtcd;
  let client: EtcdKvClient;
  let etcd3: Etcd3;

  const put = async (key: string, value: string) => Number((await etcd3.put(key).value(value).exec()).header.revision);

  before(async () => {
    etcd = await startTestEtcd();
    client = new EtcdKvClient({ endpoints: [etcd.endpoint] });
    etcd3 = createEtcdClient({ endpoints: [etcd.endpoint] });
  });
  after(async () => {
    await client?.close();
    etcd3?.close();
    await etcd?.stop();
  });

  describe('Range', () => {
    it('reads one key with its revisions and version, as etcd3 wrote it', async () => {
      const r1 = await put('/one/a', 'v1');
      const r2 = await put('/one/a', 'v2');
      const res = await client.range({ key: b('/one/a') });
      expect(res.header.revision).to.equal(r2);
      expect(res.count).to.equal(1);
      expect(res.more).to.equal(false);
      expect(res.kvs).to.have.length(1);
      const kv = res.kvs[0];
      expect(kv.key.toString()).to.equal('/one/a');
      expect(kv.value.toString()).to.equal('v2');
      expect(kv).to.include({ createRevision: r1, modRevision: r2, version: 2 });
      const missing = await client.range({ key: b('/one/missing') });
      expect(missing).to.deep.equal({ header: { revision: r2, raftTerm: res.header.raftTerm }, kvs: [], more: false, count: 0 });
      expect(res.header.raftTerm, "the member's raft term").to.be.greaterThan(0);
    });

    it('reads a prefix in key order, with limit, more and count', async () => {
      for (const k of ['c', 'a', 'e', 'b', 'd']) await put(`/prefix/${k}`, `v-${k}`);
      await put('/prefix0', 'outside');
      const all = await client.range({ key: b('/prefix/'), rangeEnd: prefixEnd('/prefix/') });
      expect(kvView(all)).to.deep.equal(['a', 'b', 'c', 'd', 'e'].map((k) => [`/prefix/${k}`, `v-${k}`]));
      expect(all).to.include({ more: false, count: 5 });
      const page = await client.range({ key: b('/prefix/'), rangeEnd: prefixEnd('/prefix/'), limit: 2 });
      expect(kvView(page).map(([k]) => k)).to.deep.equal(['/prefix/a', '/prefix/b']);
      expect(page).to.include({ more: true, count: 5 });
      const rest = await client.range({ key: b('/prefix/c'), rangeEnd: prefixEnd('/prefix/'), limit: 3 });
      expect(kvView(rest).map(([k]) => k)).to.deep.equal(['/prefix/c', '/prefix/d', '/prefix/e']);
      expect(rest).to.include({ more: false, count: 3 });
    });

    it('keysOnly returns keys and revisions without values; countOnly only the count', async () => {
      for (const k of ['x', 'y', 'z']) await put(`/keys/${k}`, 'some value');
      const keys = await client.range({ key: b('/keys/'), rangeEnd: prefixEnd('/keys/'), keysOnly: true });
      expect(keys.kvs.map((kv) => kv.key.toString())).to.deep.equal(['/keys/x', '/keys/y', '/keys/z']);
      expect(keys.kvs.every((kv) => kv.value.length === 0 && kv.modRevision > 0)).to.equal(true);
      const count = await client.range({ key: b('/keys/'), rangeEnd: prefixEnd('/keys/'), countOnly: true });
      expect(count.kvs).to.deep.equal([]);
      expect(count.count).to.equal(3);
      expect(count.header.revision).to.be.above(0);
    });

    it('minModRevision keeps only the keys changed since, while count covers every key', async () => {
      for (let i = 0; i < 4; i++) await put(`/minmod/k${i}`, 'v');
      const since = await put('/other/x', 'v');
      await put('/minmod/k1', 'v2');
      const last = await put('/minmod/k3', 'v2');
      const res = await client.range({ key: b('/minmod/'), rangeEnd: prefixEnd('/minmod/'), keysOnly: true, minModRevision: since + 1 });
      expect(res.kvs.map((kv) => [kv.key.toString(), kv.modRevision])).to.deep.equal([['/minmod/k1', last - 1], ['/minmod/k3', last]]);
      expect(res.count).to.equal(4);
    });

    it('reads at an older revision, and serializably', async () => {
      const r1 = await put('/rev/k', 'old');
      await put('/rev/k', 'new');
      const old = await client.range({ key: b('/rev/k'), revision: r1 });
      expect(old.kvs[0].value.toString()).to.equal('old');
      expect(old.kvs[0].modRevision).to.equal(r1);
      const before = await client.range({ key: b('/rev/k'), revision: r1 - 1 });
      expect(before.kvs).to.deep.equal([]);
      const serializable = await client.range({ key: b('/rev/k'), serializable: true });
      expect(serializable.kvs[0].value.toString()).to.equal('new');
    });

    it('reads a range of ~12 MB in one answer', async () => {
      const value = Buffer.alloc(4000, 'x');
      for (let batch = 0; batch < 30; batch++) {
        const ops = [];
        for (let i = 0; i < 100; i++) ops.push({ put: { key: b(`/big/${String(batch * 100 + i).padStart(5, '0')}`), value } });
        expect((await client.txn({ success: ops })).succeeded).to.equal(true);
      }
      const res = await client.range({ key: b('/big/'), rangeEnd: prefixEnd('/big/') });
      expect(res.kvs).to.have.length(3000);
      expect(res.count).to.equal(3000);
      expect(res.kvs[2999].key.toString()).to.equal('/big/02999');
      expect(res.kvs.every((kv) => kv.value.equals(value))).to.equal(true);
    });
  });

  describe('Txn', () => {
    const create = (key: string, value: string) => client.txn({
      compare: [{ key: b(key), target: 'Create', result: 'Equal', createRevision: 0 }],
      success: [{ put: { key: b(key), value: b(value) } }],
      failure: [{ range: { key: b(key) } }],
    });
    const update = (key: string, value: string, modRevision: number) => client.txn({
      compare: [{ key: b(key), target: 'Mod', result: 'Equal', modRevision }],
      success: [{ put: { key: b(key), value: b(value) } }],
      failure: [{ range: { key: b(key) } }],
    });
    const current = (res: TxnResponse) => res.responses[0].responseRange!.kvs[0];

    it('create: succeeds once (create_revision 0 is sent), then fails with the key as it is', async () => {
      const ok = await create('/txn/create', 'first');
      expect(ok.succeeded).to.equal(true);
      expect(ok.responses).to.deep.equal([{ responsePut: { header: { revision: ok.header.revision } } }]);
      expect((await etcd3.get('/txn/create').string())).to.equal('first');
      const lost = await create('/txn/create', 'second');
      expect(lost.succeeded).to.equal(false);
      expect(lost.header.revision).to.equal(ok.header.revision);
      expect(current(lost).value.toString()).to.equal('first');
      expect(current(lost)).to.include({ createRevision: ok.header.revision, modRevision: ok.header.revision, version: 1 });
    });

    it('update on mod_revision: the right one wins, a stale one reads the current key', async () => {
      const created = (await create('/txn/update', 'v1')).header.revision;
      const updated = await update('/txn/update', 'v2', created);
      expect(updated.succeeded).to.equal(true);
      const stale = await update('/txn/update', 'v3', created);
      expect(stale.succeeded).to.equal(false);
      expect(current(stale).value.toString()).to.equal('v2');
      expect(current(stale).modRevision).to.equal(updated.header.revision);
      const missing = await update('/txn/absent', 'v', 5);
      expect(missing.succeeded).to.equal(false);
      expect(missing.responses[0].responseRange!.kvs).to.deep.equal([]);
    });

    it('delete on mod_revision, and the other compare targets and results', async () => {
      const rev = (await create('/txn/delete', 'v')).header.revision;
      const del = await client.txn({
        compare: [{ key: b('/txn/delete'), target: 'Mod', result: 'Equal', modRevision: rev }],
        success: [{ deleteRange: { key: b('/txn/delete') } }],
      });
      expect(del.succeeded).to.equal(true);
      expect(del.responses[0].responseDeleteRange).to.deep.equal({ header: { revision: rev + 1 }, deleted: 1 });
      expect((await client.range({ key: b('/txn/delete') })).kvs).to.deep.equal([]);

      await put('/txn/cmp', 'abc');
      const cases: Array<[Parameters<EtcdKvClient['txn']>[0]['compare'], boolean]> = [
        [[{ key: b('/txn/cmp'), target: 'Version', result: 'Equal', version: 1 }], true],
        [[{ key: b('/txn/cmp'), target: 'Version', result: 'Equal', version: 0 }], false],
        [[{ key: b('/txn/none'), target: 'Version', result: 'Equal', version: 0 }], true],
        [[{ key: b('/txn/cmp'), target: 'Version', result: 'Greater', version: 0 }], true],
        [[{ key: b('/txn/cmp'), target: 'Mod', result: 'Less', modRevision: 1 }], false],
        [[{ key: b('/txn/cmp'), target: 'Create', result: 'NotEqual', createRevision: 0 }], true],
        [[{ key: b('/txn/cmp'), target: 'Value', result: 'Equal', value: b('abc') }], true],
        [[{ key: b('/txn/cmp'), target: 'Value', result: 'Equal', value: b('abd') }], false],
        [[{ key: b('/txn/cmp'), target: 'Value', result: 'Greater', value: b('') }], true],
      ];
      for (const [compare, expected] of cases) {
        expect((await client.txn({ compare })).succeeded, JSON.stringify(compare)).to.equal(expected);
      }
    });

    it('several operations answer in order; the failure branch reads', async () => {
      const res = await client.txn({
        compare: [{ key: b('/txn/multi/guard'), target: 'Create', result: 'Equal', createRevision: 0 }],
        success: [
          { put: { key: b('/txn/multi/a'), value: b('1') } },
          { put: { key: b('/txn/multi/b'), value: Buffer.alloc(0) } },
          { range: { key: b('/txn/multi/'), rangeEnd: prefixEnd('/txn/multi/') } },
        ],
      });
      expect(res.succeeded).to.equal(true);
      expect(Object.keys(res.responses[0])).to.deep.equal(['responsePut']);
      expect(Object.keys(res.responses[1])).to.deep.equal(['responsePut']);
      // Operations apply in order: the range sees the puts before it.
      expect(kvView(res.responses[2].responseRange!)).to.deep.equal([['/txn/multi/a', '1'], ['/txn/multi/b', '']]);
      const both = await client.txn({ success: [
        { range: { key: b('/txn/multi/'), rangeEnd: prefixEnd('/txn/multi/') } },
        { deleteRange: { key: b('/txn/multi/'), rangeEnd: prefixEnd('/txn/multi/') } },
      ] });
      expect(kvView(both.responses[0].responseRange!)).to.deep.equal([['/txn/multi/a', '1'], ['/txn/multi/b', '']]);
      expect(both.responses[1].responseDeleteRange!.deleted).to.equal(2);
      await put('/txn/multi/guard', 'x');
      const failed = await client.txn({
        compare: [{ key: b('/txn/multi/guard'), target: 'Create', result: 'Equal', createRevision: 0 }],
        success: [{ put: { key: b('/txn/multi/a'), value: b('1') } }],
        failure: [{ range: { key: b('/txn/multi/guard'), countOnly: true } }],
      });
      expect(failed.succeeded).to.equal(false);
      expect(failed.responses[0].responseRange).to.include({ count: 1, more: false });
    });

    it('500 transactions at once all land, and concurrent CAS on one key lets exactly one win', async function () {
      const results = await Promise.all(Array.from({ length: 500 }, (_, i) => create(`/many/k${String(i).padStart(3, '0')}`, `value-${i}`)));
      expect(results.every((r) => r.succeeded)).to.equal(true);
      expect(new Set(results.map((r) => r.header.revision)).size).to.equal(500);
      const [reads, list] = await Promise.all([
        Promise.all(Array.from({ length: 500 }, (_, i) => client.range({ key: b(`/many/k${String(i).padStart(3, '0')}`) }))),
        client.range({ key: b('/many/'), rangeEnd: prefixEnd('/many/') }),
      ]);
      reads.forEach((r, i) => expect(r.kvs[0].value.toString()).to.equal(`value-${i}`));
      expect(list.count).to.equal(500);

      const base = (await create('/many/contended', 'v0')).header.revision;
      const racers = await Promise.all(Array.from({ length: 100 }, (_, i) => update('/many/contended', `v${i + 1}`, base)));
      const winners = racers.filter((r) => r.succeeded);
      expect(winners).to.have.length(1);
      const losers = racers.filter((r) => !r.succeeded);
      expect(losers.every((r) => current(r).modRevision === winners[0].header.revision)).to.equal(true);
    });
  });

  describe("etcd's errors", () => {
    it('compact, then a read of a compacted revision is Compacted; compacting again too', async () => {
      const old = await put('/compact/k', 'v1');
      const now = await put('/compact/k', 'v2');
      const res = await client.compact(now);
      expect(res.header.revision).to.be.at.least(now);
      const err = await storageErrorOf(client.range({ key: b('/compact/k'), revision: old }));
      expect(err.code).to.equal('Compacted');
      expect((await client.range({ key: b('/compact/k'), revision: now })).kvs[0].value.toString()).to.equal('v2');
      expect((await storageErrorOf(client.compact(old))).code).to.equal('Compacted');
    });

    it('a future revision is FutureRevision', async () => {
      const now = (await client.range({ key: b('/x') })).header.revision;
      expect((await storageErrorOf(client.range({ key: b('/x'), revision: now + 1000 }))).code).to.equal('FutureRevision');
    });

    it("a put over etcd's --max-request-bytes (1.5 MiB) is RequestTooLarge, also past gRPC's own limit", async () => {
      const over = await storageErrorOf(client.txn({ success: [{ put: { key: b('/large/a'), value: Buffer.alloc(1600 * 1024, 'x') } }] }));
      expect(over).to.include({ code: 'RequestTooLarge' });
      expect(over.message).to.include('request is too large');
      // Past max-request-bytes + 512 KiB, grpc-go itself refuses the message (ResourceExhausted).
      const farOver = await storageErrorOf(client.txn({ success: [{ put: { key: b('/large/b'), value: Buffer.alloc(3 * 1024 * 1024, 'x') } }] }));
      expect(farOver.code).to.equal('RequestTooLarge');
      expect((await client.range({ key: b('/large/'), rangeEnd: prefixEnd('/large/'), countOnly: true })).count).to.equal(0);
      // The session is still fine.
      expect((await client.range({ key: b('/large/a') })).kvs).to.deep.equal([]);
    });
  });

  describe('connections', () => {
    it('an endpoint with nothing listening is Unavailable, quickly', async () => {
      const dead = new EtcdKvClient({ endpoints: [`http://127.0.0.1:${await deadPort()}`] });
      try {
        const { value: err, ms } = await timed(storageErrorOf(dead.range({ key: b('/k') })));
        expect(err.code).to.equal('Unavailable');
        expect(err.message).to.include('ECONNREFUSED');
        expect(ms).to.be.below(1000);
        // And again: no state left behind that makes the second call hang.
        expect((await storageErrorOf(dead.txn({ success: [{ put: { key: b('/k'), value: b('v') } }] }))).code).to.equal('Unavailable');
      } finally {
        await dead.close();
      }
    });

    it('with the first endpoint dead, calls go to the second', async () => {
      const two = new EtcdKvClient({ endpoints: [`http://127.0.0.1:${await deadPort()}`, etcd.endpoint] });
      try {
        const rev = await put('/two/k', 'v');
        const res = await two.range({ key: b('/two/k') });
        expect(res.kvs[0].modRevision).to.equal(rev);
        expect((await two.txn({ success: [{ put: { key: b('/two/k'), value: b('w') } }] })).succeeded).to.equal(true);
      } finally {
        await two.close();
      }
    });

    it('an endpoint that accepts TCP but never answers HTTP/2 fails the dial with Unavailable, within the dial budget', async () => {
      // Accepts the connection, reads and never answers (what a SIGSTOPped member's kernel does).
      const sockets = new Set<net.Socket>();
      const blackHole = net.createServer((s) => { sockets.add(s); s.on('data', () => undefined).on('error', () => undefined); });
      await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
      const slow = new EtcdKvClient({ endpoints: [`http://127.0.0.1:${(blackHole.address() as net.AddressInfo).port}`], callTimeoutMs: 5_000, dialTimeoutMs: 300 });
      try {
        const { value: err, ms } = await timed(storageErrorOf(slow.range({ key: b('/k') })));
        expect(err.code).to.equal('Unavailable');
        expect(err.message).to.match(/no answer within 300 ms/);
        expect(err.sent, 'nothing reached etcd').to.equal(false);
        expect(ms).to.be.within(250, 2000);
      } finally {
        await Promise.race([slow.close(), new Promise((r) => setTimeout(r, 100))]);
        for (const s of sockets) s.destroy();
        await new Promise<void>((resolve) => blackHole.close(() => resolve()));
      }
    });

    it('a call without an answer fails with Timeout at its deadline, marked as sent; a Txn has the shorter write deadline', async () => {
      // An HTTP/2 server that takes every call and never answers.
      const server = http2.createServer();
      server.on('stream', (stream) => { stream.on('error', () => undefined); stream.resume(); });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
      const slow = new EtcdKvClient({ endpoints: [url], callTimeoutMs: 1_200, txnTimeoutMs: 400, keepaliveIntervalMs: 0 });
      try {
        const read = await timed(storageErrorOf(slow.range({ key: b('/k') })));
        expect(read.value.code).to.equal('Timeout');
        expect(read.value.sent).to.equal(true);
        expect(read.ms).to.be.within(1_100, 4_000);
        const write = await timed(storageErrorOf(slow.txn({ success: [{ put: { key: b('/k'), value: b('v') } }] })));
        expect(write.value.code).to.equal('Timeout');
        expect(write.value.sent, 'a write that may have been applied').to.equal(true);
        expect(write.ms).to.be.within(350, 1_100);
      } finally {
        await Promise.race([slow.close(), new Promise((r) => setTimeout(r, 100))]);
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    it('after close, calls fail with Unavailable', async () => {
      const c = new EtcdKvClient({ endpoints: [etcd.endpoint] });
      await c.range({ key: b('/k') });
      await c.close();
      expect((await storageErrorOf(c.range({ key: b('/k') }))).code).to.equal('Unavailable');
    });

    it('etcd stopped: calls fail with Unavailable; restarted: they succeed again', async function () {
      this.timeout(90_000);
      const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-kv-restart-'));
      let node = await startEmbeddedEtcd({ dataDir, etcdBinary: process.env.ETCD_BINARY || undefined });
      const relay = await startRelay(portOf(node.clientUrl));
      const c = new EtcdKvClient({ endpoints: [relay.url], callTimeoutMs: 6_000 });
      try {
        const written = await c.txn({ success: [{ put: { key: b('/restart/k'), value: b('before') } }] });
        expect(written.succeeded).to.equal(true);
        await node.stop();
        for (let i = 0; i < 3; i++) {
          const { value: err, ms } = await timed(storageErrorOf(c.range({ key: b('/restart/k') })));
          expect(err.code).to.equal('Unavailable');
          expect(ms, 'refused, not held until the 6 s deadline').to.be.below(3_000);
        }
        node = await startEmbeddedEtcd({ dataDir, etcdBinary: process.env.ETCD_BINARY || undefined });
        relay.retarget(portOf(node.clientUrl));
        const res = await eventually(async () => c.range({ key: b('/restart/k') }).catch(() => undefined), 30_000, 50);
        expect(res.kvs[0].value.toString()).to.equal('before');
        expect(res.kvs[0].modRevision).to.equal(written.header.revision);
        const again = await c.txn({ success: [{ put: { key: b('/restart/k'), value: b('after') } }] });
        expect(again.header.revision).to.equal(written.header.revision + 1);
      } finally {
        await c.close();
        await relay.close();
        await node.stop();
        await fsp.rm(dataDir, { recursive: true, force: true });
      }
    });
  });

  describe('TLS with client certificates', () => {
    let tls: (EtcdProcess & { pki: Pki }) | undefined;
    before(async function () {
      this.timeout(60_000);
      tls = await startEtcdProcess({ tls: true }) as EtcdProcess & { pki: Pki };
    });
    after(async () => {
      await tls?.stop();
    });

    it('reads and writes over https with the CA and a client certificate', async () => {
      const { endpoint, pki } = tls!;
      const c = new EtcdKvClient({ endpoints: [endpoint], caFile: pki.caCertFile, certFile: pki.adminCertFile, keyFile: pki.adminKeyFile });
      try {
        const w = await c.txn({
          compare: [{ key: b('/tls/k'), target: 'Create', result: 'Equal', createRevision: 0 }],
          success: [{ put: { key: b('/tls/k'), value: b('secret') } }],
        });
        expect(w.succeeded).to.equal(true);
        const r = await c.range({ key: b('/tls/k') });
        expect(r.kvs[0].value.toString()).to.equal('secret');
        expect(r.kvs[0].modRevision).to.equal(w.header.revision);
      } finally {
        await c.close();
      }
    });

    it('without a client certificate, or without trusting the CA, etcd is Unavailable', async () => {
      const { endpoint, pki } = tls!;
      for (const opts of [{ caFile: pki.caCertFile }, { certFile: pki.adminCertFile, keyFile: pki.adminKeyFile }]) {
        const c = new EtcdKvClient({ endpoints: [endpoint], ...opts });
        try {
          expect((await storageErrorOf(c.range({ key: b('/tls/k') }))).code).to.equal('Unavailable');
        } finally {
          await c.close();
        }
      }
    });
  });
});
