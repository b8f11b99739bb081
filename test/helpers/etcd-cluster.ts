/**
 * A real 3-member etcd cluster for fault tests: the etcd binary (`$ETCD_BINARY`, else `etcd` on
 * PATH) on free loopback ports, in a fresh temp dir, with fsync ON (faults must test durability).
 * Members can be killed (SIGKILL), paused (SIGSTOP) and resumed (SIGCONT), and started again on
 * their own data dir and ports. Health and leader come from etcd's own HTTP JSON gateway
 * (`POST /v3/maintenance/status` on a member's client URL), so no etcdctl is needed.
 *
 * TLS variant: client URLs are https with a server certificate from a test PKI, and the members
 * demand a client certificate signed by its CA (`--client-cert-auth --trusted-ca-file`). Peer
 * URLs stay plain http on loopback.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createPrivateKey, generateKeyPairSync, randomBytes as randomSerialBytes, X509Certificate } from 'node:crypto';
import { promises as fsp, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { ensurePki, Pki } from '../../lib/server/pki';
import { certificatePem, keyIdentifier, name, subjectOf } from '../../lib/server/x509';
import { stableLoopbackPort } from './free-port';

export interface ClusterMember {
  name: string;
  clientUrl: string;
  peerUrl: string;
  dataDir: string;
  /** The running process; undefined once it has exited. */
  process?: ChildProcess;
  /** Paused with SIGSTOP. */
  paused: boolean;
}

export interface MemberStatus {
  /** Hex-free decimal ids as etcd's gateway prints them. */
  memberId: string;
  /** '0' when the member knows no leader. */
  leader: string;
  revision: number;
}

export interface ClusterTls {
  /** The test PKI: its CA and admin client certificate. */
  pki: Pki;
  /** The members' certificate (127.0.0.1, serverAuth and clientAuth) and key. */
  memberCertFile: string;
  memberKeyFile: string;
  caFile: string;
  certFile: string;
  keyFile: string;
}

export interface TestEtcdCluster {
  /** Client URLs of every member, in member order (for `--etcd-servers`). */
  endpoints: string[];
  members: ClusterMember[];
  tls?: ClusterTls;
  member(name: string): ClusterMember;
  /** The member whose client URL is `url` (as the server's client reports it). */
  memberByUrl(url: string): ClusterMember | undefined;
  /** One member's Maintenance.Status, or undefined when it does not answer within `timeoutMs`. */
  status(name: string, timeoutMs?: number): Promise<MemberStatus | undefined>;
  /** The name of the member that is leader by its own account, or undefined. */
  leader(): Promise<string | undefined>;
  /** SIGKILL; resolves once the process has exited. */
  kill(name: string): Promise<void>;
  /** SIGSTOP: the member hangs (its kernel still accepts connections) instead of refusing. */
  stop(name: string): void;
  /** SIGCONT after stop(). */
  cont(name: string): void;
  /** Starts a member that is not running again, on its data dir and ports. */
  start(name: string): Promise<void>;
  /** SIGTERM every member; resolves once all have exited. */
  stopAll(): Promise<void>;
  /** Starts every member that is not running. */
  startAll(): Promise<void>;
  /** Waits until a member is leader; resolves with the ms waited. Rejects after `timeoutMs`. */
  waitLeader(timeoutMs?: number): Promise<number>;
  /** The last lines a member wrote to stderr (for failure messages). */
  logTail(name: string): string;
  /** Kills every member and removes the temp dir. */
  close(): Promise<void>;
}

export interface StartClusterOptions {
  size?: number;
  /** Client URLs over https with client-certificate auth. */
  tls?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LOG_LINES = 40;

/** A certificate for the etcd members: 127.0.0.1 and localhost, serverAuth and clientAuth, signed by the PKI's CA. */
function issueMemberCert(pki: Pki): { certPem: string; keyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ca = new X509Certificate(readFileSync(pki.caCertFile));
  const serial = randomSerialBytes(16);
  serial[0] = (serial[0] & 0x7f) || 1;
  const certPem = certificatePem({
    serial, subject: name('etcd-member'), issuer: subjectOf(ca.raw),
    notBefore: new Date(Date.now() - 3_600_000), notAfter: new Date(Date.now() + 24 * 3_600_000),
    publicKey, ca: false, keyUsage: ['digitalSignature', 'keyEncipherment'], extKeyUsage: ['serverAuth', 'clientAuth'], hosts: ['127.0.0.1', 'localhost'],
    authorityKeyId: keyIdentifier(ca.publicKey), signingKey: createPrivateKey(readFileSync(pki.caKeyFile)),
  });
  return { certPem, keyPem: privateKey.export({ type: 'sec1', format: 'pem' }).toString() };
}

export async function startTestEtcdCluster(opts: StartClusterOptions = {}): Promise<TestEtcdCluster> {
  const size = opts.size ?? 3;
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-etcd-cluster-'));
  let tls: ClusterTls | undefined;
  if (opts.tls) {
    const pki = await ensurePki(path.join(dir, 'pki'), { serverHosts: ['localhost', '127.0.0.1'] });
    // etcd's gRPC gateway dials its own member with the member's certificate as a client
    // certificate, so the members need one for both uses (the PKI's serving one is serverAuth only).
    const member = issueMemberCert(pki);
    const memberCertFile = path.join(dir, 'pki', 'etcd-member.crt');
    const memberKeyFile = path.join(dir, 'pki', 'etcd-member.key');
    writeFileSync(memberCertFile, member.certPem);
    writeFileSync(memberKeyFile, member.keyPem, { mode: 0o600 });
    tls = { pki, memberCertFile, memberKeyFile, caFile: pki.caCertFile, certFile: pki.adminCertFile, keyFile: pki.adminKeyFile };
  }
  const scheme = tls ? 'https' : 'http';
  const members: ClusterMember[] = [];
  const used = new Set<number>();
  const port = async () => {
    for (;;) {
      const p = await stableLoopbackPort();
      if (!used.has(p)) {
        used.add(p);
        return p;
      }
    }
  };
  for (let i = 1; i <= size; i++) {
    members.push({
      name: `m${i}`,
      clientUrl: `${scheme}://127.0.0.1:${await port()}`,
      peerUrl: `http://127.0.0.1:${await port()}`,
      dataDir: path.join(dir, `m${i}`),
      paused: false,
    });
  }
  const initialCluster = members.map((m) => `${m.name}=${m.peerUrl}`).join(',');
  const token = `orch-test-${randomBytes(6).toString('hex')}`;
  const logs = new Map<string, string[]>();
  const exits = new Map<string, Promise<void>>();
  const agent = tls
    ? new https.Agent({ ca: readFileSync(tls.caFile), cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile), keepAlive: false })
    : undefined;

