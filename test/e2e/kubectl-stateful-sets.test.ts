/**
 * kubectl (1.32) with StatefulSets and DaemonSets (apps/v1): api-resources names `sts` and `ds`;
 * `apply` of a StatefulSet with volumeClaimTemplates and of a DaemonSet; `get` prints kubectl's
 * tables (and -o wide's CONTAINERS IMAGES [SELECTOR]); `scale sts` goes through /scale;
 * `rollout restart ds` changes the template (templateGeneration 2); a `patch` of a StatefulSet
 * field that may not change is refused with Kubernetes' message; `describe` prints both kinds'
 * summaries (replicas, update strategy, claim templates; node selector, scheduled counts);
 * `get all` lists both; `rollout restart sts` bumps the generation; `explain` reads the schema.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

/** kubectl's columns are set apart by at least three spaces; these headers have single spaces inside. */
function wideTable(stdout: string): { columns: string[]; rows: Array<Record<string, string>> } {
  const [head, ...lines] = stdout.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
  return { columns: head, rows: lines.map((cells) => Object.fromEntries(head.map((c, i) => [c, cells[i]]))) };
}

const STS = {
  apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web' },
  spec: {
    serviceName: 'web', replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', volumeMounts: [{ name: 'www', mountPath: '/usr/share/nginx/html' }] }] } },
    volumeClaimTemplates: [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  },
};

const DS = {
  apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent' },
  spec: {
    selector: { matchLabels: { app: 'agent' } },
    template: { metadata: { labels: { app: 'agent' } }, spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'agent', image: 'agent:1' }, { name: 'log', image: 'busybox' }] } },
  },
};

describe('kubectl with StatefulSets and DaemonSets', function () {
  this.timeout(120_000);
  const e2e = useKubectlServer('kubectl-sts', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;

  it('api-resources lists daemonsets (ds) and statefulsets (sts) at apps/v1', async () => {
    const table = parseTable((await ok(['api-resources', '--api-group=apps'])).stdout);
    const rows = table.rows.map((r) => [r.NAME, r.SHORTNAMES, r.APIVERSION, r.NAMESPACED, r.KIND]);
    expect(rows).to.deep.include(['daemonsets', 'ds', 'apps/v1', 'true', 'DaemonSet']);
    expect(rows).to.deep.include(['statefulsets', 'sts', 'apps/v1', 'true', 'StatefulSet']);
  });

  it('apply a StatefulSet with volumeClaimTemplates, get it (table and -o wide), scale it, refuse a forbidden patch', async () => {
    expect((await ok(['apply', '-f', e2e.manifest('sts.yaml', STS)])).stdout).to.contain('statefulset.apps/web created');
    let table = wideTable((await ok(['get', 'sts'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'READY', 'AGE']);
    expect(table.rows[0]).to.deep.include({ NAME: 'web', READY: '0/2' });
    table = wideTable((await ok(['get', 'statefulset', 'web', '-o', 'wide'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'READY', 'AGE', 'CONTAINERS', 'IMAGES']);
    expect(table.rows[0]).to.deep.include({ CONTAINERS: 'nginx', IMAGES: 'nginx:1.27' });
    const claims = JSON.parse((await ok(['get', 'sts', 'web', '-o', 'jsonpath={.spec.volumeClaimTemplates}'])).stdout);
    expect(claims[0].spec.volumeMode).to.equal('Filesystem');

    expect((await ok(['scale', 'sts/web', '--replicas=3'])).stdout).to.contain('statefulset.apps/web scaled');
    expect((await ok(['get', 'sts', 'web', '-o', 'jsonpath={.spec.replicas} {.metadata.generation}'])).stdout).to.equal('3 2');

    const refused = await fails(['patch', 'sts', 'web', '--type=merge', '-p', '{"spec":{"podManagementPolicy":"Parallel"}}']);
    expect(refused.stderr).to.contain("spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden");
  });

  it('apply a DaemonSet, get it (table and -o wide), rollout restart it', async () => {
    expect((await ok(['apply', '-f', e2e.manifest('ds.yaml', DS)])).stdout).to.contain('daemonset.apps/agent created');
    let table = wideTable((await ok(['get', 'ds'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE']);
    expect(table.rows[0]).to.deep.include({ NAME: 'agent', DESIRED: '0', CURRENT: '0', READY: '0', 'UP-TO-DATE': '0', AVAILABLE: '0', 'NODE SELECTOR': 'kubernetes.io/os=linux' });
    table = wideTable((await ok(['get', 'daemonset', 'agent', '-o', 'wide'])).stdout);
    expect(table.columns.slice(-3)).to.deep.equal(['CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(table.rows[0]).to.deep.include({ CONTAINERS: 'agent,log', IMAGES: 'agent:1,busybox', SELECTOR: 'app=agent' });

    expect((await ok(['rollout', 'restart', 'ds/agent'])).stdout).to.contain('daemonset.apps/agent restarted');
    const restarted = JSON.parse((await ok(['get', 'ds', 'agent', '-o', 'json'])).stdout);
    expect(restarted.spec.template.metadata.annotations).to.have.property('kubectl.kubernetes.io/restartedAt');
    expect(restarted.metadata.annotations['deprecated.daemonset.template.generation']).to.equal('2');
    expect(restarted.metadata.generation).to.equal(2);
  });

  it('describe sts and ds', async () => {
    const sts = (await ok(['describe', 'sts', 'web'])).stdout;
    expect(sts).to.match(/Selector:\s+app=web/);
    expect(sts).to.match(/Replicas:\s+3 desired \| 0 total/);
    expect(sts).to.match(/Update Strategy:\s+RollingUpdate\n\s+Partition:\s+0/);
    expect(sts).to.match(/Volume Claims:\n\s+Name:\s+www/);
    expect(sts).to.match(/Capacity:\s+1Gi/);
    const ds = (await ok(['describe', 'ds', 'agent'])).stdout;
    expect(ds).to.match(/Node-Selector:\s+kubernetes.io\/os=linux/);
    expect(ds).to.match(/Desired Number of Nodes Scheduled: 0/);
    expect(ds).to.match(/deprecated.daemonset.template.generation: 2/);
  });

  it('get all shows both (category all); rollout restart sts changes its template', async () => {
    const all = (await ok(['get', 'all'])).stdout;
    expect(all).to.contain('statefulset.apps/web');
    expect(all).to.contain('daemonset.apps/agent');
    expect((await ok(['rollout', 'restart', 'sts/web'])).stdout).to.contain('statefulset.apps/web restarted');
    const sts = JSON.parse((await ok(['get', 'sts', 'web', '-o', 'json'])).stdout);
    expect(sts.spec.template.metadata.annotations).to.have.property('kubectl.kubernetes.io/restartedAt');
    expect(sts.metadata.generation).to.equal(3);
  });

  it('explain statefulset.spec.volumeClaimTemplates', async () => {
    const out = (await ok(['explain', 'statefulset.spec.volumeClaimTemplates'])).stdout;
    expect(out).to.contain('GROUP:      apps');
    expect(out).to.match(/FIELD:\s+volumeClaimTemplates <\[\]PersistentVolumeClaim>/);
    expect(out).to.contain('volumeClaimTemplates is a list of claims that pods are allowed to reference');
    expect(out).to.match(/spec\s+<Object>/);
  });
});
