/**
 * The server's log as an operator reads it, from the built binary: --logging-format=text gives
 * klog's lines, JSON is the default on a pipe, and request lines ("HTTP") appear from -v=3 only,
 * as kube-apiserver's httplog, naming the user but never the bearer token.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { kubectlFor } from '../helpers/kubectl';
import { ServerProcess, startServerProcess } from '../helpers/server-process';

describe('logging: --logging-format and -v on the built server', function () {
  this.timeout(120_000);
  let etcd: TestEtcd;
  const dirs: string[] = [];
  before(async () => { etcd = await startTestEtcd(); });
  after(async () => {
    await etcd?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** Starts the server with `args`, runs `kubectl get namespaces` and returns what stderr said meanwhile. */
  async function linesDuringKubectl(args: string[]): Promise<string[]> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-logging-'));
    dirs.push(dir);
    const server: ServerProcess = await startServerProcess([`--data-dir=${path.join(dir, 'data')}`, `--etcd-servers=${etcd.endpoint}`,
      `--etcd-prefix=/${path.basename(dir)}`, '--secure-port=0', ...args]);
    const lines: string[] = [];
    server.process.stderr!.on('data', (chunk: string) => { for (const l of chunk.split('\n')) if (l) lines.push(l); });
    try {
      const res = await kubectlFor(server.kubeconfigPath, path.join(dir, 'cache'))(['get', 'namespaces', '-o', 'name']);
      expect(res.code, res.stderr).to.equal(0);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      await server.stop();
    }
    return lines;
  }

  it('--logging-format=text -v=3: klog lines, with a request line per request', async () => {
    const lines = await linesDuringKubectl(['--logging-format=text', '-v=3']);
    expect(lines.length).to.be.greaterThan(0);
    for (const l of lines) expect(l, 'every line has klog\'s header').to.match(/^[IWE]\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+ orch-apiserver\] "/);
    const list = lines.find((l) => /\] "HTTP" /.test(l) && / verb="list"/.test(l) && / path="\/api\/v1\/namespaces"/.test(l));
    expect(list, lines.join('\n')).to.be.a('string');
    expect(list).to.match(/ userAgent="kubectl\/v1\.\d+/).and.match(/ srcIP="127\.0\.0\.1:\d+"/).and.match(/ resp=200/).and.match(/ latencyMs=[\d.]+/);
  });

  it('on a pipe by default: JSON lines, and no request lines at -v=0 (kube-apiserver logs them from V(3))', async () => {
    const lines = await linesDuringKubectl([]);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.some((r) => r.message === 'HTTP')).to.equal(false);
    expect(records.every((r) => typeof r.level === 'string' && typeof r.timestamp === 'string')).to.equal(true);
  });

  it('-v=3 in JSON: one record per request with the same fields', async () => {
    const records = (await linesDuringKubectl(['-v=3'])).map((l) => JSON.parse(l) as Record<string, unknown>);
    const list = records.find((r) => r.message === 'HTTP' && r.verb === 'list' && r.path === '/api/v1/namespaces');
    expect(list).to.include({ resp: 200, URI: '/api/v1/namespaces?limit=500' });
    expect(list?.srcIP).to.match(/^127\.0\.0\.1:\d+$/);
    expect(list?.user).to.be.a('string');
  });
});
