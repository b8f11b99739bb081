/**
 * kubectl (1.32) with PriorityClasses (scheduling.k8s.io/v1) and RuntimeClasses (node.k8s.io/v1):
 * api-resources names `pc`; `create priorityclass` with --value, --description,
 * --global-default and --preemption-policy; `get pc` prints NAME VALUE GLOBAL-DEFAULT AGE
 * PREEMPTIONPOLICY with the two system classes; a pod naming the class, and one naming none,
 * get its priority; deleting a system class is refused; a RuntimeClass applied from YAML is
 * listed as NAME HANDLER AGE and gives a pod its overhead.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

describe('kubectl with PriorityClasses and RuntimeClasses', function () {
  this.timeout(120_000);
  const e2e = useKubectlServer('kubectl-prio', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;

  it('api-resources lists priorityclasses (pc) and runtimeclasses, cluster-scoped', async () => {
    const sched = parseTable((await ok(['api-resources', '--api-group=scheduling.k8s.io'])).stdout);
    expect(sched.rows.map((r) => [r.NAME, r.SHORTNAMES, r.APIVERSION, r.NAMESPACED, r.KIND])).to.deep.equal(
      [['priorityclasses', 'pc', 'scheduling.k8s.io/v1', 'false', 'PriorityClass']]);
    const node = parseTable((await ok(['api-resources', '--api-group=node.k8s.io'])).stdout);
    expect(node.rows.map((r) => [r.NAME, r.APIVERSION, r.NAMESPACED, r.KIND])).to.deep.equal(
      [['runtimeclasses', 'node.k8s.io/v1', 'false', 'RuntimeClass']]);
  });

  it("/apis lists scheduling and node at kube-apiserver's places: apiextensions, scheduling, coordination, node, discovery", async () => {
    const groups = (JSON.parse((await ok(['get', '--raw', '/apis'])).stdout).groups as Array<{ name: string }>).map((g) => g.name);
    const at = (name: string) => groups.indexOf(name);
    expect(at('scheduling.k8s.io')).to.equal(at('apiextensions.k8s.io') + 1);
    expect(at('coordination.k8s.io')).to.equal(at('scheduling.k8s.io') + 1);
    expect(at('node.k8s.io')).to.equal(at('coordination.k8s.io') + 1);
    expect(at('discovery.k8s.io')).to.equal(at('node.k8s.io') + 1);
  });

  it('create priorityclass, get pc, and pods that get its priority', async () => {
    expect((await ok(['create', 'priorityclass', 'high', '--value=1000', '--description=for the important pods'])).stdout)
      .to.contain('priorityclass.scheduling.k8s.io/high created');
    expect((await ok(['create', 'priorityclass', 'everyday', '--value=10', '--global-default', '--preemption-policy=Never'])).stdout)
      .to.contain('priorityclass.scheduling.k8s.io/everyday created');
    const second = await fails(['create', 'priorityclass', 'other', '--value=5', '--global-default']);
    expect(second.stderr).to.contain('PriorityClass everyday is already marked as default. Only one default can exist');

    const table = parseTable((await ok(['get', 'pc'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'VALUE', 'GLOBAL-DEFAULT', 'AGE', 'PREEMPTIONPOLICY']);
    const row = (name: string) => table.rows.find((r) => r.NAME === name);
    expect(row('high')).to.deep.include({ VALUE: '1000', 'GLOBAL-DEFAULT': 'false', PREEMPTIONPOLICY: 'PreemptLowerPriority' });
    expect(row('everyday')).to.deep.include({ VALUE: '10', 'GLOBAL-DEFAULT': 'true', PREEMPTIONPOLICY: 'Never' });
    expect(row('system-node-critical')).to.deep.include({ VALUE: '2000001000', 'GLOBAL-DEFAULT': 'false' });
    expect(row('system-cluster-critical')).to.deep.include({ VALUE: '2000000000', 'GLOBAL-DEFAULT': 'false' });

    await ok(['create', '-f', e2e.manifest('important.yaml', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'important', namespace: 'default' },
      spec: { priorityClassName: 'high', containers: [{ name: 'app', image: 'nginx' }] },
    })]);
    expect((await ok(['get', 'pod', 'important', '-o', 'jsonpath={.spec.priority} {.spec.preemptionPolicy}'])).stdout).to.equal('1000 PreemptLowerPriority');
    await ok(['run', 'ordinary', '--image=nginx', '--restart=Never']);
    expect((await ok(['get', 'pod', 'ordinary', '-o', 'jsonpath={.spec.priorityClassName} {.spec.priority}'])).stdout).to.equal('everyday 10');

    const refused = await fails(['delete', 'pc', 'system-node-critical']);
    expect(refused.stderr).to.contain('this is a system priority class and cannot be deleted');
  });

  it('apply a RuntimeClass, get it, and a pod using it gets its overhead', async () => {
    expect((await ok(['apply', '-f', e2e.manifest('kata.yaml', {
      apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'kata' }, handler: 'kata',
      overhead: { podFixed: { cpu: '250m' } }, scheduling: { nodeSelector: { runtime: 'kata' } },
    })])).stdout).to.contain('runtimeclass.node.k8s.io/kata created');
    const table = parseTable((await ok(['get', 'runtimeclasses'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'HANDLER', 'AGE']);
    expect(table.rows.find((r) => r.NAME === 'kata')).to.deep.include({ HANDLER: 'kata' });
    await ok(['run', 'sandboxed', '--image=nginx', '--restart=Never', '--overrides={"spec":{"runtimeClassName":"kata"}}']);
    expect((await ok(['get', 'pod', 'sandboxed', '-o', 'jsonpath={.spec.overhead.cpu} {.spec.nodeSelector.runtime}'])).stdout).to.equal('250m kata');
  });
});
