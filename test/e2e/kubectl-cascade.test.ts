/**
 * The real kubectl (1.32) deleting owners with `--cascade=foreground|orphan|background` against
 * the server process. Dependents are created with `kubectl create -f` and ownerReferences that
 * carry the owner's uid, read with `get -o jsonpath`.
 *
 * create runs with kubectl's default client-side validation (it reads the server's OpenAPI).
 */
import { expect } from 'chai';
import { KubectlResult } from '../helpers/kubectl';
import { useKubectlServer } from '../helpers/e2e-server';

const NS = 'e2e-cascade';

describe('kubectl delete --cascade against the server process', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-cascade');
  const { manifest } = e2e;
  const ok = (args: string[]): Promise<KubectlResult> => e2e.ok(args, { timeoutMs: 60_000 });

  /** The ConfigMap as kubectl prints it, or undefined when kubectl reports NotFound. */
  async function getCm(name: string): Promise<any> {
    const r = await e2e.kubectl(['get', 'configmap', name, '-n', NS, '-o', 'json']);
    if (r.code !== 0) {
      expect(r.stderr).to.match(/NotFound|not found/);
      return undefined;
    }
    return JSON.parse(r.stdout);
  }

  async function eventuallyGone(name: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (await getCm(name)) {
      if (Date.now() > deadline) throw new Error(`configmap ${name} was not collected in time`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** An owner ConfigMap and dependents referencing it by the uid kubectl reads back. */
  async function ownerWithDependents(owner: string, dependents: string[], blockOwnerDeletion = true): Promise<string> {
    await ok(['create', '-f', manifest(`${owner}.yaml`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: owner, namespace: NS }, data: { role: 'owner' } })]);
    const uid = (await ok(['get', 'configmap', owner, '-n', NS, '-o', 'jsonpath={.metadata.uid}'])).stdout.trim();
    expect(uid).to.match(/^[0-9a-f-]{36}$/);
    for (const name of dependents) {
      const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid, blockOwnerDeletion }];
      await ok(['create', '-f', manifest(`${name}.yaml`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, ownerReferences }, data: { role: 'dependent' } })]);
    }
    return uid;
  }

  before(async () => {
    await ok(['create', '-f', manifest('ns.yaml', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })]);
  });

  it('--cascade=foreground returns once the owner is gone, and its blocking dependents went first', async () => {
    await ownerWithDependents('fg-owner', ['fg-dep-1', 'fg-dep-2']);
    const r = await ok(['delete', 'configmap', 'fg-owner', '-n', NS, '--cascade=foreground']);
    expect(r.stdout.trim()).to.equal('configmap "fg-owner" deleted');
    expect(await getCm('fg-owner')).to.equal(undefined);
    expect(await getCm('fg-dep-1')).to.equal(undefined);
    expect(await getCm('fg-dep-2')).to.equal(undefined);
  });

  it('--cascade=orphan removes the owner and leaves the dependents without the reference', async () => {
    await ownerWithDependents('or-owner', ['or-dep-1', 'or-dep-2']);
    const r = await ok(['delete', 'configmap', 'or-owner', '-n', NS, '--cascade=orphan']);
    expect(r.stdout.trim()).to.equal('configmap "or-owner" deleted');
    expect(await getCm('or-owner')).to.equal(undefined);
    for (const name of ['or-dep-1', 'or-dep-2']) {
      const dep = await getCm(name);
      expect(dep, `${name} survives`).to.not.equal(undefined);
      expect(dep.metadata.ownerReferences).to.equal(undefined);
    }
    const refs = await ok(['get', 'configmap', 'or-dep-1', '-n', NS, '-o', 'jsonpath={.metadata.ownerReferences}']);
    expect(refs.stdout.trim()).to.equal('');
  });

  it('--cascade=background (the default) removes the owner at once and the dependents soon after', async () => {
    await ownerWithDependents('bg-owner', ['bg-dep-1', 'bg-dep-2'], false);
    const r = await ok(['delete', 'configmap', 'bg-owner', '-n', NS]);
    expect(r.stdout.trim()).to.equal('configmap "bg-owner" deleted');
    expect(await getCm('bg-owner')).to.equal(undefined);
    await eventuallyGone('bg-dep-1');
    await eventuallyGone('bg-dep-2');
  });
});
