/**
 * Server faults, with the server as a real process on a real etcd: SIGKILL under four writers
 * loses no acknowledged write and leaves nothing half-written; SIGTERM drains (readyz fails first
 * for --shutdown-delay-duration, requests in flight finish, watches over HTTP/2 and HTTP/1.1 end
 * cleanly, exit 0); two replicas on one etcd behind a round-robin TCP relay: killing one is
 * never seen by the other's clients, and the relay's clients reconnect and carry on.
 */
import { expect } from 'chai';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { ServerProcess, startServerProcess } from '../helpers/server-process';
import { H1Client, H2Client, readKubeconfig, recordResult, watchH1, watchH2 } from '../helpers/process-client';
import { startAdmissionWebhookServer, AdmissionWebhookServer, allow, hookEntry } from '../helpers/admission-webhook-server';
import { EtcdKvClient } from '../../lib/storage/etcd3/kv-client';
import { prefixEnd } from '../../lib/storage/etcd3/store';
import { decodeFromStorage } from '../../lib/storage/storage-codec';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CM = '/api/v1/namespaces/default/configmaps';
const tempDir = () => mkdtempSync(path.join(os.tmpdir(), 'orch-faults-'));

function serverArgs(dataDir: string, etcd: TestEtcd, extra: string[] = []): string[] {
  return [`--data-dir=${dataDir}`, `--etcd-servers=${etcd.endpoint}`, '--secure-port=0', '--flavor=kubernetes', '--log-level=error', ...extra];
}

const payloadOf = (writer: number, seq: number) => ({ writer: String(writer), seq: String(seq), payload: `${writer}-${seq}-`.padEnd(512, 'x') });

