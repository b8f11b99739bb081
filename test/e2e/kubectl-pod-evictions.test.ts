/**
 * kubectl (1.32) with pods/eviction. `kubectl drain` cordons the pod's Node first, and Nodes are
 * not served yet, so the eviction is sent as drain sends it, with `kubectl create --raw` of a
 * policy/v1 Eviction: a pod a budget allows to go is evicted (and the budget records it), the
 * next is refused with Kubernetes' 429 message, which kubectl prints.
 */
import { expect } from 'chai';
import { writeFileSync } from 'fs';
import { dirname, join } from 'path';
import { useKubectlServer } from '../helpers/e2e-server';

describe('kubectl with pods/eviction', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-eviction', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;

  const runningPod = async (name: string) => {
    await ok(['run', name, '--image=registry.example.com/web:1', '--labels=app=web']);
    await ok(['patch', 'pod', name, '--subresource=status', '--type=merge', '-p',
      '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}']);
  };
  /** The Eviction as a JSON file (--raw sends the file's bytes as they are, as JSON). */
  const evictionOf = (name: string) => {
    const file = join(dirname(e2e.manifest('placeholder.yaml', {})), `evict-${name}.json`);
    writeFileSync(file, JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } }));
    return file;
  };

  it('evicts within the budget and is refused beyond it', async () => {
    await runningPod('web-1');
    await runningPod('web-2');
    await ok(['create', 'pdb', 'web', '--selector=app=web', '--min-available=1']);
    await ok(['patch', 'pdb', 'web', '--subresource=status', '--type=merge', '-p',
      '{"status":{"observedGeneration":1,"disruptionsAllowed":1,"currentHealthy":2,"desiredHealthy":1,"expectedPods":2}}']);

    const evicted = await ok(['create', '--raw', '/api/v1/namespaces/default/pods/web-1/eviction', '-f', evictionOf('web-1')]);
    expect(JSON.parse(evicted.stdout)).to.deep.include({ kind: 'Status', status: 'Success', code: 201 });
    expect((await fails(['get', 'pod', 'web-1'])).stderr).to.contain('pods "web-1" not found');
    expect((await ok(['get', 'pdb', 'web', '-o', 'jsonpath={.status.disruptedPods}'])).stdout).to.contain('web-1');

    const refused = await fails(['create', '--raw', '/api/v1/namespaces/default/pods/web-2/eviction', '-f', evictionOf('web-2')]);
    expect(refused.stderr).to.contain("Cannot evict pod as it would violate the pod's disruption budget.");
    expect((await ok(['get', 'pod', 'web-2'])).stdout).to.contain('web-2');
  });
});
