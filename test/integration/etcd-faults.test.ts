/**
 * etcd faults under load (issue 19 item 1): a server process on a real 3-member etcd cluster
 * (test/helpers/etcd-cluster.ts, fsync on) serves 4 writers and 2 watchers (fault-load.ts) while
 * a fault is injected: the leader killed, the member the server is connected to killed, that
 * member hung with SIGSTOP then resumed, the whole cluster stopped and started again, and the
 * same over TLS with client certificates. Each scenario asserts: no acknowledged write lost, no
 * duplicate or missing watch event (a 410 and a relist where history is gone), every failed
 * request a 503/504 Status with Retry-After, and writes acknowledged again soon after etcd has a
 * leader. Each scenario's figures are appended as one JSON line to test/reliability/results.jsonl.
 *
 * RELIABILITY_FULL=1 (`make reliability`) uses the issue's long pauses (whole cluster down 30 s,
 * SIGSTOP 20 s); `make test` uses short ones.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestEtcdCluster, TestEtcdCluster } from '../helpers/etcd-cluster';
import { FaultFigures, FaultLoad, request, startFaultLoad, Target, targetFromKubeconfig } from '../helpers/fault-load';
import { startServerProcess, ServerProcess } from '../helpers/server-process';

const FULL = process.env.RELIABILITY_FULL === '1';
/** The server's etcd client kinds under test: the lean default and the etcd3 package (--etcd-client). */
const CLIENTS = ['lean', 'etcd3'];
const CLUSTER_DOWN_MS = FULL ? 30_000 : 8_000;
const SIGSTOP_MS = FULL ? 20_000 : 6_000;
/** Load before a fault and after recovery. */
const STEADY_MS = FULL ? 3_000 : 1_500;
/** The issue's bound: the server serves again within 2 s of etcd having a leader. */
const RECOVER_MS = 2_000;
/**
 * After a leader kill, writes in flight on a follower are lost with the old leader. The lean
 * client fails them as soon as it sees the new raft term and the store retries them (well under
 * RECOVER_MS); the etcd3 package gives no handle on calls in flight, so they wait out the 3 s
 * Txn deadline: on etcd3 the first acknowledged write can come up to ~2 s after the new leader
 * (measured 0.6-1.9 s). Documented in docs/reliability-and-security.md as the etcd3 client's known gap.
 */
const LEADER_KILL_RECOVER_MS: Record<string, number> = { lean: RECOVER_MS, etcd3: 3_000 };
/**
 * No failed request may take longer than the client's deadlines: a read's 5 s (a Txn's is 3 s),
 * plus a keepalive's detection, plus slack for a loaded 2-core machine.
 */
const MAX_ERROR_MS = 8_000;
const RESULTS = path.resolve(__dirname, '../../../test/reliability/results.jsonl');

/** The longest wait for the first acknowledged write before a fault. */
const STEADY_WAIT_MS = 15_000;

/**
 * A time limit of the reliability issue, asserted where it is measured: `make reliability` runs
 * these scenarios alone, with the issue's long pauses, and holds each figure to its limit. In
 * `make test`, on a machine shared with other suites, the same figure is held only to a hang
 * guard: the behaviour (nothing lost, the server moves, 503s, serving again) is checked, and a
 * server stuck until some long timeout still fails; the figures go to results.jsonl either way.
 */
const HANG_GUARD_MS = 15_000;
const limit = (ms: number): number => (FULL ? ms : Math.max(ms, HANG_GUARD_MS));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** For a failure message: the writers' errors so far and each member's state. */
async function diagnose(env: Env, load: FaultLoad): Promise<string> {
  const byKind = new Map<string, number>();
  for (const e of load.errors) {
    const k = `${e.what} ${e.status}: ${e.message.slice(0, 120)}`;
    byKind.set(k, (byKind.get(k) ?? 0) + 1);
  }
  const errors = [...byKind].map(([k, n]) => `${n}x ${k}`).join('; ') || 'none (requests still waiting for answers)';
  const members = await Promise.all(env.cluster.members.map(async (m) => {
    if (!m.process) return `${m.name}: not running`;
    const st = await env.cluster.status(m.name, 1_000);
    return `${m.name}: ${st ? `leader ${st.leader}, revision ${st.revision}` : 'no status answer'}${m.paused ? ' (stopped)' : ''}`;
  }));
  return `errors: ${errors}; members: ${members.join(', ')}; server stderr: ${env.server.stderrTail().split('\n').slice(-5).join(' | ')}`;
}

