/**
 * kubectl 1.32 through the server to a kubelet the test serves (test/helpers/fake-kubelet.ts):
 * `kubectl logs` (its flags become the kubelet's query), `kubectl logs -f` (lines arrive as the
 * kubelet writes them), and `kubectl exec pod -- echo hi` end to end: kubectl's WebSocket
 * (v5.channel.k8s.io) upgrade is passed through to the kubelet, which answers the command's
 * output on stdout and a Success status; kubectl prints it and exits 0. Errors kubectl prints:
 * an unbound pod, a container that is not in the pod.
 */
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { useKubectlServer } from '../helpers/e2e-server';
import { startFakeKubelet, type FakeKubelet } from '../helpers/fake-kubelet';
import { kubeletPki, nodeFor } from '../helpers/kubelet-setup';

describe('kubectl logs and exec through the kubelet', function () {
  this.timeout(120_000);
  const pki = kubeletPki();
  const e2e = useKubectlServer('kubectl-logs-exec', ['--flavor=kubernetes', ...pki.flags]);
  const { ok, fails } = e2e;
  let kubelet: FakeKubelet;

  before(async () => {
    kubelet = await startFakeKubelet({ clientCaPem: pki.clientCa.certPem, ca: pki.servingCa });
    const node = nodeFor('node-1', kubelet);
    await ok(['create', '-f', e2e.manifest('node.yaml', node)]);
    await ok(['patch', 'node', 'node-1', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: node.status })]);
    await ok(['create', '-f', e2e.manifest('pod.yaml', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' },
      spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'registry.example.com/web:1' }] },
    })]);
    await ok(['run', 'pending', '--image=registry.example.com/web:1']);
  });
  after(async () => {
    await kubelet?.stop();
    rmSync(pki.dir, { recursive: true, force: true });
  });

  it('kubectl logs: the kubelet\'s answer, its flags as the kubelet\'s query', async () => {
    const r = await ok(['logs', 'web', '--tail=3', '--timestamps', '--limit-bytes=100']);
    expect(r.stdout).to.equal('log default/web/app ?limitBytes=100&tailLines=3&timestamps=true\n');
    expect(kubelet.requests.at(-1)!.clientCn).to.equal('kube-apiserver-kubelet-client');
  });

  it('kubectl logs -f: the first line is printed before the kubelet writes the second', async () => {
    const follow = e2e.spawnKubectl(['logs', '-f', 'web']);
    await follow.waitFor((lines) => lines.includes('line 1'), 'the first line', 15_000);
    expect(kubelet.requests.at(-1)!.url).to.equal('/containerLogs/default/web/app?follow=true');
    kubelet.releaseFollow();
    const lines = await follow.waitFor((l) => l.includes('line 2'), 'the second line', 15_000);
    expect(lines.filter((l) => l.startsWith('line'))).to.deep.equal(['line 1', 'line 2']);
  });

  it('kubectl exec web -- echo hi: through the WebSocket upgrade to the kubelet and back', async () => {
    const r = await ok(['exec', 'web', '--', 'echo', 'hi'], { timeoutMs: 30_000 });
    expect(r.stdout).to.equal('hi\n');
    const seen = kubelet.requests.filter((q) => q.url.startsWith('/exec/')).at(-1)!;
    expect(seen.url).to.equal('/exec/default/web/app?command=echo&command=hi&error=1&output=1');
    expect(String(seen.headers.upgrade).toLowerCase()).to.equal('websocket');
  });

  it('kubectl prints Kubernetes\' errors: an unbound pod, an unknown container', async () => {
    const unbound = await fails(['exec', 'pending', '--', 'ls'], { timeoutMs: 30_000 });
    expect(unbound.stderr).to.contain('pod pending does not have a host assigned');
    const bad = await fails(['logs', 'web', '-c', 'nope']);
    expect(bad.stderr).to.contain('container nope is not valid for pod web');
  });
});
