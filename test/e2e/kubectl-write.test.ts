/**
 * The real kubectl (1.32) writing through the server process: client-side apply, server-side
 * apply with two field managers, patch of each type, label, annotate, edit with a scripted
 * EDITOR, and --dry-run=server leaving etcd untouched.
 *
 * create/apply run with kubectl's default client-side validation (it reads the server's OpenAPI).
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { useKubectlServer } from '../helpers/e2e-server';

const NS = 'e2e-write';

describe('kubectl write commands against the server process', function () {
  this.timeout(90_000);
  // No compactor and no leader election: their bookkeeping writes (compaction key, Lease
  // renewals every 2 s) would move etcd's revision during the dry-run checks.
  const e2e = useKubectlServer('kubectl-write', ['--etcd-compaction-interval=0', '--leader-elect=false', '--endpoint-reconciler-type=none']);
  const { ok, fails, manifest } = e2e;

  const configMap = (name: string, data: Record<string, string>, metadata: Record<string, unknown> = {}) =>
    ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, ...metadata }, data });

  /** The stored object as kubectl prints it, managedFields included. */
  async function getJson(name: string): Promise<any> {
    return JSON.parse((await ok(['get', 'configmap', name, '-n', NS, '-o', 'json', '--show-managed-fields'])).stdout);
  }

  /** etcd's current revision, read as the resourceVersion of a consistent list. */
  async function etcdRevision(): Promise<string> {
    const list = JSON.parse((await ok(['get', '--raw', `/api/v1/namespaces/${NS}/configmaps`])).stdout);
    expect(list.metadata.resourceVersion).to.match(/^\d+$/);
    return list.metadata.resourceVersion;
  }

  before(async () => {
    await ok(['create', '-f', manifest('ns.yaml', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })]);
  });

  it('client-side apply -f three times: create, change and add, remove a key', async () => {
    const first = await ok(['apply', '-f', manifest('csa-1.yaml', configMap('csa', { a: '1', b: '2' }))]);
    expect(first.stdout.trim()).to.equal('configmap/csa created');
    let stored = await getJson('csa');
    expect(stored.data).to.deep.equal({ a: '1', b: '2' });
    const lastApplied = stored.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'];
    expect(JSON.parse(lastApplied).data).to.deep.equal({ a: '1', b: '2' });
    // A key set by someone else is not in the manifest; apply's three-way merge must leave it.
    await ok(['patch', 'configmap', 'csa', '-n', NS, '--type', 'merge', '-p', '{"data":{"other":"x"}}']);

    const second = await ok(['apply', '-f', manifest('csa-2.yaml', configMap('csa', { a: '10', b: '2', c: '3' }))]);
    expect(second.stdout.trim()).to.equal('configmap/csa configured');
    stored = await getJson('csa');
    expect(stored.data).to.deep.equal({ a: '10', b: '2', c: '3', other: 'x' });

    const third = await ok(['apply', '-f', manifest('csa-3.yaml', configMap('csa', { a: '10', c: '3' }))]);
    expect(third.stdout.trim()).to.equal('configmap/csa configured');
    stored = await getJson('csa');
    expect(stored.data).to.deep.equal({ a: '10', c: '3', other: 'x' });
    expect(stored.data).to.not.have.property('b');
    const csaEntry = stored.metadata.managedFields.find((e: any) => e.manager === 'kubectl-client-side-apply');
    expect(csaEntry).to.include({ operation: 'Update', apiVersion: 'v1' });
  });

  it('apply --server-side: a second manager conflicts, then --force-conflicts takes the field', async () => {
    const asA = manifest('ssa-a.yaml', configMap('ssa', { k: 'from-a', onlyA: 'a' }));
    const created = await ok(['apply', '--server-side', '--field-manager=a', '-f', asA]);
    expect(created.stdout.trim()).to.equal('configmap/ssa serverside-applied');

    const asB = manifest('ssa-b.yaml', configMap('ssa', { k: 'from-b' }));
    const conflict = await fails(['apply', '--server-side', '--field-manager=b', '-f', asB]);
    expect(conflict.stderr).to.include('Apply failed with 1 conflict: conflict with "a": .data.k');
    expect(conflict.stderr).to.include('--force-conflicts');
    expect((await getJson('ssa')).data).to.deep.equal({ k: 'from-a', onlyA: 'a' });

    const forced = await ok(['apply', '--server-side', '--field-manager=b', '--force-conflicts', '-f', asB]);
    expect(forced.stdout.trim()).to.equal('configmap/ssa serverside-applied');
    const stored = await getJson('ssa');
    expect(stored.data).to.deep.equal({ k: 'from-b', onlyA: 'a' });
    const byManager = Object.fromEntries(stored.metadata.managedFields.map((e: any) => [e.manager, e]));
    expect(byManager.b).to.include({ operation: 'Apply' });
    expect(byManager.b.fieldsV1['f:data']).to.have.property('f:k');
    expect(byManager.a.fieldsV1['f:data']).to.have.property('f:onlyA').and.not.have.property('f:k');
  });

  it('patch --type strategic (default), merge and json', async () => {
    await ok(['create', '-f', manifest('patch.yaml', configMap('patched', { x: '1' }, { finalizers: ['example.com/a'] }))]);

    const strategic = await ok(['patch', 'configmap', 'patched', '-n', NS, '-p', '{"metadata":{"finalizers":["example.com/b"]},"data":{"y":"2"}}']);
    expect(strategic.stdout.trim()).to.equal('configmap/patched patched');
    let stored = await getJson('patched');
    expect(stored.metadata.finalizers, 'strategic merge unions finalizers').to.have.members(['example.com/a', 'example.com/b']);
    expect(stored.data).to.deep.equal({ x: '1', y: '2' });

    await ok(['patch', 'configmap', 'patched', '-n', NS, '--type', 'merge', '-p', '{"metadata":{"finalizers":["example.com/c"]},"data":{"x":null}}']);
    stored = await getJson('patched');
    expect(stored.metadata.finalizers, 'merge patch replaces the list').to.deep.equal(['example.com/c']);
    expect(stored.data).to.deep.equal({ y: '2' });

    await ok(['patch', 'configmap', 'patched', '-n', NS, '--type', 'json', '-p', '[{"op":"remove","path":"/metadata/finalizers"},{"op":"replace","path":"/data/y","value":"3"}]']);
    stored = await getJson('patched');
    expect(stored.metadata.finalizers).to.equal(undefined);
    expect(stored.data).to.deep.equal({ y: '3' });
    expect(stored.metadata.managedFields.map((e: any) => e.manager)).to.include('kubectl-patch');

    const failed = await fails(['patch', 'configmap', 'patched', '-n', NS, '--type', 'json', '-p', '[{"op":"replace","path":"/data/y","value":"4"},{"op":"test","path":"/data/y","value":"5"}]']);
    expect(failed.stderr).to.include('testing value /data/y failed');
    expect((await getJson('patched')).data).to.deep.equal({ y: '3' });
  });

  it('label and annotate add keys; `label key-` removes one', async () => {
    await ok(['create', '-f', manifest('label.yaml', configMap('labelled', { k: 'v' }))]);
    expect((await ok(['label', 'configmap', 'labelled', '-n', NS, 'tier=web', 'team=blue'])).stdout.trim()).to.equal('configmap/labelled labeled');
    expect((await ok(['annotate', 'configmap', 'labelled', '-n', NS, 'note=hello world'])).stdout.trim()).to.equal('configmap/labelled annotated');
    let stored = await getJson('labelled');
    expect(stored.metadata.labels).to.deep.equal({ tier: 'web', team: 'blue' });
    expect(stored.metadata.annotations).to.deep.equal({ note: 'hello world' });
    const managers = stored.metadata.managedFields.map((e: any) => e.manager);
    expect(managers).to.include.members(['kubectl-label', 'kubectl-annotate']);

    expect((await ok(['label', 'configmap', 'labelled', '-n', NS, 'tier-'])).stdout.trim()).to.equal('configmap/labelled unlabeled');
    await ok(['label', 'configmap', 'labelled', '-n', NS, '--overwrite', 'team=red']);
    stored = await getJson('labelled');
    expect(stored.metadata.labels).to.deep.equal({ team: 'red' });
    expect(stored.data).to.deep.equal({ k: 'v' });
  });

  it('diff of an unchanged object exits 0; with a change, exits 1 showing only that change', async () => {
    // Created without kubectl's last-applied annotation: diff's merge sends `annotations: {}`,
    // which kube-apiserver decodes into ObjectMeta as no annotations at all.
    await ok(['create', 'configmap', 'diffed', '-n', NS, '--from-literal=a=1']);
    const live = JSON.parse((await ok(['get', 'configmap', 'diffed', '-n', NS, '-o', 'json'])).stdout);
    const unchanged = await e2e.kubectl(['diff', '-f', manifest('diff-same.yaml', live)]);
    expect(unchanged.code, unchanged.stdout + unchanged.stderr).to.equal(0);
    expect(unchanged.stdout).to.equal('');

    const diff = await e2e.kubectl(['diff', '-f', manifest('diff-changed.yaml', { ...live, data: { a: '2' } })]);
    expect(diff.code, diff.stderr).to.equal(1);
    const lines = diff.stdout.split('\n').filter((l) => /^[-+][^-+]/.test(l));
    expect(lines).to.deep.equal(['-  a: "1"', '+  a: "2"']);
  });

  it('removing the last label, annotation or finalizer leaves no empty map or list behind', async () => {
    await ok(['create', '-f', manifest('emptied.yaml', configMap('emptied', { k: 'v' }, { labels: { only: 'x' }, annotations: { note: 'n' }, finalizers: ['example.com/hold'] }))]);
    await ok(['label', 'configmap', 'emptied', '-n', NS, 'only-']);
    await ok(['annotate', 'configmap', 'emptied', '-n', NS, 'note-']);
    await ok(['patch', 'configmap', 'emptied', '-n', NS, '--type', 'json', '-p', '[{"op":"remove","path":"/metadata/finalizers/0"}]']);
    const raw = JSON.parse((await ok(['get', '--raw', `/api/v1/namespaces/${NS}/configmaps/emptied`])).stdout);
    expect(raw.metadata).to.not.have.any.keys('labels', 'annotations', 'finalizers');
  });

  it('edit with EDITOR set to a script that rewrites a value', async () => {
    await ok(['create', '-f', manifest('edit.yaml', configMap('edited', { mode: 'slow', keep: 'me' }))]);
    const before = await getJson('edited');
    const editor = path.join(e2e.dir, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i \'s/^  mode: slow$/  mode: fast/\' "$1"\n', { mode: 0o755 });
    const res = await ok(['edit', 'configmap', 'edited', '-n', NS], { env: { EDITOR: editor, KUBE_EDITOR: editor } });
    expect(res.stdout.trim()).to.equal('configmap/edited edited');
    const after = await getJson('edited');
    expect(after.data).to.deep.equal({ mode: 'fast', keep: 'me' });
    expect(after.metadata.resourceVersion).to.not.equal(before.metadata.resourceVersion);
    const entry = after.metadata.managedFields.find((e: any) => e.manager === 'kubectl-edit');
    expect(entry, 'edit is recorded as an Update by kubectl-edit').to.include({ operation: 'Update' });
    expect(entry.fieldsV1['f:data']).to.have.property('f:mode');
  });

  it('create, apply, apply --server-side and delete with --dry-run=server leave etcd untouched', async () => {
    await ok(['create', '-f', manifest('dry-existing.yaml', configMap('dry-existing', { k: 'v' }))]);
    const before = await getJson('dry-existing');
    const revision = await etcdRevision();

    const created = await ok(['create', '-f', manifest('dry-new.yaml', configMap('dry-new', { k: 'v' })), '--dry-run=server']);
    expect(created.stdout.trim()).to.equal('configmap/dry-new created (server dry run)');
    const applyNew = await ok(['apply', '-f', manifest('dry-new.yaml', configMap('dry-new', { k: 'v' })), '--dry-run=server']);
    expect(applyNew.stdout.trim()).to.equal('configmap/dry-new created (server dry run)');
    const changed = manifest('dry-changed.yaml', configMap('dry-existing', { k: 'changed', added: 'x' }));
    const applied = await ok(['apply', '-f', changed, '--dry-run=server']);
    expect(applied.stdout.trim()).to.equal('configmap/dry-existing configured (server dry run)');
    const ssa = await ok(['apply', '--server-side', '--force-conflicts', '-f', changed, '--dry-run=server', '-o', 'json']);
    expect(JSON.parse(ssa.stdout).data, 'the dry run answers the would-be object').to.deep.equal({ k: 'changed', added: 'x' });
    const deleted = await ok(['delete', 'configmap', 'dry-existing', '-n', NS, '--dry-run=server']);
    expect(deleted.stdout.trim()).to.equal('configmap "dry-existing" deleted (server dry run)');

    expect(await etcdRevision(), 'no write reached etcd').to.equal(revision);
    const missing = await fails(['get', 'configmap', 'dry-new', '-n', NS]);
    expect(missing.stderr).to.include('NotFound');
    const after = await getJson('dry-existing');
    expect(after.metadata.resourceVersion).to.equal(before.metadata.resourceVersion);
    expect(after).to.deep.equal(before);
  });
});