describe('Server faults (server processes on a real etcd)', function () {
  this.timeout(180_000);
  let etcd: TestEtcd;
  const dirs: string[] = [];
  const procs: ServerProcess[] = [];

  before(async () => { etcd = await startTestEtcd(); });
  after(async () => {
    for (const p of procs) await p.stop(5_000);
    await etcd?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const start = async (dataDir: string, extra: string[] = []) => {
    const p = await startServerProcess(serverArgs(dataDir, etcd, extra), { timeoutMs: 60_000 });
    procs.push(p);
    return p;
  };

  it('SIGKILL under 4 writers: every acknowledged write is there with its content, and every stored object decodes', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const a = await start(dir);
    const creds = readKubeconfig(a.kubeconfigPath);
    const acked = new Map<string, Record<string, string>>();
    let failed = 0;
    let killed = false;
    const writer = async (k: number) => {
      const client = new H2Client(creds);
      for (let i = 0; ; i++) {
        const name = `kill-w${k}-${i}`;
        const data = payloadOf(k, i);
        try {
          const res = await client.request('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }, 10_000);
          if (res.status === 201) acked.set(name, data);
          else failed++;
        } catch {
          failed++;
        }
        if (killed) break;
      }
      client.destroy();
    };
    const writers = [0, 1, 2, 3].map(writer);
    // Let the writers run until a good number of writes are in, then kill mid-stream.
    const t0 = Date.now();
    while (acked.size < 200 && Date.now() - t0 < 20_000) await sleep(50);
    const ackedBeforeKill = acked.size;
    a.process.kill('SIGKILL');
    killed = true;
    await new Promise((r) => a.process.once('exit', r));
    await Promise.all(writers);
    expect(ackedBeforeKill, 'writes acknowledged before the kill').to.be.greaterThan(0);

    // A new server on the same etcd and data dir.
    const b = await start(dir);
    const client = new H2Client(readKubeconfig(b.kubeconfigPath));
    let lost = 0;
    for (const [name, data] of acked) {
      const res = await client.request('GET', `${CM}/${name}`);
      if (res.status !== 200) lost++;
      else expect(res.body.data, name).to.deep.equal(data);
    }
    expect(lost, 'acknowledged writes lost').to.equal(0);

    // Straight from etcd: every value under the prefix decodes to a whole object.
    const kv = new EtcdKvClient({ endpoints: [etcd.endpoint] });
    const prefix = '/registry/configmaps/default/';
    let stored = 0;
    let unacked = 0;
    try {
      const res = await kv.range({ key: Buffer.from(prefix), rangeEnd: prefixEnd(prefix) });
      for (const item of res.kvs) {
        const key = Buffer.from(item.key).toString('utf8');
        const name = key.slice(prefix.length);
        if (!name.startsWith('kill-w')) continue;
        stored++;
        const obj = decodeFromStorage(Buffer.from(item.value), Number(item.modRevision)) as any;
        expect(obj.metadata.name).to.equal(name);
        const [, w, s] = /^kill-w(\d+)-(\d+)$/.exec(name)!;
        expect(obj.data, name).to.deep.equal(payloadOf(Number(w), Number(s)));
        if (!acked.has(name)) unacked++;
      }
    } finally {
      await kv.close();
      client.destroy();
    }
    expect(stored).to.equal(acked.size + unacked);
    recordResult('server-sigkill', { writers: 4, writesAcked: acked.size, writesLost: lost, writesFailedAtKill: failed, storedNotAcked: unacked, storedUndecodable: 0 });
    await b.stop(20_000);
  });

  describe('SIGTERM with --shutdown-delay-duration=2s', () => {
    let hooks: AdmissionWebhookServer;
    before(async () => { hooks = await startAdmissionWebhookServer(); });
    after(async () => { await hooks?.stop(); });

    it('readyz fails at once while livez and requests work; a slow create in flight finishes 201; HTTP/2 and HTTP/1.1 watches end cleanly; exit 0', async () => {
      const dir = tempDir();
      dirs.push(dir);
      const p = await start(dir, ['--shutdown-delay-duration=2s']);
      const creds = readKubeconfig(p.kubeconfigPath);
      const h2 = new H2Client(creds);
      const h1 = new H1Client(creds);
      // A validating webhook that holds creates of ConfigMaps labelled hold=yes.
      let holdMs = 0;
      hooks.handlers.set('/hold', (call) => ({ ...allow(call), delayMs: holdMs }));
      const cfg = await h2.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'hold' },
        webhooks: [hookEntry(hooks, '/hold', { objectSelector: { matchLabels: { hold: 'yes' } }, timeoutSeconds: 10 })],
      });
      expect(cfg.status, cfg.text).to.equal(201);
      const held = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { hold: 'yes' } }, data: { a: '1' } });
      // In effect once the webhook sees a create.
      for (let i = 0; !hooks.callsTo('/hold').length; i++) {
        expect(i, 'webhook in effect').to.be.below(100);
        await h2.request('POST', CM, held(`probe-${i}`));
        await sleep(100);
      }
      holdMs = 1500;
      // An idle HTTP/1.1 keep-alive connection must not hold the shutdown up.
      expect((await h1.request('GET', '/livez')).status).to.equal(200);
      const w2 = await watchH2(h2, `${CM}?watch=true&resourceVersion=0`);
      const w1 = await watchH1(creds, `${CM}?watch=true&resourceVersion=0`);
      expect([w2.status, w1.status]).to.deep.equal([200, 200]);

      const signalledAt = Date.now();
      const exited = p.stop(30_000);
      await sleep(200);
      const ready = await h2.request('GET', '/readyz?verbose');
      expect(ready.status, ready.text).to.equal(500);
      expect(ready.text).to.contain('[-]shutdown failed');
      expect((await h2.request('GET', '/livez')).status).to.equal(200);
      const during = await h2.request('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'during-delay' } });
      expect(during.status, during.text).to.equal(201);
      expect(Date.now() - signalledAt, 'checked inside the delay').to.be.below(2000);
      // A create that the webhook holds past the end of the delay, when the listener closes.
      await sleep(Math.max(0, 1000 - (Date.now() - signalledAt)));
      const slowStarted = Date.now() - signalledAt;
      const slow = await h2.request('POST', CM, held('in-flight'));
      const slowDoneAt = Date.now() - signalledAt;
      expect(slow.status, slow.text).to.equal(201);
      expect(slowDoneAt, 'the held create ended after the delay').to.be.above(2000);

      const [end2, end1] = await Promise.all([w2.ended, w1.ended]);
      expect(end2, 'HTTP/2 watch end').to.equal('clean');
      expect(end1, 'HTTP/1.1 watch end').to.equal('clean');
      // The watches saw what was written during the delay; they end when the listener closes,
      // while the held create is still in flight (so it is not in them).
      for (const w of [w2, w1]) expect(w.events.map((e) => e.object?.metadata?.name)).to.include('during-delay');
      const { code, forced } = await exited;
      const exitMs = Date.now() - signalledAt;
      expect(forced).to.equal(false);
      expect(code).to.equal(0);
      // Below the 10 s drain timeout: nothing (idle keep-alive, ended watches) waited it out.
      expect(exitMs).to.be.below(2000 + 10_000);
      h2.destroy();
      h1.close();
      recordResult('server-sigterm-drain', {
        shutdownDelayMs: 2000, readyzFailedAfterMs: 200, inFlightCreateStartedAtMs: slowStarted, inFlightCreateStatus: slow.status,
        inFlightCreateDoneAtMs: slowDoneAt, watchEndH2: end2, watchEndH1: end1, exitCode: code, exitAfterMs: exitMs,
      });
    });
  });

  it('two replicas, one SIGKILLed: clients of the other see no error; clients through a round-robin relay reconnect and continue', async () => {
    const dirA = tempDir();
    const dirB = tempDir();
    dirs.push(dirA, dirB);
    const a = await start(dirA);
    // One PKI for both replicas, as behind a load balancer: copy A's before B starts.
    cpSync(path.join(dirA, 'pki'), path.join(dirB, 'pki'), { recursive: true });
    const b = await start(dirB);
    const credsA = readKubeconfig(a.kubeconfigPath);
    const credsB = readKubeconfig(b.kubeconfigPath);
    const relay = await startRoundRobinRelay([Number(new URL(credsA.url).port), Number(new URL(credsB.url).port)]);
    try {
      let killed = false;
      let stopAt = Infinity;
      const direct = { ops: 0, errors: 0, opsAfterKill: 0 };
      const viaRelay = { ops: 0, retries: 0, failures: 0, opsAfterKill: 0 };
      const failureReasons: string[] = [];

      const directClient = async (k: number) => {
        const c = new H2Client(credsB);
        for (let i = 0; Date.now() < stopAt; i++) {
          try {
            const w = await c.request('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `b${k}-${i}` } });
            const r = await c.request('GET', `${CM}/b${k}-${i}`);
            if (w.status !== 201 || r.status !== 200) direct.errors++;
          } catch {
            direct.errors++;
          }
          direct.ops++;
          if (killed) direct.opsAfterKill++;
        }
        c.destroy();
      };
      const relayClient = async (k: number) => {
        const c = new H2Client(credsA, relay.url);
        for (let i = 0; Date.now() < stopAt; i++) {
          const op = async () => {
            const w = await c.request('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `r${k}-${i}` } }, 5_000);
            // A create the dead replica acked before its connection broke may be retried: 409 then.
            if (w.status !== 201 && w.status !== 409) throw new Error(`create ${w.status}`);
            const r = await c.request('GET', `${CM}/r${k}-${i}`, undefined, 5_000);
            if (r.status !== 200) throw new Error(`get ${r.status}`);
          };
          try {
            await op();
          } catch {
            // One retry, on a new connection (the relay sends it to a live replica).
            viaRelay.retries++;
            c.destroy();
            try { await op(); } catch (err) { viaRelay.failures++; failureReasons.push(String(err)); }
          }
          viaRelay.ops++;
          if (killed) viaRelay.opsAfterKill++;
        }
        c.destroy();
      };
      const clients = [0, 1].map(directClient).concat([0, 1, 2, 3].map(relayClient));
      await sleep(1500);
      a.process.kill('SIGKILL');
      killed = true;
      stopAt = Date.now() + 3000;
      await Promise.all(clients);
      recordResult('replica-sigkill', {
        directToSurvivor: direct, throughRelay: viaRelay, relayConnections: relay.connections(),
      });
      expect(direct.errors, 'errors seen by clients of the surviving replica').to.equal(0);
      expect(direct.opsAfterKill).to.be.greaterThan(0);
      expect(viaRelay.failures, `relay clients that failed after one retry: ${failureReasons.join('; ')}`).to.equal(0);
      expect(viaRelay.opsAfterKill).to.be.greaterThan(0);
    } finally {
      await relay.close();
      await b.stop(20_000);
    }
  });
});

