/**
 * kubectl (1.32) with Deployments and ReplicaSets (apps/v1), with no controller manager beside
 * the server: api-resources names `deploy` and `rs`; `create deployment` writes a defaulted
 * Deployment that `get deploy` prints as NAME READY UP-TO-DATE AVAILABLE AGE (and CONTAINERS
 * IMAGES SELECTOR with -o wide); `set image`, `rollout pause|resume|restart` and `scale` change
 * what they patch; `rollout history` and `describe` run; `apply -f` twice is created then
 * unchanged, and a server-side apply merges the containers by name; `get all` lists both kinds; `explain` reads the pod template's containers; a bad
 * strategy is refused with Kubernetes' message.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

/** kubectl's columns are set apart by at least three spaces; these headers have single spaces inside. */
function wideTable(stdout: string): { columns: string[]; rows: Array<Record<string, string>> } {
  const [head, ...lines] = stdout.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
  return { columns: head, rows: lines.map((cells) => Object.fromEntries(head.map((c, i) => [c, cells[i]]))) };
}

describe('kubectl with Deployments and ReplicaSets', function () {
  this.timeout(120_000);
  const e2e = useKubectlServer('kubectl-deploy', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;
  const json = async (args: string[]) => JSON.parse((await ok([...args, '-o', 'json'])).stdout);

  it('api-resources lists deployments (deploy) and replicasets (rs) at apps/v1', async () => {
    const table = parseTable((await ok(['api-resources', '--api-group=apps'])).stdout);
    const rows = table.rows.map((r) => [r.NAME, r.SHORTNAMES, r.APIVERSION, r.NAMESPACED, r.KIND]);
    expect(rows).to.deep.include.members([
      ['deployments', 'deploy', 'apps/v1', 'true', 'Deployment'], ['replicasets', 'rs', 'apps/v1', 'true', 'ReplicaSet']]);
  });

  it('create deployment, get deploy (table and wide), set image, rollout pause/resume/restart, scale, history, describe', async () => {
    expect((await ok(['create', 'deployment', 'web', '--image=nginx', '--replicas=2'])).stdout).to.contain('deployment.apps/web created');
    let table = wideTable((await ok(['get', 'deploy'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    expect(table.rows[0]).to.deep.include({ NAME: 'web', READY: '0/2', 'UP-TO-DATE': '0', AVAILABLE: '0' });
    table = wideTable((await ok(['get', 'deploy', 'web', '-o', 'wide'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(table.rows[0]).to.deep.include({ CONTAINERS: 'nginx', IMAGES: 'nginx', SELECTOR: 'app=web' });
    let obj = await json(['get', 'deploy', 'web']);
    expect(obj.spec).to.deep.include({ replicas: 2, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 });
    expect(obj.spec.strategy).to.deep.equal({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });

    expect((await ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.27'])).stdout).to.contain('deployment.apps/web image updated');
    expect((await json(['get', 'deploy', 'web'])).spec.template.spec.containers[0].image).to.equal('nginx:1.27');

    expect((await ok(['rollout', 'pause', 'deployment/web'])).stdout).to.contain('deployment.apps/web paused');
    expect((await json(['get', 'deploy', 'web'])).spec.paused).to.equal(true);
    expect((await fails(['rollout', 'restart', 'deployment/web'])).stderr).to.contain("can't restart paused deployment");
    expect((await ok(['rollout', 'resume', 'deployment/web'])).stdout).to.contain('deployment.apps/web resumed');
    expect((await ok(['rollout', 'restart', 'deployment/web'])).stdout).to.contain('deployment.apps/web restarted');
    obj = await json(['get', 'deploy', 'web']);
    expect(obj.spec).not.to.have.property('paused');
    expect(obj.spec.template.metadata.annotations).to.have.property('kubectl.kubernetes.io/restartedAt');

    expect((await ok(['scale', 'deploy/web', '--replicas=3'])).stdout).to.contain('deployment.apps/web scaled');
    expect((await json(['get', 'deploy', 'web'])).spec.replicas).to.equal(3);
    expect((await ok(['rollout', 'history', 'deployment/web'])).stdout).to.contain('deployment.apps/web');
    const described = (await ok(['describe', 'deployment', 'web'])).stdout;
    expect(described).to.match(/Name:\s+web/).and.to.match(/StrategyType:\s+RollingUpdate/).and.to.match(/Replicas:\s+3 desired/);
  });

  it('apply -f twice (created, then unchanged), get rs and get all', async () => {
    const manifest = e2e.manifest('applied.yaml', {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'applied', labels: { app: 'applied' } },
      spec: { replicas: 1, selector: { matchLabels: { app: 'applied' } }, template: { metadata: { labels: { app: 'applied' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    expect((await ok(['apply', '-f', manifest])).stdout).to.contain('deployment.apps/applied created');
    expect((await ok(['apply', '-f', manifest])).stdout).to.contain('deployment.apps/applied unchanged');
    // Server-side apply over the same object: the containers list merges by name (listType=map).
    const ssa = e2e.manifest('applied-ssa.yaml', {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'applied' },
      spec: { selector: { matchLabels: { app: 'applied' } }, template: { metadata: { labels: { app: 'applied' } }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } } },
    });
    expect((await ok(['apply', '--server-side', '--force-conflicts', '--field-manager=e2e', '-f', ssa])).stdout).to.contain('deployment.apps/applied serverside-applied');
    const applied = await json(['get', 'deploy', 'applied']);
    expect(applied.spec.template.spec.containers.map((c: { name: string; image: string }) => [c.name, c.image])).to.deep.equal([['c', 'busybox:1.36']]);
    expect(applied.spec.replicas).to.equal(1);
    const rs = e2e.manifest('rs.yaml', {
      apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'frontend' },
      spec: { replicas: 2, selector: { matchLabels: { tier: 'frontend' } }, template: { metadata: { labels: { tier: 'frontend' } }, spec: { containers: [{ name: 'php', image: 'php:8' }] } } },
    });
    expect((await ok(['apply', '-f', rs])).stdout).to.contain('replicaset.apps/frontend created');
    const table = wideTable((await ok(['get', 'rs', '-o', 'wide'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(table.rows[0]).to.deep.include({ NAME: 'frontend', DESIRED: '2', CURRENT: '0', READY: '0', CONTAINERS: 'php', IMAGES: 'php:8', SELECTOR: 'tier=frontend' });
    expect((await ok(['scale', 'rs/frontend', '--replicas=0'])).stdout).to.contain('replicaset.apps/frontend scaled');
    const all = (await ok(['get', 'all'])).stdout;
    expect(all).to.contain('deployment.apps/applied').and.to.contain('replicaset.apps/frontend');
  });

  it('explain reads the pod template of a Deployment, and a bad strategy is refused in Kubernetes\' words', async () => {
    const explained = (await ok(['explain', 'deployment.spec.template.spec.containers'])).stdout;
    // The shared PodSpec schema does not name Container as a Go type nor describe its fields yet: kubectl prints <[]Object>.
    expect(explained).to.contain('KIND:       Deployment').and.to.match(/FIELD: containers <\[\]Container>/).and.to.match(/image\s+<string>/).and.to.match(/name\s+<string> -required-/);
    const refused = await fails(['create', '-f', e2e.manifest('bad.yaml', {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'bad' },
      spec: {
        selector: { matchLabels: { app: 'bad' } }, strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } },
        template: { metadata: { labels: { app: 'bad' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      },
    })]);
    expect(refused.stderr).to.contain('spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0');
  });
});
