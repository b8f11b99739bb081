/**
 * The real kubectl (1.32) against the real server process with its embedded etcd: the commands a
 * user types first, as the foundation issue listed them (create/replace with --validate=false).
 * Default validation is covered by kubectl-openapi.test.ts, protobuf bodies by kubectl-protobuf.test.ts.
 */
import { expect } from 'chai';
import { parse as parseYaml } from 'yaml';
import { parseTable } from '../helpers/kubectl';
import { useKubectlServer } from '../helpers/e2e-server';

const RFC3339_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('kubectl against the server process', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl');
  const { ok, fails, manifest } = e2e;

  const configMap = (name: string, namespace: string, data: Record<string, string>, labels?: Record<string, string>) =>
    ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...(labels ? { labels } : {}) }, data });
  const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

  const createFile = (file: string, obj: unknown) => ok(['create', '-f', manifest(file, obj), '--validate=false']);

  it('get ns lists the bootstrap namespaces in a NAME table', async () => {
    const { stdout } = await ok(['get', 'ns']);
    const table = parseTable(stdout);
    expect(table.columns[0]).to.equal('NAME');
    expect(table.rows.map((r) => r.NAME)).to.include.members(['default', 'orch-system', 'orch-public']);
  });

  it('create -f creates a Namespace and a ConfigMap in it', async () => {
    const ns = await createFile('create-ns.yaml', namespace('e2e-create'));
    expect(ns.stdout.trim()).to.equal('namespace/e2e-create created');
    const cm = await createFile('create-cm.yaml', configMap('settings', 'e2e-create', { mode: 'fast' }));
    expect(cm.stdout.trim()).to.equal('configmap/settings created');

    const stored = await ok(['get', 'configmap', 'settings', '-n', 'e2e-create', '-o', 'jsonpath={.data.mode}']);
    expect(stored.stdout).to.equal('fast');
  });

  it('get -o yaml and -o json print the stored object with its system fields', async () => {
    const startedAt = Date.now();
    await createFile('output-cm.yaml', configMap('output', 'default', { colour: 'blue', size: '3' }));
    const yaml = parseYaml((await ok(['get', 'configmap', 'output', '-n', 'default', '-o', 'yaml'])).stdout);
    const json = JSON.parse((await ok(['get', 'configmap', 'output', '-n', 'default', '-o', 'json'])).stdout);

    expect(json).to.deep.equal(yaml);
    expect(json).to.include({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(json.data).to.deep.equal({ colour: 'blue', size: '3' });
    expect(json.metadata).to.include({ name: 'output', namespace: 'default' });
    expect(json.metadata.uid).to.match(UUID);
    expect(json.metadata.resourceVersion).to.match(/^[1-9]\d*$/);
    expect(json.metadata.creationTimestamp).to.match(RFC3339_SECONDS);
    const created = Date.parse(json.metadata.creationTimestamp);
    expect(created).to.be.within(startedAt - 60_000, Date.now() + 60_000);
  });

  it('replace -f stores the change, and a second replace of the stale manifest conflicts', async () => {
    await createFile('replace-cm.yaml', configMap('replaced', 'default', { level: 'low' }));
    const saved = parseYaml((await ok(['get', 'configmap', 'replaced', '-n', 'default', '-o', 'yaml'])).stdout);
    expect(saved.metadata.resourceVersion, 'the saved manifest carries a resourceVersion').to.be.a('string');
    saved.data.level = 'high';
    const file = manifest('replace-saved.yaml', saved);

    const first = await ok(['replace', '-f', file, '--validate=false']);
    expect(first.stdout.trim()).to.equal('configmap/replaced replaced');
    const after = JSON.parse((await ok(['get', 'configmap', 'replaced', '-n', 'default', '-o', 'json'])).stdout);
    expect(after.data).to.deep.equal({ level: 'high' });
    expect(after.metadata.resourceVersion).to.not.equal(saved.metadata.resourceVersion);

    const second = await fails(['replace', '-f', file, '--validate=false']);
    expect(second.stderr).to.include('Conflict').and.include('the object has been modified');
    const unchanged = JSON.parse((await ok(['get', 'configmap', 'replaced', '-n', 'default', '-o', 'json'])).stdout);
    expect(unchanged.metadata.resourceVersion, 'the rejected replace wrote nothing').to.equal(after.metadata.resourceVersion);
  });

  it('get -l selects by label, and get of a missing name fails with NotFound', async () => {
    await createFile('select-a.yaml', configMap('picked', 'default', { a: '1' }, { tier: 'e2e-select' }));
    await createFile('select-b.yaml', configMap('skipped', 'default', { b: '2' }, { tier: 'e2e-other' }));

    const { stdout } = await ok(['get', 'cm', '-n', 'default', '-l', 'tier=e2e-select']);
    const table = parseTable(stdout);
    expect(table.columns[0]).to.equal('NAME');
    expect(table.rows.map((r) => r.NAME)).to.deep.equal(['picked']);

    const missing = await fails(['get', 'cm', 'no-such-map', '-n', 'default']);
    expect(missing.stderr).to.include('NotFound').and.include('configmaps "no-such-map" not found');
  });

  it('delete configmap removes it', async () => {
    await createFile('delete-cm.yaml', configMap('doomed', 'default', { x: 'y' }));
    const del = await ok(['delete', 'configmap', 'doomed', '-n', 'default']);
    expect(del.stdout.trim()).to.equal('configmap "doomed" deleted');
    const gone = await fails(['get', 'configmap', 'doomed', '-n', 'default']);
    expect(gone.stderr).to.include('configmaps "doomed" not found');
  });

  it('delete ns waits until the namespace and its contents are gone', async () => {
    await createFile('doomed-ns.yaml', namespace('e2e-doomed'));
    await createFile('doomed-ns-cm.yaml', configMap('inside', 'e2e-doomed', { k: 'v' }));
    await createFile('doomed-ns-secret.yaml', {
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 'inside', namespace: 'e2e-doomed' }, stringData: { password: 'hunter2' },
    });

    // kubectl deletes, then GETs; while the namespace is Terminating it lists and watches it by name.
    const del = await ok(['delete', 'ns', 'e2e-doomed'], { timeoutMs: 60_000 });
    expect(del.stdout.trim()).to.equal('namespace "e2e-doomed" deleted');

    const gone = await fails(['get', 'ns', 'e2e-doomed']);
    expect(gone.stderr).to.include('NotFound').and.include('namespaces "e2e-doomed" not found');
    const contents = await ok(['get', 'configmaps,secrets', '-n', 'e2e-doomed', '-o', 'name']);
    expect(contents.stdout.trim(), 'the namespace controller deleted the contents').to.equal('');
  });

  it('wait returns as soon as the watched condition holds', async () => {
    await createFile('wait-cm.yaml', configMap('awaited', 'default', { phase: 'ready' }));
    // kubectl returns only once its watch request has returned: the server must send the watch's
    // headers at once, not with the first event (the next one could be a minute away).
    const met = await ok(['wait', '--for=jsonpath={.data.phase}=ready', 'configmap/awaited', '-n', 'default', '--timeout=60s'], { timeoutMs: 20_000 });
    expect(met.stdout.trim()).to.equal('configmap/awaited condition met');

    const waiting = e2e.kubectl(['wait', '--for=delete', 'configmap/awaited', '-n', 'default', '--timeout=60s'], { timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 1_000));
    await ok(['delete', 'configmap', 'awaited', '-n', 'default']);
    const deleted = await waiting;
    expect(deleted.code, `kubectl wait --for=delete: ${deleted.timedOut ? 'timed out' : deleted.stderr}`).to.equal(0);
    expect(deleted.stdout.trim()).to.equal('configmap/awaited condition met');
  });

  it('get --raw /readyz?verbose, api-resources and version work', async () => {
    const readyz = await ok(['get', '--raw', '/readyz?verbose']);
    expect(readyz.stdout.split('\n').slice(0, 3)).to.deep.equal(['[+]ping ok', '[+]log ok', '[+]etcd ok']);
    expect(readyz.stdout).to.include('readyz check passed');
    // The probe above was counted on /metrics/slis, as kube-apiserver counts it.
    const slis = (await ok(['get', '--raw', '/metrics/slis'])).stdout;
    expect(slis).to.match(/^kubernetes_healthchecks_total\{name="etcd",type="readyz",status="success"\} [1-9]\d*$/m);
    expect(slis).to.match(/^kubernetes_healthcheck\{name="log",type="readyz"\} 1$/m);

    const resources = parseTable((await ok(['api-resources'])).stdout);
    expect(resources.columns).to.include.members(['NAME', 'SHORTNAMES', 'NAMESPACED', 'KIND']);
    const row = (name: string) => resources.rows.find((r) => r.NAME === name);
    expect(row('configmaps')).to.include({ SHORTNAMES: 'cm', NAMESPACED: 'true', KIND: 'ConfigMap' });
    expect(row('namespaces')).to.include({ SHORTNAMES: 'ns', NAMESPACED: 'false', KIND: 'Namespace' });

    const version = await ok(['version']);
    expect(version.stdout).to.match(/^Server Version: v1\.32\.\S+$/m);
    const parsed = JSON.parse((await ok(['version', '-o', 'json'])).stdout);
    expect(parsed.serverVersion).to.include({ major: '1', minor: '32' });
  });

  it('create -f of an object with an invalid name fails as invalid', async () => {
    const r = await fails(['create', '-f', manifest('bad-name.yaml', configMap('Bad_Name', 'default', { a: 'b' })), '--validate=false']);
    expect(r.stderr).to.include('is invalid').and.include('metadata.name');
  });
});
