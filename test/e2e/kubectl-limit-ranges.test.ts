/**
 * kubectl (1.32) with LimitRanges: api-resources names `limits`, `apply -f` writes one (with
 * Kubernetes' defaults filled in), `describe limits` prints kubectl's table of it (Type Resource
 * Min Max Default Request Default Limit Max Limit/Request Ratio), `kubectl run` makes a pod that
 * LimitRanger gave the defaults, and a pod over the max is refused with Kubernetes' sentence.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

describe('kubectl with LimitRanges', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-limits', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;

  it('api-resources lists limitranges (limits), namespaced, at v1', async () => {
    const table = parseTable((await ok(['api-resources', '--api-group='])).stdout);
    const row = table.rows.find((r) => r.NAME === 'limitranges');
    expect(row && [row.SHORTNAMES, row.APIVERSION, row.NAMESPACED, row.KIND]).to.deep.equal(['limits', 'v1', 'true', 'LimitRange']);
  });

  it('apply a LimitRange, describe limits, run a pod that gets the defaults, refuse one over the max', async () => {
    const manifest = e2e.manifest('limits.yaml', {
      apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'bounds' },
      spec: {
        limits: [
          { type: 'Container', min: { cpu: '50m' }, max: { cpu: '2', memory: '1Gi' }, default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' }, maxLimitRequestRatio: { cpu: '10' } },
          { type: 'PersistentVolumeClaim', max: { storage: '5Gi' } },
        ],
      },
    });
    expect((await ok(['apply', '-f', manifest])).stdout).to.contain('limitrange/bounds created');
    expect(parseTable((await ok(['get', 'limits'])).stdout).rows.map((r) => r.NAME)).to.deep.equal(['bounds']);

    const described = (await ok(['describe', 'limits', 'bounds'])).stdout.split('\n').map((l) => l.trim()).filter(Boolean);
    expect(described[0]).to.match(/^Name:\s+bounds$/);
    const header = described.findIndex((l) => l.startsWith('Type'));
    expect(described[header].split(/\s{2,}/)).to.deep.equal(['Type', 'Resource', 'Min', 'Max', 'Default Request', 'Default Limit', 'Max Limit/Request Ratio']);
    const rows = described.slice(header + 2).map((l) => l.split(/\s+/));
    expect(rows).to.have.deep.members([
      ['Container', 'cpu', '50m', '2', '100m', '500m', '10'],
      // memory's default request followed its default limit (SetDefaults_LimitRangeItem).
      ['Container', 'memory', '-', '1Gi', '256Mi', '256Mi', '-'],
      ['PersistentVolumeClaim', 'storage', '-', '5Gi', '-', '-', '-'],
    ]);

    await ok(['run', 'web', '--image=registry.example.com/web:1', '--restart=Never']);
    const resources = JSON.parse((await ok(['get', 'pod', 'web', '-o', 'jsonpath={.spec.containers[0].resources}'])).stdout);
    expect(resources).to.deep.equal({ limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } });
    expect((await ok(['get', 'pod', 'web', '-o', 'jsonpath={.metadata.annotations.kubernetes\\.io/limit-ranger}'])).stdout)
      .to.equal('LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for container web');

    const refused = await fails(['run', 'big', '--image=registry.example.com/web:1', '--restart=Never',
      '--overrides={"spec":{"containers":[{"name":"big","image":"registry.example.com/web:1","resources":{"limits":{"cpu":"4"},"requests":{"cpu":"1"}}}]}}']);
    expect(refused.stderr).to.contain('pods "big" is forbidden: maximum cpu usage per Container is 2, but limit is 4');
  });
});
