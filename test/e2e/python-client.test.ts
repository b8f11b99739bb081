/**
 * Debian's python3-kubernetes (22.6) against the real server process: the list-then-watch loop
 * of test/e2e/python/watch_client.py, and its recovery from a 410 when the version it watches
 * from was compacted away (re-list, then watch from the fresh list's version).
 * The server runs on a test etcd of our own, so the test can compact it; writes use kubectl.
 */
import { WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Etcd3 } from 'etcd3';
import { stringify as stringifyYaml } from 'yaml';
import { startServerProcess, ServerProcess } from '../helpers/server-process';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { Kubectl, kubectlFor, KubectlResult } from '../helpers/kubectl';
import { expectKubectlOk } from '../helpers/e2e-server';
import { LineProcess, spawnLines } from '../helpers/line-process';
import { requirePythonKubernetes, PYTHON } from '../helpers/python-kubernetes';

const SCRIPT = path.resolve(__dirname, '../../../test/e2e/python/watch_client.py');

/** One line the script printed (see watch_client.py). */
interface ScriptLine { type: string; name?: string | null; resourceVersion?: string; names?: string[]; status?: number }

describe('python3-kubernetes watch against the server process', function () {
  this.timeout(60_000);
  let dir: string;
  let etcd: TestEtcd | undefined;
  let server: ServerProcess | undefined;
  let kubectl: Kubectl;
  let clients: LineProcess[] = [];

  /** (Re)starts the server on our etcd, with the same data dir (PKI) and `extraArgs`. */
  async function startServer(extraArgs: string[] = []): Promise<void> {
    await stopServer();
    server = await startServerProcess([`--data-dir=${path.join(dir, 'data')}`, '--secure-port=0',
      `--etcd-servers=${etcd!.endpoint}`, '--etcd-compaction-interval=0', WITHOUT_NAMESPACE_DEFAULTS, ...extraArgs]);
    kubectl = kubectlFor(server.kubeconfigPath, path.join(dir, 'kube-cache'));
  }

  async function stopServer(): Promise<void> {
    const s = server;
    server = undefined;
    const exit = await s?.stop();
    if (exit?.forced) throw new Error(`server did not exit on SIGTERM:\n${s!.stderrTail()}`);
  }

  before(async function () {
    await requirePythonKubernetes();
    dir = mkdtempSync(path.join(os.tmpdir(), 'orch-e2e-python-'));
    etcd = await startTestEtcd();
    await startServer();
  });

  afterEach(async () => {
    await Promise.all(clients.map((c) => c.stop()));
    clients = [];
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.stop()));
    try {
      await stopServer();
    } finally {
      await etcd?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  });

  const ok = (args: string[]): Promise<KubectlResult> => expectKubectlOk(kubectl, args, {}, server);

  let manifests = 0;
  const configMap = (namespace: string, name: string, data: Record<string, string>) =>
    ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data });

  /** `kubectl <verb> -f` of `obj` (create or replace); returns the stored resourceVersion. */
  async function writeFile(verb: 'create' | 'replace', obj: unknown): Promise<string> {
    const p = path.join(dir, `manifest-${++manifests}.yaml`);
    writeFileSync(p, stringifyYaml(obj, { version: '1.1' }));
    const { stdout } = await ok([verb, '-f', p, '--validate=false', '-o', 'jsonpath={.metadata.resourceVersion}']);
    expect(stdout, `${verb} printed no resourceVersion`).to.match(/^\d+$/);
    return stdout;
  }

  const createNamespace = (name: string) => writeFile('create', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

  /** Compacts etcd to its current revision; returns that revision. */
  async function compactEtcd(): Promise<number> {
    const client = new Etcd3({ hosts: etcd!.endpoint });
    try {
      const revision = Number((await client.kv.range({ key: Buffer.from('compact_rev_key') })).header.revision);
      await client.kv.compact({ revision: String(revision), physical: true });
      return revision;
    } finally {
      client.close();
    }
  }

  function startClient(namespace: string, extraArgs: string[] = []): LineProcess {
    const c = spawnLines(PYTHON, [SCRIPT, '--kubeconfig', server!.kubeconfigPath, '--namespace', namespace,
      '--watch-seconds', '30', '--run-seconds', '50', ...extraArgs]);
    clients.push(c);
    return c;
  }

  /** The script's lines but bookmarks (sent at each watch's timeout, and every minute). */
  const printed = (lines: string[]): ScriptLine[] =>
    lines.map((l) => JSON.parse(l) as ScriptLine).filter((l) => l.type !== 'BOOKMARK');

  const waitPrinted = async (c: LineProcess, count: number, what: string) =>
    printed(await c.waitFor((l) => printed(l).length >= count, what));

  it('lists, then watches from the list resourceVersion and sees ADDED, MODIFIED, DELETED in order', async () => {
    const ns = 'py-watch';
    await createNamespace(ns);
    await createNamespace(`${ns}-elsewhere`);
    const rvBefore = await writeFile('create', configMap(ns, 'before', { n: '1' }));

    const c = startClient(ns);
    const [listed] = await waitPrinted(c, 1, 'the list');
    expect(listed).to.include({ type: 'LISTED' }).and.to.have.property('names').deep.equal(['before']);
    expect(Number(listed.resourceVersion)).to.be.at.least(Number(rvBefore));

    const rvAdded = await writeFile('create', configMap(ns, 'after', { n: '1' }));
    const rvModified = await writeFile('replace', configMap(ns, 'after', { n: '2' }));
    await writeFile('create', configMap(`${ns}-elsewhere`, 'unwatched', { n: '1' }));
    await ok(['delete', 'configmap', 'before', '-n', ns]);

    const lines = await waitPrinted(c, 4, 'three events');
    expect(lines.slice(1).map((l) => [l.type, l.name, l.type === 'DELETED' ? '' : l.resourceVersion])).to.deep.equal([
      ['ADDED', 'after', rvAdded], ['MODIFIED', 'after', rvModified], ['DELETED', 'before', ''],
    ]);
    expect(Number(lines[3].resourceVersion)).to.be.above(Number(rvModified));
  });

  /**
   * Writes, notes the first version R, compacts etcd past it (`between` runs in the middle, e.g.
   * a server restart), then runs the script from R: it must get a 410, re-list, and see a change
   * made after the re-list.
   */
  async function recoversFromGone(ns: string, between: () => Promise<void>): Promise<void> {
    await createNamespace(ns);
    const old = await writeFile('create', configMap(ns, 'old', { n: '1' }));
    await writeFile('replace', configMap(ns, 'old', { n: '2' }));
    await writeFile('replace', configMap(ns, 'old', { n: '3' }));
    const compactedTo = await compactEtcd();
    expect(compactedTo).to.be.above(Number(old));
    await between();

    const c = startClient(ns, ['--resource-version', old]);
    const firstThree = await waitPrinted(c, 3, 'LISTED, GONE and RELISTED');
    expect(firstThree.map((l) => l.type)).to.deep.equal(['LISTED', 'GONE', 'RELISTED']);
    expect(firstThree[1]).to.include({ status: 410, resourceVersion: old });
    expect(firstThree[2].names).to.deep.equal(['old']);
    expect(Number(firstThree[2].resourceVersion)).to.be.at.least(compactedTo);

    const rvFresh = await writeFile('create', configMap(ns, 'fresh', { n: '1' }));
    const lines = await waitPrinted(c, 4, 'the change after the re-list');
    expect(lines.map((l) => [l.type, l.name ?? ''])).to.deep.equal([['LISTED', ''], ['GONE', ''], ['RELISTED', ''], ['ADDED', 'fresh']]);
    expect(lines[3].resourceVersion).to.equal(rvFresh);
  }

  it('a watch from a version compacted before a server restart gets 410; the client re-lists and watches on (watch cache)', async () => {
    // The watch cache keeps changes since it started, compacted or not: a version from before
    // the restart is older than anything it holds.
    await recoversFromGone('py-gone-cache', () => startServer());
  });

  it('a watch from a compacted version gets 410; the client re-lists and watches on (--watch-cache=false)', async () => {
    await startServer(['--watch-cache=false']);
    await recoversFromGone('py-gone-etcd', async () => undefined);
  });
});
