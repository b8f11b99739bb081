/**
 * An etcd of the contract suite's own, for what the shared harness (test/helpers/etcd-harness.ts)
 * does not start: extra flags (a short progress-notify interval) and client TLS with
 * client-certificate auth. Spawns the binary on free loopback ports in a temp dir, waits until it
 * answers, and removes everything on stop().
 *
 * Suites run in parallel, so a port free when asked can be taken before etcd binds it: the ports
 * of one start are held open together (distinct), a member that exits with "address already in
 * use" makes the start begin again on new ports, and a member must still be running a moment
 * after its endpoint answered (else what answered was another suite's etcd on that port).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensurePki, Pki } from '../../lib/server/pki';
import { EtcdKvClient } from '../../lib/storage/etcd3/kv-client';
import { freeLoopbackPort, freeLoopbackPorts } from '../helpers/free-port';

export interface EtcdProcess {
  endpoint: string;
  /** With `tls`: the CA that signed etcd's certificate and the client certificate it accepts. */
  pki?: Pki;
  stop(): Promise<void>;
}

/** A free loopback port (the shared helper, under the name this suite uses). */
export const freePort = freeLoopbackPort;

/** How many times a start that lost a race for its ports begins again. */
const START_ATTEMPTS = 5;

/** A start that failed because a port was taken between choosing it and binding it. */
class PortTaken extends Error {}

/** Spawns etcd with stderr kept (its last 4 KiB), to tell a lost port race from other failures. */
function spawnEtcd(args: string[]): { child: ChildProcess; portTaken(): boolean } {
  const child = spawn(process.env.ETCD_BINARY || 'etcd', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let tail = '';
  child.stderr!.on('data', (d: Buffer) => { tail = (tail + d.toString()).slice(-4096); });
  return { child, portTaken: () => /address already in use/.test(tail) };
}

const running = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;

/** Runs `start` until it does not lose a race for its ports (START_ATTEMPTS at most). */
async function retryingPortRaces<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt >= START_ATTEMPTS) throw err;
    }
  }
}

/** After its endpoint answered, the member must still be running: else that was another etcd. */
async function stillRunning(children: ChildProcess[], portTaken: () => boolean): Promise<void> {
  await new Promise((r) => setTimeout(r, 300));
  if (children.every(running)) return;
  throw portTaken() ? new PortTaken('a port was taken') : new Error('an etcd member exited during start-up');
}

export function startEtcdProcess(opts: { tls?: boolean; args?: string[] } = {}): Promise<EtcdProcess> {
  return retryingPortRaces(() => startEtcdProcessOnce(opts));
}

async function startEtcdProcessOnce(opts: { tls?: boolean; args?: string[] }): Promise<EtcdProcess> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-contract-etcd-'));
  const pki = opts.tls ? await ensurePki(path.join(dir, 'pki'), { serverHosts: ['localhost', '127.0.0.1'] }) : undefined;
  const [clientPort, peerPort] = await freeLoopbackPorts(2);
  const endpoint = `${pki ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const { child, portTaken } = spawnEtcd([
    '--name', 'default', '--data-dir', path.join(dir, 'etcd'),
    '--listen-client-urls', endpoint, '--advertise-client-urls', endpoint,
    '--listen-peer-urls', peerUrl, '--initial-advertise-peer-urls', peerUrl, '--initial-cluster', `default=${peerUrl}`,
    ...(pki ? ['--cert-file', pki.serverCertFile, '--key-file', pki.serverKeyFile, '--client-cert-auth', '--trusted-ca-file', pki.caCertFile] : []),
    ...(opts.args ?? []),
  ]);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await fsp.rm(dir, { recursive: true, force: true });
  };
  const probe = new EtcdKvClient({
    endpoints: [endpoint], callTimeoutMs: 1000,
    ...(pki ? { caFile: pki.caCertFile, certFile: pki.adminCertFile, keyFile: pki.adminKeyFile } : {}),
  });
  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (!running(child)) throw portTaken() ? new PortTaken('a port was taken') : new Error('etcd exited during start-up');
      if (await probe.range({ key: Buffer.from('/') }).then(() => true, () => false)) break;
      if (Date.now() > deadline) throw new Error('etcd did not answer within 20 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    await stillRunning([child], portTaken);
  } catch (err) {
    await stop();
    throw err;
  } finally {
    await probe.close();
  }
  return { endpoint, pki, stop };
}

export interface TwoMembers {
  endpoints: [string, string];
  /** SIGKILLs member `i`: the other is then without quorum, so without a leader. */
  kill(i: 0 | 1): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A cluster of two members (quorum 2): killing one leaves the other running but without a leader,
 * the state of a member cut off from the majority.
 */
export function startTwoMembers(): Promise<TwoMembers> {
  return retryingPortRaces(startTwoMembersOnce);
}

async function startTwoMembersOnce(): Promise<TwoMembers> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-contract-etcd2-'));
  const ports = await freeLoopbackPorts(4);
  const names = ['m0', 'm1'];
  const clientUrls = [`http://127.0.0.1:${ports[0]}`, `http://127.0.0.1:${ports[1]}`] as [string, string];
  const peerUrls = [`http://127.0.0.1:${ports[2]}`, `http://127.0.0.1:${ports[3]}`];
  const cluster = names.map((n, i) => `${n}=${peerUrls[i]}`).join(',');
  const spawned = names.map((name, i) => spawnEtcd([
    '--name', name, '--data-dir', path.join(dir, name),
    '--listen-client-urls', clientUrls[i], '--advertise-client-urls', clientUrls[i],
    '--listen-peer-urls', peerUrls[i], '--initial-advertise-peer-urls', peerUrls[i],
    '--initial-cluster', cluster, '--initial-cluster-state', 'new', '--initial-cluster-token', path.basename(dir),
    '--heartbeat-interval', '100', '--election-timeout', '500',
  ]));
  const children = spawned.map((m) => m.child);
  const portTaken = () => spawned.some((m) => m.portTaken());
  const exited = children.map((c) => new Promise<void>((resolve) => c.once('exit', () => resolve())));
  const kill = async (i: 0 | 1) => {
    const c = children[i];
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
      await exited[i];
    }
  };
  const stop = async () => {
    await kill(0);
    await kill(1);
    await fsp.rm(dir, { recursive: true, force: true });
  };
  try {
    for (const endpoint of clientUrls) {
      const probe = new EtcdKvClient({ endpoints: [endpoint], callTimeoutMs: 1000 });
      try {
        const deadline = Date.now() + 20_000;
        while (!(await probe.range({ key: Buffer.from('/') }).then(() => true, () => false))) {
          if (!children.every(running)) throw portTaken() ? new PortTaken('a port was taken') : new Error('an etcd member exited during start-up');
          if (Date.now() > deadline) throw new Error(`etcd member ${endpoint} did not answer within 20 s`);
          await new Promise((r) => setTimeout(r, 100));
        }
      } finally {
        await probe.close();
      }
    }
    await stillRunning(children, portTaken);
  } catch (err) {
    await stop();
    throw err;
  }
  return { endpoints: clientUrls, kill, stop };
}
