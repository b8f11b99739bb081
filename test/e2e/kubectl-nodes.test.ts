/**
 * kubectl (1.32) with Nodes, bindings and ephemeral containers on the kubernetes flavor:
 * `get nodes` prints NAME STATUS ROLES AGE VERSION (and the wide columns), `cordon` / `uncordon`
 * patch spec.unschedulable, `taint` and `label` change the Node (TaintNodesByCondition's
 * not-ready taint comes with registration), `drain` evicts the node's pods within a
 * PodDisruptionBudget while the test deletes them as a kubelet would, and `debug` adds an
 * ephemeral container through pods/ephemeralcontainers.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

const node = (name: string, ready: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(extra.labels as object ?? {}) } },
  status: {
    conditions: [{ type: 'Ready', status: ready, reason: 'KubeletReady', message: 'ready', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    addresses: [{ type: 'InternalIP', address: `10.0.0.${name.length}` }, { type: 'Hostname', address: name }],
    nodeInfo: {
      machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: '6.1.0-18-amd64', osImage: 'Debian GNU/Linux 12 (bookworm)', containerRuntimeVersion: 'containerd://1.7.13',
      kubeletVersion: 'v1.32.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64',
    },
    capacity: { cpu: '4', memory: '8Gi', pods: '110' },
  },
});

describe('kubectl with nodes', function () {
  this.timeout(120_000);
  const e2e = useKubectlServer('kubectl-nodes', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;

  before(async () => {
    await ok(['create', '-f', e2e.manifest('worker-1.yaml', node('worker-1', 'True', { labels: { 'node-role.kubernetes.io/worker': '' } }))]);
    await ok(['create', '-f', e2e.manifest('worker-2.yaml', node('worker-2', 'False'))]);
  });

  it('api-resources lists nodes (no) cluster-scoped, bindings namespaced', async () => {
    const table = parseTable((await ok(['api-resources', '--api-group='])).stdout);
    const row = (name: string) => table.rows.find((r) => r.NAME === name);
    expect(row('nodes')).to.deep.include({ SHORTNAMES: 'no', APIVERSION: 'v1', NAMESPACED: 'false', KIND: 'Node' });
    expect(row('bindings')).to.deep.include({ APIVERSION: 'v1', NAMESPACED: 'true', KIND: 'Binding' });
    expect((await ok(['get', 'namespace', 'kube-node-lease', '-o', 'name'])).stdout.trim(), 'the node lease namespace').to.equal('namespace/kube-node-lease');
  });

  it('get nodes prints STATUS, ROLES and VERSION; -o wide the addresses and system info', async () => {
    let table = parseTable((await ok(['get', 'nodes'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    expect(table.rows.map((r) => [r.NAME, r.STATUS, r.ROLES, r.VERSION])).to.deep.equal([
      ['worker-1', 'Ready', 'worker', 'v1.32.0'], ['worker-2', 'NotReady', '<none>', 'v1.32.0']]);
    table = parseTable((await ok(['get', 'no', 'worker-1', '-o', 'wide'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']);
    expect(table.rows[0]).to.deep.include({ 'INTERNAL-IP': '10.0.0.8', 'EXTERNAL-IP': '<none>', 'KERNEL-VERSION': '6.1.0-18-amd64', 'CONTAINER-RUNTIME': 'containerd://1.7.13' });
    const taints = (await ok(['get', 'node', 'worker-1', '-o', 'jsonpath={.spec.taints}'])).stdout;
    expect(JSON.parse(taints)).to.deep.equal([{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
  });

  it('cordon and uncordon patch spec.unschedulable; get selects by it', async () => {
    expect((await ok(['cordon', 'worker-2'])).stdout).to.contain('node/worker-2 cordoned');
    expect(parseTable((await ok(['get', 'nodes', 'worker-2'])).stdout).rows[0].STATUS).to.equal('NotReady,SchedulingDisabled');
    expect((await ok(['get', 'nodes', '--field-selector=spec.unschedulable=true', '-o', 'name'])).stdout.trim()).to.equal('node/worker-2');
    expect((await ok(['uncordon', 'worker-2'])).stdout).to.contain('node/worker-2 uncordoned');
    expect((await ok(['get', 'node', 'worker-2', '-o', 'jsonpath={.spec.unschedulable}'])).stdout).to.equal('');
  });

  it('taint and label change the Node; a bad taint effect is refused with Kubernetes\' message', async () => {
    expect((await ok(['taint', 'nodes', 'worker-2', 'dedicated=db:NoSchedule'])).stdout).to.contain('node/worker-2 tainted');
    const taints = JSON.parse((await ok(['get', 'node', 'worker-2', '-o', 'jsonpath={.spec.taints}'])).stdout);
    expect(taints).to.deep.include({ key: 'dedicated', value: 'db', effect: 'NoSchedule' });
    expect((await ok(['taint', 'nodes', 'worker-2', 'dedicated=db:NoSchedule-'])).stdout).to.contain('node/worker-2 untainted');
    expect((await ok(['label', 'node', 'worker-2', 'env=prod'])).stdout).to.contain('node/worker-2 labeled');
    expect((await ok(['get', 'nodes', '-l', 'env=prod', '-o', 'name'])).stdout.trim()).to.equal('node/worker-2');
    const refused = await fails(['patch', 'node', 'worker-2', '--type=merge', '-p', '{"spec":{"taints":[{"key":"k","effect":"Never"}]}}']);
    expect(refused.stderr).to.contain('metadata.taints[0].effect: Unsupported value: "Never"');
  });

  it('debug adds an ephemeral container to a pod', async () => {
    await ok(['run', 'target', '--image=registry.example.com/app:1', '--restart=Never']);
    await ok(['debug', 'pod/target', '--image=busybox', '--container=dbg']);
    const names = (await ok(['get', 'pod', 'target', '-o', 'jsonpath={.spec.ephemeralContainers[*].name}'])).stdout;
    expect(names).to.equal('dbg');
  });

  it('drain cordons the node and evicts its pods within their budget', async () => {
    for (const name of ['web-1', 'web-2']) {
      await ok(['create', '-f', e2e.manifest(`${name}.yaml`, {
        apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web' } },
        spec: { nodeName: 'worker-1', containers: [{ name: 'main', image: 'registry.example.com/app:1' }], volumes: [{ name: 'scratch', emptyDir: {} }] },
      })]);
      await ok(['patch', 'pod', name, '--subresource=status', '--type=merge', '-p',
        '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}']);
    }
    await ok(['create', 'pdb', 'web', '--selector=app=web', '--min-available=0']);
    await ok(['patch', 'pdb', 'web', '--subresource=status', '--type=merge', '-p', '{"status":{"observedGeneration":1,"disruptionsAllowed":2,"currentHealthy":2,"desiredHealthy":0,"expectedPods":2}}']);
    // No kubelet runs: the test finishes each graceful deletion as one would (a force delete).
    let draining = true;
    const kubelet = (async () => {
      while (draining) {
        const out = (await e2e.kubectl(['get', 'pods', '--field-selector=spec.nodeName=worker-1', '-o', 'jsonpath={range .items[?(@.metadata.deletionTimestamp)]}{.metadata.name}{"\\n"}{end}'])).stdout;
        for (const name of out.split('\n').filter(Boolean)) await e2e.kubectl(['delete', 'pod', name, '--grace-period=0', '--force']);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    try {
      const res = await ok(['drain', 'worker-1', '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=60s'], { timeoutMs: 70_000 });
      expect(res.stdout).to.contain('node/worker-1 cordoned');
      expect(res.stdout).to.contain('evicting pod default/web-1');
      expect(res.stdout).to.contain('node/worker-1 drained');
    } finally {
      draining = false;
      await kubelet;
    }
    expect((await ok(['get', 'pods', '--field-selector=spec.nodeName=worker-1', '-o', 'name'])).stdout.trim()).to.equal('');
    expect(parseTable((await ok(['get', 'nodes', 'worker-1'])).stdout).rows[0].STATUS).to.equal('Ready,SchedulingDisabled');
  });
});
