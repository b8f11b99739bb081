/**
 * A watcher that stops reading: a watch over a raw TLS socket (HTTP/1.1) that never reads while
 * thousands of ~1 KiB ConfigMaps are written. The server ends that watch (its queue fills: 1,000
 * events or 8 MiB), cuts the connection when the end cannot be flushed, and its memory stays
 * bounded (process_resident_memory_bytes of the server process); a watcher that reads still gets
 * every event.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { ServerProcess, startServerProcess } from '../helpers/server-process';
import { H2Client, readKubeconfig, recordResult, rssMiB, watchH2 } from '../helpers/process-client';
import { parseExposition } from '../helpers/prom-text';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NS = 'default';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const COUNT = 5000;
const CONCURRENCY = 16;

/** A watch over its own TLS connection (HTTP/1.1) that sends its request and then never reads. */
async function neverReadingWatch(creds: ReturnType<typeof readKubeconfig>, urlPath: string) {
  const url = new URL(creds.url);
  const socket = tls.connect({ host: url.hostname, port: Number(url.port), ca: creds.ca, cert: creds.cert, key: creds.key, ALPNProtocols: ['http/1.1'] });
  await new Promise<void>((resolve, reject) => { socket.once('secureConnect', () => resolve()); socket.once('error', reject); });
  const state = { closed: false, received: '' };
  socket.on('close', () => { state.closed = true; });
  socket.on('error', () => undefined);
  socket.write(`GET ${urlPath} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: application/json\r\n\r\n`);
  socket.pause();
  return {
    state,
    /** Reads what the server sent, until the connection closes (at most `ms`). */
    async drainUntilClosed(ms: number): Promise<boolean> {
      socket.setEncoding('utf8').on('data', (c: string) => { state.received += c; });
      socket.resume();
      const deadline = Date.now() + ms;
      while (!state.closed && Date.now() < deadline) await sleep(100);
      return state.closed;
    },
    destroy: () => socket.destroy(),
  };
}

const registeredWatchersOf = async (client: H2Client): Promise<number> => {
  const res = await client.request('GET', '/metrics');
  return parseExposition(res.text).value('apiserver_registered_watchers', { kind: 'ConfigMap' });
};