/** Appends a scenario's figures to test/reliability/results.jsonl (gitignored). */
function record(scenario: string, client: string, tls: boolean, f: FaultFigures, extra: Record<string, unknown> = {}): void {
  mkdirSync(path.dirname(RESULTS), { recursive: true });
  const { violations, details, ...figures } = f;
  appendFileSync(RESULTS, `${JSON.stringify({ scenario, client, tls, full: FULL, ...figures, ...extra, at: new Date().toISOString() })}\n`);
  // One line in the test output too, for the figures in docs/reliability-and-security.md.
  console.log(`      ${scenario} [${client}${tls ? ', tls' : ''}]: ${JSON.stringify(figures)}${violations.length ? ` violations: ${violations.join(' | ')}` : ''}`);
}

function expectClean(f: FaultFigures): void {
  expect(f.details, 'lost writes / missed events').to.deep.equal([]);
  expect(f.violations, 'errors that are not a 503/504 Status with Retry-After').to.deep.equal([]);
  expect(f.writesLost).to.equal(0);
  expect(f.dupEvents).to.equal(0);
  expect(f.missedEvents).to.equal(0);
  expect(f.maxErrorLatencyMs).to.be.at.most(MAX_ERROR_MS);
}

/** The etcd member the server process holds an established TCP connection to (from `ss`). */
function connectedMember(cluster: TestEtcdCluster, pid: number): string | undefined {
  const out = execFileSync('ss', ['-tnpH', 'state', 'established'], { encoding: 'utf8' });
  for (const line of out.split('\n')) {
    if (!line.includes(`pid=${pid},`)) continue;
    const peer = line.trim().split(/\s+/)[3];
    const m = cluster.members.find((x) => `127.0.0.1:${new URL(x.clientUrl).port}` === peer);
    if (m) return m.name;
  }
  return undefined;
}

async function eventuallyValue<T>(fn: () => T | undefined | Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(50);
  }
}

interface Env {
  cluster: TestEtcdCluster;
  server: ServerProcess;
  target: Target;
  dir: string;
}

