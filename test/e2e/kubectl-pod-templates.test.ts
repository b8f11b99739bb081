/**
 * kubectl (1.32) and PodTemplate: `api-resources` lists podtemplates (namespaced, no short
 * names, kind PodTemplate), `get podtemplates` prints NAME CONTAINERS IMAGES POD LABELS from the
 * server's Table (no AGE, as Kubernetes' printer has none), and the created template comes back
 * defaulted.
 */
import { expect } from 'chai';
import { WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';
import { parseTable } from '../helpers/kubectl';
import { useKubectlServer } from '../helpers/e2e-server';

const NS = 'templates';

describe('kubectl and PodTemplate', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-pod-templates', [WITHOUT_NAMESPACE_DEFAULTS]);
  const { ok } = e2e;

  before(async () => {
    await ok(['create', '-f', e2e.manifest('ns.yaml', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })]);
    await ok(['create', '-f', e2e.manifest('web.yaml', {
      apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'web', namespace: NS },
      template: {
        metadata: { labels: { tier: 'front', app: 'web' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }, { name: 'log', image: 'busybox' }] },
      },
    }), '--validate=false']);
  });

  it('api-resources lists podtemplates, namespaced, without short names', async () => {
    const table = parseTable((await ok(['api-resources', '--api-group='])).stdout);
    const row = table.rows.find((r) => r.NAME === 'podtemplates');
    expect(row, 'podtemplates in api-resources').to.exist;
    expect(row).to.include({ SHORTNAMES: '', APIVERSION: 'v1', NAMESPACED: 'true', KIND: 'PodTemplate' });
  });

  it('get podtemplates shows NAME CONTAINERS IMAGES POD LABELS', async () => {
    // `POD LABELS` holds a space, so the lines are split on kubectl's column gaps (2+ spaces).
    const lines = (await ok(['get', 'podtemplates', '-n', NS])).stdout.trimEnd().split('\n').map((l) => l.trim().split(/\s{2,}/));
    expect(lines).to.deep.equal([['NAME', 'CONTAINERS', 'IMAGES', 'POD LABELS'], ['web', 'nginx,log', 'nginx:1.27,busybox', 'app=web,tier=front']]);
  });

  it('get -o json shows the defaulted template', async () => {
    const obj = JSON.parse((await ok(['get', 'podtemplate', 'web', '-n', NS, '-o', 'json'])).stdout);
    expect(obj.metadata.generation).to.equal(1);
    expect(obj.template.spec).to.include({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler' });
    expect(obj.template.spec.containers[1].imagePullPolicy).to.equal('Always');
  });
});