/**
 * A round-robin TCP relay (a load balancer stand-in; tcp-relay.ts has one target): each new
 * connection goes to the next live target. A target that refuses a connection, or ends or
 * resets one from its side, is taken out (a load balancer's passive health check), so a dead
 * replica costs the connections open to it only.
 */
async function startRoundRobinRelay(ports: number[]): Promise<{ url: string; connections(): number[]; close(): Promise<void> }> {
  let next = 0;
  const sockets = new Set<net.Socket>();
  const perTarget = ports.map(() => 0);
  const dead = ports.map(() => false);
  const server = net.createServer((down) => {
    sockets.add(down);
    down.on('close', () => sockets.delete(down));
    down.on('error', () => down.destroy());
    down.pause();
    const tryTarget = (attempt: number) => {
      if (attempt >= ports.length) { down.destroy(); return; }
      const i = next++ % ports.length;
      if (dead[i]) { tryTarget(attempt + 1); return; }
      const up = net.connect(ports[i], '127.0.0.1');
      const onConnectError = () => { dead[i] = true; up.destroy(); tryTarget(attempt + 1); };
      up.once('error', onConnectError);
      up.once('connect', () => {
        up.off('error', onConnectError);
        perTarget[i]++;
        sockets.add(up);
        const end = () => { down.destroy(); up.destroy(); sockets.delete(up); };
        up.on('error', () => { dead[i] = true; end(); }).on('end', () => { dead[i] = true; end(); }).on('close', end);
        down.on('close', end);
        down.pipe(up);
        up.pipe(down);
        down.resume();
      });
    };
    tryTarget(0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    connections: () => [...perTarget],
    close: () => new Promise<void>((resolve) => { for (const s of [...sockets]) s.destroy(); server.close(() => resolve()); }),
  };
}