/** A cluster and a server process on it; torn down by the returned close(). */
async function startEnv(client: string, tls: boolean): Promise<Env & { close(): Promise<void> }> {
  const cluster = await startTestEtcdCluster({ tls });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-etcd-faults-'));
  try {
    const args = [`--data-dir=${path.join(dir, 'data')}`, '--secure-port=0', '--log-level=error',
      `--etcd-servers=${cluster.endpoints.join(',')}`];
    if (client !== 'lean') args.push(`--etcd-client=${client}`);
    if (cluster.tls) args.push(`--etcd-cafile=${cluster.tls.caFile}`, `--etcd-certfile=${cluster.tls.certFile}`, `--etcd-keyfile=${cluster.tls.keyFile}`);
    const server = await startServerProcess(args, { timeoutMs: 60_000 });
    const target = targetFromKubeconfig(server.kubeconfigPath);
    return {
      cluster, server, target, dir,
      async close() {
        target.agent.destroy();
        await server.stop(10_000);
        await cluster.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await cluster.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** Every member running and a leader, before the next scenario. */
async function heal(cluster: TestEtcdCluster): Promise<void> {
  for (const m of cluster.members) if (m.paused) cluster.cont(m.name);
  await cluster.startAll();
  await cluster.waitLeader(30_000);
  // Every member back and following the leader: a member that died on start is started again.
  const deadline = Date.now() + 30_000;
  for (;;) {
    await cluster.startAll();
    const states = await Promise.all(cluster.members.map((m) => cluster.status(m.name, 1_000)));
    if (states.every((st) => st && st.leader !== '0')) return;
    if (Date.now() > deadline) throw new Error(`etcd members not all back within 30 s: ${states.map((st, i) => `${cluster.members[i].name}: ${st ? `leader ${st.leader}` : 'no answer'}`).join(', ')}`);
    await sleep(200);
  }
}

/** Runs load, applies `fault` (which returns the moment etcd had a leader again), and checks. */
let attempts = 0;

async function scenario(env: Env, name: string, fault: (load: FaultLoad) => Promise<number>): Promise<FaultFigures> {
  // A namespace of its own per attempt: a retried case must not find the first attempt's objects.
  const load = await startFaultLoad(env.target, `${name}-${++attempts}`);
  let leaderAt: number;
  try {
    // Steady state first: writes acknowledged. A slow disk (fsync on) or the previous scenario's
    // restarted member may hold the first ones back; after STEADY_WAIT_MS it is a failure, with
    // what the writers got and what the members said, so a red run tells why.
    const steadyFrom = Date.now();
    await sleep(STEADY_MS);
    while (load.acked() === 0 && Date.now() - steadyFrom < STEADY_WAIT_MS) await sleep(100);
    if (load.acked() === 0) {
      const why = `no write acknowledged in ${STEADY_WAIT_MS} ms before the fault; ${await diagnose(env, load)}`;
      // Printed as well as thrown: a retried case that then passes still leaves this in the log.
      console.log(`      ${why}`);
      throw new Error(why);
    }
    if (Date.now() - steadyFrom > STEADY_MS + 200) console.log(`      (first acknowledged write after ${Date.now() - steadyFrom} ms)`);
    leaderAt = await fault(load);
  } catch (err) {
    // A failed fault step must not leave its writers running into the next scenario.
    await load.abort();
    throw err;
  }
  await sleep(STEADY_MS);
  return load.finish(leaderAt);
}

for (const client of CLIENTS) {
  describe(`etcd faults on a 3-member cluster (${client} client)`, function () {
    this.timeout(FULL ? 300_000 : 120_000);
    // A case that loses a race with the etcd processes on a loaded machine is tried once more
    // (as etcd-failover does); its figures and any diagnosis are printed either way.
    this.retries(1);
    let env: (Env & { close(): Promise<void> }) | undefined;

    before(async function () {
      this.timeout(120_000);
      env = await startEnv(client, false);
    });
    after(async () => {
      await env?.close();
    });
    afterEach(async function () {
      this.timeout(60_000);
      if (env) await heal(env.cluster);
    });

    it(`the leader killed (SIGKILL) and started again: nothing lost, errors fast, writes again within ${LEADER_KILL_RECOVER_MS[client] / 1000} s of a new leader`, async () => {
      const { cluster } = env!;
      let victim = '';
      const f = await scenario(env!, 'leader-kill', async () => {
        victim = (await cluster.leader())!;
        await cluster.kill(victim);
        await cluster.waitLeader(30_000);
        const leaderAt = Date.now();
        await sleep(STEADY_MS);
        await cluster.start(victim);
        return leaderAt;
      });
      record('leader-kill', client, false, f);
      expectClean(f);
      expect(f.recoverMs, 'ms from a new leader to the first acknowledged write').to.not.equal(null);
      expect(f.recoverMs!).to.be.at.most(limit(LEADER_KILL_RECOVER_MS[client]));
    });

    it('the member the server is connected to killed: the server moves to another member, nothing lost', async () => {
      const { cluster, server } = env!;
      const pid = server.process.pid!;
      let victim = '';
      let movedTo = '';
      let victimLed = false;
      const f = await scenario(env!, 'connected-kill', async () => {
        victim = await eventuallyValue(() => connectedMember(cluster, pid), 10_000);
        victimLed = victim === await cluster.leader();
        await cluster.kill(victim);
        await cluster.waitLeader(30_000);
        const leaderAt = Date.now();
        movedTo = await eventuallyValue(() => connectedMember(cluster, pid), 10_000);
        await sleep(STEADY_MS);
        await cluster.start(victim);
        return leaderAt;
      });
      record('connected-member-kill', client, false, f, { victim, victimLed, movedTo });
      expectClean(f);
      expect(movedTo).to.not.equal(victim);
      expect(f.recoverMs).to.not.equal(null);
      // The connected member may also have been the leader: then this is a leader kill as well,
      // with writes forwarded to it from the other members lost, and etcd3's known gap applies.
      expect(f.recoverMs!).to.be.at.most(limit(victimLed ? LEADER_KILL_RECOVER_MS[client] : RECOVER_MS));
    });

    it(`the connected member hung (SIGSTOP ${SIGSTOP_MS / 1000} s) then resumed: keepalive moves the server to another member within seconds`, async () => {
      const { cluster, server } = env!;
      const pid = server.process.pid!;
      let victim = '';
      let detectMs = 0;
      const f = await scenario(env!, 'member-sigstop', async () => {
        victim = await eventuallyValue(() => connectedMember(cluster, pid), 10_000);
        const stoppedAt = Date.now();
        cluster.stop(victim);
        await cluster.waitLeader(30_000);
        // A stopped follower leaves the leader in place: the reference is the stop itself.
        const leaderAt = Date.now();
        await eventuallyValue(() => { const m = connectedMember(cluster, pid); return m && m !== victim ? m : undefined; }, 15_000);
        detectMs = Date.now() - stoppedAt;
        await sleep(Math.max(0, SIGSTOP_MS - (Date.now() - stoppedAt)));
        cluster.cont(victim);
        return leaderAt;
      });
      record('member-sigstop', client, false, f, { victim, detectMs, stoppedMs: SIGSTOP_MS });
      expectClean(f);
      // Found by the keepalive (interval + timeout, 1 s + 1 s) or a deadline (3 s), not by long timeouts.
      expect(detectMs, 'ms until the server left the hung member').to.be.at.most(limit(6_000));
      expect(f.recoverMs).to.not.equal(null);
      // Writes stuck on the hung member wait for the keepalive or their deadline, then go elsewhere.
      expect(f.recoverMs!).to.be.at.most(limit(5_000));
    });

    it(`the whole cluster stopped for ${CLUSTER_DOWN_MS / 1000} s and started again: 503s meanwhile, readyz fails and livez holds, serving within 2 s of a leader`, async () => {
      const { cluster, target } = env!;
      let readyzDown = 0;
      let livezDown = 0;
      let outageErrorMaxMs = 0;
      const f = await scenario(env!, 'cluster-down', async (load) => {
        await cluster.stopAll();
        const downAt = Date.now();
        while (Date.now() - downAt < CLUSTER_DOWN_MS) {
          const [ready, live] = await Promise.all([request(target, 'GET', '/readyz'), request(target, 'GET', '/livez?exclude=etcd')]);
          if (ready.status === 200) readyzDown++;
          if (live.status !== 200) livezDown++;
          await sleep(500);
        }
        // Requests sent once the outage was known (1 s in): refused at once, not after long timeouts.
        outageErrorMaxMs = load.errors.filter((e) => e.at - e.ms > downAt + 1_000).reduce((m, e) => Math.max(m, e.ms), 0);
        await cluster.startAll();
        await cluster.waitLeader(60_000);
        return Date.now();
      });
      record('cluster-down', client, false, f, { downMs: CLUSTER_DOWN_MS, outageErrorMaxMs });
      expectClean(f);
      expect(readyzDown, '/readyz answering 200 while etcd is down').to.equal(0);
      expect(livezDown, '/livez?exclude=etcd failing while etcd is down').to.equal(0);
      expect(f.errorCodes['503'] ?? 0, '503 answers during the outage').to.be.greaterThan(0);
      expect(outageErrorMaxMs, 'slowest error once the outage was known').to.be.at.most(limit(1_500));
      expect(f.recoverMs).to.not.equal(null);
      expect(f.recoverMs!).to.be.at.most(limit(RECOVER_MS));
    });
  });
}

describe('etcd faults over TLS with client certificates (lean client)', function () {
  this.timeout(FULL ? 300_000 : 120_000);
  let env: (Env & { close(): Promise<void> }) | undefined;

  before(async function () {
    this.timeout(120_000);
    env = await startEnv('lean', true);
  });
  after(async () => {
    await env?.close();
  });

  it('serves through https etcd members that demand a client certificate, and survives a leader kill', async () => {
    const { cluster } = env!;
    const f = await scenario(env!, 'tls-leader-kill', async () => {
      const victim = (await cluster.leader())!;
      await cluster.kill(victim);
      await cluster.waitLeader(30_000);
      const leaderAt = Date.now();
      await sleep(STEADY_MS);
      await cluster.start(victim);
      return leaderAt;
    });
    record('leader-kill', 'lean', true, f);
    expectClean(f);
    expect(f.recoverMs).to.not.equal(null);
    expect(f.recoverMs!).to.be.at.most(limit(RECOVER_MS));
  });

  it('a client certificate from another CA: the server refuses to start with a clear message', async () => {
    const { cluster } = env!;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-etcd-wrong-cert-'));
    try {
      const { ensurePki } = await import('../../lib/server/pki');
      const other = await ensurePki(path.join(dir, 'other-pki'), { serverHosts: ['127.0.0.1'] });
      const err = await startServerProcess([`--data-dir=${path.join(dir, 'data')}`, '--secure-port=0', '--log-level=error',
        `--etcd-servers=${cluster.endpoints.join(',')}`, `--etcd-cafile=${cluster.tls!.caFile}`,
        `--etcd-certfile=${other.adminCertFile}`, `--etcd-keyfile=${other.adminKeyFile}`], { timeoutMs: 30_000 })
        .then(async (s) => { await s.stop(5_000); return undefined; }, (e: Error) => e);
      expect(err, 'the server started with a client certificate etcd does not trust').to.be.instanceOf(Error);
      expect(err!.message).to.match(/server exited during start-up/);
      // Names etcd and the TLS failure, so the operator knows what to fix.
      expect(err!.message).to.match(/etcd/i);
      expect(err!.message).to.match(/certificate|alert|handshake|tls/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