describe('Slow watcher (server process on a real etcd)', function () {
  this.timeout(180_000);
  let etcd: TestEtcd;
  let dir: string;
  let server: ServerProcess;
  let client: H2Client;

  before(async () => {
    etcd = await startTestEtcd();
    dir = mkdtempSync(path.join(os.tmpdir(), 'orch-slow-watch-'));
    server = await startServerProcess([`--data-dir=${dir}`, `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', '--flavor=kubernetes', '--log-level=error'], { timeoutMs: 60_000 });
    client = new H2Client(readKubeconfig(server.kubeconfigPath));
  });
  after(async () => {
    client?.destroy();
    await server?.stop(20_000);
    await etcd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('ends a watch whose client never reads, with bounded server memory, while a reading watcher gets every event', async () => {
    const creds = readKubeconfig(server.kubeconfigPath);
    const list = await client.request('GET', CM);
    const rv = list.body.metadata.resourceVersion as string;

    // The reader that never reads: a request line and headers, then the socket is paused.
    const url = new URL(creds.url);
    const slow = tls.connect({ host: url.hostname, port: Number(url.port), ca: creds.ca, cert: creds.cert, key: creds.key, ALPNProtocols: ['http/1.1'] });
    await new Promise<void>((resolve, reject) => { slow.once('secureConnect', () => resolve()); slow.once('error', reject); });
    let slowClosed = false;
    slow.on('close', () => { slowClosed = true; });
    slow.on('error', () => undefined);
    slow.write(`GET ${CM}?watch=true&resourceVersion=${rv} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: application/json\r\n\r\n`);
    slow.pause();

    // A watcher that reads, over HTTP/2.
    const reader = await watchH2(client, `${CM}?watch=true&resourceVersion=${rv}`);
    expect(reader.status).to.equal(200);
    for (let i = 0; (await registeredWatchersOf(client)) < 2; i++) {
      expect(i, 'both watches registered').to.be.below(100);
      await sleep(100);
    }
    const rssBefore = await rssMiB(client);
    let rssPeak = rssBefore;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        rssPeak = Math.max(rssPeak, await rssMiB(client));
        await sleep(250);
      }
    })();

    // ~1 KiB ConfigMaps, CONCURRENCY writers.
    const value = 'v'.repeat(1000);
    let nextIndex = 0;
    let failures = 0;
    const startedAt = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      for (let i = nextIndex++; i < COUNT; i = nextIndex++) {
        const res = await client.request('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `slow-${i}` }, data: { value } });
        if (res.status !== 201) failures++;
      }
    }));
    const writeMs = Date.now() - startedAt;
    expect(failures).to.equal(0);

    // The reading watcher gets every one.
    for (let i = 0; reader.events.filter((e) => e.type === 'ADDED').length < COUNT; i++) {
      expect(i, `reader has ${reader.events.length} of ${COUNT} events`).to.be.below(300);
      await sleep(100);
    }
    const names = new Set(reader.events.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata.name));
    expect(names.size).to.equal(COUNT);

    // The slow watch is gone from the server (only the reader is registered), and its
    // connection is cut once the end could not be flushed (a grace of 5 s).
    for (let i = 0; (await registeredWatchersOf(client)) !== 1; i++) {
      expect(i, 'the slow watch ended').to.be.below(200);
      await sleep(100);
    }
    // The end cannot reach a client that does not read: after 5 s the server cuts the connection.
    await sleep(6_000);
    sampling = false;
    await sampler;
    const rssAfter = await rssMiB(client);
    // Now read what the server had sent before it gave up: far fewer events than were written,
    // and then the connection ends (closed or reset by the server), without the last chunk.
    let received = '';
    slow.setEncoding('utf8').on('data', (c: string) => { received += c; });
    slow.resume();
    for (let i = 0; !slowClosed; i++) {
      expect(i, 'the slow connection was closed by the server').to.be.below(200);
      await sleep(100);
    }
    const slowEvents = (received.match(/"type":"ADDED"/g) ?? []).length;
    expect(slowEvents).to.be.below(COUNT);
    expect(received.endsWith('\r\n0\r\n\r\n'), 'cut, not ended: the end was never flushed').to.equal(false);
    // Bounded: the server did not keep a copy of the stream for the client that stopped reading.
    expect(rssPeak - rssBefore, `RSS ${rssBefore.toFixed(1)} -> peak ${rssPeak.toFixed(1)} MiB`).to.be.below(128);
    reader.cancel();
    recordResult('slow-watcher', {
      configMaps: COUNT, valueBytes: 1000, writeMs, readerEvents: names.size, slowWatcherEventsBeforeClose: slowEvents,
      rssBeforeMiB: +rssBefore.toFixed(1), rssPeakMiB: +rssPeak.toFixed(1), rssAfterMiB: +rssAfter.toFixed(1),
    });
  });
});

describe('Slow watcher without the watch cache (--watch-cache=false: a watch straight on etcd)', function () {
  this.timeout(180_000);
  let etcd: TestEtcd;
  let dir: string;
  let server: ServerProcess;
  let client: H2Client;

  before(async () => {
    etcd = await startTestEtcd();
    dir = mkdtempSync(path.join(os.tmpdir(), 'orch-slow-watch-nc-'));
    server = await startServerProcess([`--data-dir=${dir}`, `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', '--flavor=kubernetes', '--log-level=error', '--watch-cache=false'], { timeoutMs: 60_000 });
    client = new H2Client(readKubeconfig(server.kubeconfigPath));
  });
  after(async () => {
    client?.destroy();
    await server?.stop(20_000);
    await etcd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('ends and cuts a never-reading watch once 8 MiB are unread, instead of buffering every event for it', async () => {
    const creds = readKubeconfig(server.kubeconfigPath);
    const rv = (await client.request('GET', CM)).body.metadata.resourceVersion as string;
    const slow = await neverReadingWatch(creds, `${CM}?watch=true&resourceVersion=${rv}`);
    for (let i = 0; (await registeredWatchersOf(client)) < 1; i++) {
      expect(i, 'the watch registered').to.be.below(100);
      await sleep(100);
    }
    const rssBefore = await rssMiB(client);
    // 240 ConfigMaps of ~100 KiB: 24 MiB of events, three times the bound (and past any socket buffers).
    const value = 'w'.repeat(100 * 1024);
    let failures = 0;
    let next = 0;
    await Promise.all(Array.from({ length: 4 }, async () => {
      for (let i = next++; i < 240; i = next++) {
        const res = await client.request('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i}` }, data: { value } });
        if (res.status !== 201) failures++;
      }
    }));
    expect(failures).to.equal(0);
    for (let i = 0; (await registeredWatchersOf(client)) !== 0; i++) {
      expect(i, 'the never-reading watch ended').to.be.below(200);
      await sleep(100);
    }
    await sleep(6_000);
    const rssAfter = await rssMiB(client);
    expect(await slow.drainUntilClosed(20_000), 'the connection was cut').to.equal(true);
    const events = (slow.state.received.match(/"type":"ADDED"/g) ?? []).length;
    expect(events).to.be.below(240);
    recordResult('slow-watcher-no-cache', {
      configMaps: 240, valueBytes: 100 * 1024, slowWatcherEventsBeforeClose: events,
      rssBeforeMiB: +rssBefore.toFixed(1), rssAfterMiB: +rssAfter.toFixed(1),
    });
  });
});
