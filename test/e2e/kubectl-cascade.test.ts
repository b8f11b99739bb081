/**
 * The real kubectl (1.32) deleting owners with `--cascade=foreground|orphan|background` against
 * the server process. Dependents are created with `kubectl create -f` and ownerReferences that
 * carry the owner's uid, read with `get -o jsonpath`.
 *
 * create runs with kubectl's default client-side validation (it needs the server's OpenAPI). If
 * the first create shows that OpenAPI is not served, the run falls back to --validate=false.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { startServerProcess, ServerProcess } from '../helpers/server-process';
import { Kubectl, kubectlFor, KubectlResult } from '../helpers/kubectl';

const NS = 'e2e-cascade';

describe('kubectl delete --cascade against the server process', function () {
  this.timeout(90_000);
  let dir: string;
  let server: ServerProcess | undefined;
  let kubectl: Kubectl;
  let validate: string[] = [];

  function manifest(file: string, obj: unknown): string {
    const p = path.join(dir, file);
    writeFileSync(p, stringifyYaml(obj, { version: '1.1' }));
    return p;
  }

  async function ok(args: string[]): Promise<KubectlResult> {
    const r = await kubectl(args, { timeoutMs: 60_000 });
    expect(r.code, `kubectl ${args.join(' ')} ${r.timedOut ? 'timed out' : 'failed'}:\n${r.stderr}`).to.equal(0);
    return r;
  }

  /** The ConfigMap as kubectl prints it, or undefined when kubectl reports NotFound. */
  async function getCm(name: string): Promise<any> {
    const r = await kubectl(['get', 'configmap', name, '-n', NS, '-o', 'json']);
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
    await ok(['create', '-f', manifest(`${owner}.yaml`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: owner, namespace: NS }, data: { role: 'owner' } }), ...validate]);
    const uid = (await ok(['get', 'configmap', owner, '-n', NS, '-o', 'jsonpath={.metadata.uid}'])).stdout.trim();
    expect(uid).to.match(/^[0-9a-f-]{36}$/);
    for (const name of dependents) {
      const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid, blockOwnerDeletion }];
      await ok(['create', '-f', manifest(`${name}.yaml`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, ownerReferences }, data: { role: 'dependent' } }), ...validate]);
    }
    return uid;
  }

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'orch-e2e-kubectl-cascade-'));
    server = await startServerProcess([`--data-dir=${path.join(dir, 'data')}`, '--secure-port=0']);
    kubectl = kubectlFor(server.kubeconfigPath, path.join(dir, 'kube-cache'));
    const nsFile = manifest('ns.yaml', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    const first = await kubectl(['create', '-f', nsFile]);
    if (first.code !== 0 && /openapi|validat/i.test(first.stderr)) {
      validate = ['--validate=false'];
      process.stderr.write(`      (kubectl cannot validate without OpenAPI: using --validate=false)\n${first.stderr}`);
      await ok(['create', '-f', nsFile, ...validate]);
    } else {
      expect(first.code, `kubectl create -f ${nsFile}:\n${first.stderr}`).to.equal(0);
    }
  });

  after(async () => {
    const exit = await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (exit?.forced) throw new Error(`server did not exit on SIGTERM:\n${server!.stderrTail()}`);
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
