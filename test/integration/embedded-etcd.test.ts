import { expect } from 'chai';
import { promises as fsp } from 'fs';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Etcd3 } from 'etcd3';
import { EmbeddedEtcd, EmbeddedEtcdError, startEmbeddedEtcd } from '../../lib/server/embedded-etcd';
import { startTestEtcd } from '../helpers/etcd-harness';

function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function memberPeerUrls(clientUrl: string): Promise<string[]> {
  const res = await fetch(`${clientUrl}/v3/cluster/member/list`, { method: 'POST', body: '{}' });
  const body = (await res.json()) as { members: Array<{ peerURLs: string[] }> };
  return body.members.flatMap((m) => m.peerURLs);
}

async function rejection(p: Promise<unknown>): Promise<EmbeddedEtcdError> {
  try {
    await p;
  } catch (err) {
    return err as EmbeddedEtcdError;
  }
  throw new Error('expected a rejection');
}

describe('startEmbeddedEtcd', () => {
  let tmp: string;
  const started: EmbeddedEtcd[] = [];

  before(async () => {
    tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'orch-embedded-etcd-test-'));
  });

  afterEach(async () => {
    await Promise.all(started.splice(0).map((e) => e.stop()));
  });

  after(async () => {
    await fsp.rm(tmp, { recursive: true, force: true });
  });

  it('serves reads and writes on a loopback client URL and creates its data dir', async () => {
    const dataDir = path.join(tmp, 'fresh', 'etcd');
    const etcd = await startEmbeddedEtcd({ dataDir });
    started.push(etcd);
    expect(etcd.clientUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(etcd.peerUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(etcd.peerUrl).to.not.equal(etcd.clientUrl);
    expect((await fsp.stat(dataDir)).mode & 0o777).to.equal(0o700);
    const client = new Etcd3({ hosts: etcd.clientUrl });
    try {
      await client.put('/registry/test/a').value('hello');
      expect(await client.get('/registry/test/a').string()).to.equal('hello');
    } finally {
      client.close();
    }
  });

  it('keeps its data across a restart on the same data dir with new ports', async () => {
    const dataDir = path.join(tmp, 'restart');
    const first = await startEmbeddedEtcd({ dataDir });
    let client = new Etcd3({ hosts: first.clientUrl });
    await client.put('/registry/kept').value('still here');
    client.close();
    await first.stop();

    const second = await startEmbeddedEtcd({ dataDir });
    started.push(second);
    expect(second.clientUrl).to.not.equal(first.clientUrl);
    client = new Etcd3({ hosts: second.clientUrl });
    try {
      expect(await client.get('/registry/kept').string()).to.equal('still here');
      await client.put('/registry/after-restart').value('writable');
      expect(await client.get('/registry/after-restart').string()).to.equal('writable');
    } finally {
      client.close();
    }
    // the member advertises the peer URL it listens on now, not the one of the first start
    expect(await memberPeerUrls(second.clientUrl)).to.deep.equal([second.peerUrl]);
  });

  it('stop() ends the etcd process and is idempotent', async () => {
    const etcd = await startEmbeddedEtcd({ dataDir: path.join(tmp, 'stop') });
    const pid = etcd.process.pid;
    expect(isAlive(pid)).to.equal(true);
    await etcd.stop();
    expect(isAlive(pid)).to.equal(false);
    expect(etcd.process.exitCode !== null || etcd.process.signalCode !== null).to.equal(true);
    await etcd.stop();
    let reachable = true;
    await fetch(`${etcd.clientUrl}/health`, { signal: AbortSignal.timeout(1000) }).catch(() => { reachable = false; });
    expect(reachable).to.equal(false);
  });

  it('passes etcd log lines to logger.debug', async () => {
    const lines: string[] = [];
    const noop = () => undefined;
    const etcd = await startEmbeddedEtcd({
      dataDir: path.join(tmp, 'logs'),
      logger: { info: noop, warn: noop, error: noop, debug: (m) => lines.push(m) },
    });
    started.push(etcd);
    expect(lines.some((l) => l.startsWith('etcd: ') && l.includes('"level"'))).to.equal(true);
  });

  it('rejects with an install hint when the binary is missing', async () => {
    const err = await rejection(startEmbeddedEtcd({ dataDir: path.join(tmp, 'missing'), etcdBinary: path.join(tmp, 'no-such-etcd') }));
    expect(err).to.be.instanceOf(EmbeddedEtcdError);
    expect(err.code).to.equal('ETCD_NOT_FOUND');
    expect(err.message).to.include('apt-get install etcd-server');
  });

  it('rejects with the tail of stderr when etcd exits during start-up', async () => {
    const fake = path.join(tmp, 'failing-etcd');
    await fsp.writeFile(fake, '#!/bin/sh\necho "line one" >&2\necho "member dir is corrupt" >&2\nexit 3\n', { mode: 0o755 });
    const err = await rejection(startEmbeddedEtcd({ dataDir: path.join(tmp, 'failing'), etcdBinary: fake }));
    expect(err.code).to.equal('ETCD_EXITED');
    expect(err.message).to.include('code 3');
    expect(err.message).to.include('member dir is corrupt');
  });

  it('gives up with a timeout when etcd never becomes healthy, leaving no process behind', async () => {
    const fake = path.join(tmp, 'silent-etcd');
    const pidFile = path.join(tmp, 'silent-etcd.pid');
    // exec keeps the shell's pid, so the recorded pid is the process startEmbeddedEtcd must kill
    await fsp.writeFile(fake, `#!/bin/sh\necho $$ > ${pidFile}\nexec sleep 30\n`, { mode: 0o755 });
    const startedAt = Date.now();
    const err = await rejection(startEmbeddedEtcd({ dataDir: path.join(tmp, 'silent'), etcdBinary: fake, startTimeoutMs: 500 }));
    expect(err.code).to.equal('ETCD_START_TIMEOUT');
    expect(Date.now() - startedAt).to.be.below(5000);
    const pid = Number(await fsp.readFile(pidFile, 'utf8'));
    expect(pid).to.be.above(0);
    expect(isAlive(pid)).to.equal(false);
  });
});

describe('startTestEtcd', () => {
  it('starts a usable etcd and removes its data on stop', async () => {
    const etcd = await startTestEtcd();
    // Its own temp dir (other suites running in parallel make theirs too: counting them would race).
    const dataDir = etcd.dataDir!;
    expect(path.dirname(dataDir)).to.equal(os.tmpdir());
    expect(path.basename(dataDir)).to.match(/^orch-test-etcd-/);
    expect(fs.existsSync(dataDir)).to.equal(true);
    const client = new Etcd3({ hosts: etcd.endpoint });
    try {
      await client.put('k').value('v');
      expect(await client.get('k').string()).to.equal('v');
    } finally {
      client.close();
      await etcd.stop();
    }
    expect(fs.existsSync(dataDir)).to.equal(false);
  });
});