  const byName = (name: string): ClusterMember => {
    const m = members.find((x) => x.name === name);
    if (!m) throw new Error(`no etcd member ${name}`);
    return m;
  };

  const spawnMember = (m: ClusterMember): void => {
    if (m.process) throw new Error(`etcd member ${m.name} is already running`);
    const args = [
      '--name', m.name,
      '--data-dir', m.dataDir,
      '--listen-client-urls', m.clientUrl,
      '--advertise-client-urls', m.clientUrl,
      '--listen-peer-urls', m.peerUrl,
      '--initial-advertise-peer-urls', m.peerUrl,
      '--initial-cluster', initialCluster,
      '--initial-cluster-state', 'new',
      '--initial-cluster-token', token,
      '--logger', 'zap',
      '--log-outputs', 'stderr',
    ];
    if (tls) {
      args.push('--cert-file', tls.memberCertFile, '--key-file', tls.memberKeyFile,
        '--client-cert-auth', '--trusted-ca-file', tls.pki.caCertFile);
    }
    const child = spawn(process.env.ETCD_BINARY || 'etcd', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const lines: string[] = logs.get(m.name) ?? [];
    logs.set(m.name, lines);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line) lines.push(line);
      if (lines.length > LOG_LINES) lines.splice(0, lines.length - LOG_LINES);
    });
    m.process = child;
    m.paused = false;
    exits.set(m.name, new Promise<void>((resolve) => child.once('exit', () => {
      if (m.process === child) m.process = undefined;
      resolve();
    })));
    child.once('error', () => undefined);
  };

  const status = (name: string, timeoutMs = 500): Promise<MemberStatus | undefined> => {
    const m = byName(name);
    if (!m.process || m.paused) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const url = new URL('/v3/maintenance/status', m.clientUrl);
      const req = (tls ? https : http).request(url, { method: 'POST', agent, timeout: timeoutMs, headers: { 'content-type': 'application/json' } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => {
          try {
            const s = JSON.parse(body);
            if (res.statusCode !== 200 || !s.header) return resolve(undefined);
            resolve({ memberId: String(s.header.member_id), leader: String(s.leader ?? '0'), revision: Number(s.header.revision ?? 0) });
          } catch {
            resolve(undefined);
          }
        }).on('error', () => resolve(undefined));
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(undefined));
      req.end('{}');
    });
  };

  const leader = async (): Promise<string | undefined> => {
    const all = await Promise.all(members.map(async (m) => ({ m, s: await status(m.name) })));
    return all.find(({ s }) => s && s.leader !== '0' && s.leader === s.memberId)?.m.name;
  };

  const terminate = async (m: ClusterMember, signal: NodeJS.Signals): Promise<void> => {
    const child = m.process;
    if (!child) return;
    if (m.paused) {
      child.kill('SIGCONT');
      m.paused = false;
    }
    child.kill(signal);
    await exits.get(m.name);
  };

  const cluster: TestEtcdCluster = {
    endpoints: members.map((m) => m.clientUrl),
    members,
    tls,
    member: byName,
    memberByUrl: (url) => members.find((m) => m.clientUrl === url),
    status,
    leader,
    kill: (name) => terminate(byName(name), 'SIGKILL'),
    stop(name) {
      const m = byName(name);
      if (!m.process) throw new Error(`etcd member ${name} is not running`);
      m.process.kill('SIGSTOP');
      m.paused = true;
    },
    cont(name) {
      const m = byName(name);
      if (!m.process) throw new Error(`etcd member ${name} is not running`);
      m.process.kill('SIGCONT');
      m.paused = false;
    },
    async start(name) {
      spawnMember(byName(name));
    },
    async stopAll() {
      await Promise.all(members.map((m) => terminate(m, 'SIGTERM')));
    },
    async startAll() {
      for (const m of members) if (!m.process) spawnMember(m);
    },
    async waitLeader(timeoutMs = 30_000) {
      const started = Date.now();
      for (;;) {
        if (await leader()) return Date.now() - started;
        if (Date.now() - started > timeoutMs) {
          throw new Error(`no etcd leader within ${timeoutMs} ms:\n${members.map((m) => `${m.name}: ${cluster.logTail(m.name).split('\n').slice(-3).join('\n')}`).join('\n')}`);
        }
        await sleep(25);
      }
    },
    logTail: (name) => (logs.get(name) ?? []).join('\n'),
    async close() {
      await Promise.all(members.map((m) => terminate(m, 'SIGKILL')));
      agent?.destroy();
      await fsp.rm(dir, { recursive: true, force: true });
    },
  };

  try {
    for (const m of members) spawnMember(m);
    await cluster.waitLeader(30_000);
    return cluster;
  } catch (err) {
    await cluster.close();
    throw err;
  }
}
