/**
 * `kubectl get -w` (1.32) against the real server process: list then watch from the list's
 * resourceVersion, and `get NAME -w`, which prints the object it GETs, then watches with
 * `fieldSelector=metadata.name=NAME&resourceVersion=0` and drops the first event, so the
 * server must open that watch with a synthetic ADDED of the current object.
 * Writes use create -f / replace -f (--validate=false) and delete: imperative create sends
 * protobuf and label sends PATCH, neither served yet.
 */
import { WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { LineProcess } from '../helpers/line-process';

interface PrintedEvent { type: string; name: string; resourceVersion: string; data?: Record<string, string> }

describe('kubectl get -w against the server process', function () {
  this.timeout(60_000);
  const e2e = useKubectlServer('kubectl-watch', [WITHOUT_NAMESPACE_DEFAULTS]);
  const { ok } = e2e;

  /**
   * `kubectl get ... -w` as a running child; -v=6 makes it log each request with its status on
   * stderr, which tells when its watch request has been answered.
   */
  function startWatch(args: string[]): LineProcess {
    return e2e.spawnKubectl(['-v=6', 'get', ...args, '-w']);
  }

  /** The server has answered the watcher's `watch=true` request (with `query` in its URL) 200. */
  const watchOpened = (w: LineProcess, query = '') =>
    w.waitForStderr(new RegExp(`GET \\S+\\?\\S*${query}\\S*watch=true\\S* 200 OK`));

  let manifests = 0;
  const configMap = (namespace: string, name: string, data: Record<string, string>) =>
    ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data });

  /** `kubectl <verb> -f` of `obj` (create or replace); returns the stored resourceVersion. */
  async function writeFile(verb: 'create' | 'replace', obj: unknown): Promise<string> {
    const p = e2e.manifest(`manifest-${++manifests}.yaml`, obj);
    const { stdout } = await ok([verb, '-f', p, '--validate=false', '-o', 'jsonpath={.metadata.resourceVersion}']);
    expect(stdout, `${verb} printed no resourceVersion`).to.match(/^\d+$/);
    return stdout;
  }

  async function createNamespace(name: string): Promise<void> {
    await writeFile('create', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }

  /** The first column of a printed table row. */
  const firstCell = (line: string) => line.trim().split(/\s+/)[0];

  /** Lines printed by `--output-watch-events -o json`: one compact WatchEvent per line. */
  function events(lines: string[]): PrintedEvent[] {
    return lines.map((line) => {
      const ev = JSON.parse(line);
      return { type: ev.type, name: ev.object.metadata.name, resourceVersion: ev.object.metadata.resourceVersion, data: ev.object.data };
    });
  }

  it('get cm -w prints the listed objects, then a row for each later create, replace and delete', async () => {
    const ns = 'watch-table';
    await createNamespace(ns);
    await createNamespace(`${ns}-elsewhere`);
    await writeFile('create', configMap(ns, 'first', { n: '1' }));

    const w = startWatch(['configmaps', '-n', ns]);
    await w.waitFor((l) => l.length >= 2, 'the listed table');
    expect(firstCell(w.lines[0])).to.equal('NAME');
    expect(w.lines.slice(1).map(firstCell)).to.deep.equal(['first']);
    await watchOpened(w, `resourceVersion=\\d+&`);

    await writeFile('create', configMap(ns, 'second', { n: '1' }));
    await writeFile('replace', configMap(ns, 'second', { n: '2' }));
    await writeFile('create', configMap(`${ns}-elsewhere`, 'unwatched', { n: '1' }));
    await ok(['delete', 'configmap', 'first', '-n', ns]);
    await writeFile('create', configMap(ns, 'third', { n: '1' }));

    await w.waitFor((l) => l.length >= 6, 'a row per change');
    // Nothing in between: no row for the other namespace, no bookmark printed as junk.
    expect(w.lines.slice(1).map(firstCell)).to.deep.equal(['first', 'second', 'second', 'first', 'third']);
  });

  it('get cm NAME -w prints the object at once, then every update (the watch opens with a synthetic ADDED)', async () => {
    const ns = 'watch-name-table';
    await createNamespace(ns);
    await writeFile('create', configMap(ns, 'target', { n: '1' }));

    const w = startWatch(['configmap', 'target', '-n', ns]);
    await w.waitFor((l) => l.length >= 2, 'the object');
    expect(w.lines.map(firstCell)).to.deep.equal(['NAME', 'target']);
    await watchOpened(w, 'fieldSelector=metadata.name%3Dtarget&resourceVersion=0&');

    // kubectl drops the watch's first event: without the synthetic ADDED this update would vanish.
    await writeFile('replace', configMap(ns, 'target', { n: '2' }));
    await w.waitFor((l) => l.length >= 3, 'a row for the first update');
    await writeFile('create', configMap(ns, 'bystander', { n: '1' }));
    await writeFile('replace', configMap(ns, 'target', { n: '3' }));
    await w.waitFor((l) => l.length >= 4, 'a row for the second update');
    expect(w.lines.map(firstCell)).to.deep.equal(['NAME', 'target', 'target', 'target']);
  });

  it('get cm NAME -w --output-watch-events -o json: ADDED with the current object, then MODIFIED and DELETED of that name only', async () => {
    const ns = 'watch-name-events';
    await createNamespace(ns);
    const created = await writeFile('create', configMap(ns, 'target', { n: '1' }));

    const w = startWatch(['configmap', 'target', '-n', ns, '--output-watch-events', '-o', 'json']);
    await w.waitFor((l) => l.length >= 1, 'the object as ADDED');
    await watchOpened(w, 'fieldSelector=metadata.name%3Dtarget&resourceVersion=0&');

    const replaced = await writeFile('replace', configMap(ns, 'target', { n: '2' }));
    await writeFile('create', configMap(ns, 'bystander', { n: '1' }));
    await ok(['delete', 'configmap', 'target', '-n', ns]);

    const printed = events(await w.waitFor((l) => l.length >= 3, 'MODIFIED and DELETED'));
    expect(printed.map((e) => [e.type, e.name])).to.deep.equal([['ADDED', 'target'], ['MODIFIED', 'target'], ['DELETED', 'target']]);
    expect(printed[0]).to.include({ resourceVersion: created });
    expect(printed[0].data).to.deep.equal({ n: '1' });
    expect(printed[1]).to.include({ resourceVersion: replaced });
    expect(printed[1].data).to.deep.equal({ n: '2' });
    expect(Number(printed[2].resourceVersion)).to.be.above(Number(replaced));
  });

  it('get cm -w --output-watch-events -o json: ADDED for each listed object, then ADDED, MODIFIED, DELETED in order', async () => {
    const ns = 'watch-events';
    await createNamespace(ns);
    const rvA = await writeFile('create', configMap(ns, 'a', { n: '1' }));
    const rvB = await writeFile('create', configMap(ns, 'b', { n: '1' }));

    const w = startWatch(['configmaps', '-n', ns, '--output-watch-events', '-o', 'json']);
    await w.waitFor((l) => l.length >= 2, 'the listed objects as ADDED');
    await watchOpened(w, `resourceVersion=\\d+&`);

    const rvC = await writeFile('create', configMap(ns, 'c', { n: '1' }));
    const rvA2 = await writeFile('replace', configMap(ns, 'a', { n: '2' }));
    await ok(['delete', 'configmap', 'b', '-n', ns]);

    const printed = events(await w.waitFor((l) => l.length >= 5, 'ADDED, MODIFIED and DELETED'));
    expect(printed.map((e) => [e.type, e.name, e.type === 'DELETED' ? '' : e.resourceVersion])).to.deep.equal([
      ['ADDED', 'a', rvA], ['ADDED', 'b', rvB], ['ADDED', 'c', rvC], ['MODIFIED', 'a', rvA2], ['DELETED', 'b', ''],
    ]);
    expect(printed[3].data).to.deep.equal({ n: '2' });
    expect(Number(printed[4].resourceVersion)).to.be.above(Number(rvA2));
  });
});
