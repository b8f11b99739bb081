/**
 * An etcd of the contract suite's own, for what the shared harness (test/helpers/etcd-harness.ts)
 * does not start: extra flags (a short progress-notify interval) and client TLS with
 * client-certificate auth. Spawns the binary on free loopback ports in a temp dir, waits until it
 * answers, and removes everything on stop().
 */
import { ChildProcess, spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensurePki, Pki } from '../../lib/server/pki';
import { EtcdKvClient } from '../../lib/storage/etcd3/kv-client';

export interface EtcdProcess {
  endpoint: string;
  /** With `tls`: the CA that signed etcd's certificate and the client certificate it accepts. */
  pki?: Pki;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startEtcdProcess(opts: { tls?: boolean; args?: string[] } = {}): Promise<EtcdProcess> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-contract-etcd-'));
  const pki = opts.tls ? await ensurePki(path.join(dir, 'pki'), { serverHosts: ['localhost', '127.0.0.1'] }) : undefined;
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const endpoint = `${pki ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const child: ChildProcess = spawn(process.env.ETCD_BINARY || 'etcd', [
    '--name', 'default', '--data-dir', path.join(dir, 'etcd'),
    '--listen-client-urls', endpoint, '--advertise-client-urls', endpoint,
    '--listen-peer-urls', peerUrl, '--initial-advertise-peer-urls', peerUrl, '--initial-cluster', `default=${peerUrl}`,
    ...(pki ? ['--cert-file', pki.serverCertFile, '--key-file', pki.serverKeyFile, '--client-cert-auth', '--trusted-ca-file', pki.caCertFile] : []),
    ...(opts.args ?? []),
  ], { stdio: ['ignore', 'ignore', 'ignore'] });
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
      if (child.exitCode !== null || child.signalCode !== null) throw new Error('etcd exited during start-up');
      if (await probe.range({ key: Buffer.from('/') }).then(() => true, () => false)) break;
      if (Date.now() > deadline) throw new Error('etcd did not answer within 20 s');
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await stop();
    throw err;
  } finally {
    await probe.close();
  }
  return { endpoint, pki, stop };
}
