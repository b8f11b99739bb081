/**
 * Debian's python3-kubernetes (22.6) typed workload APIs against the real server process
 * (test/e2e/python/workloads_client.py): AppsV1Api, BatchV1Api and AutoscalingV1Api lists decode
 * into the library's models (which check required fields), list-then-watch of Deployments and
 * Jobs sees kubectl's writes, and a Deployment created from typed models is scaled through its
 * /scale subresource.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { PYTHON, requirePythonKubernetes, run } from '../helpers/python-kubernetes';
import { spawnLines } from '../helpers/line-process';
import path from 'node:path';

const SCRIPT = path.resolve(__dirname, '../../../test/e2e/python/workloads_client.py');

const labels = (app: string) => ({ app });
const template = (app: string, restartPolicy?: string) => ({
  metadata: { labels: labels(app) },
  spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: 'c', image: 'busybox:1.36', command: ['sleep', '3600'] }] },
});

function deployment(ns: string, name: string, replicas: number) {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: ns }, spec: { replicas, selector: { matchLabels: labels(name) }, template: template(name) } };
}

describe('python3-kubernetes typed workload APIs against the server process', function () {
  this.timeout(120_000);
  const k = useKubectlServer('python-workloads');
  const py = (args: string[]) => run(PYTHON, [SCRIPT, k.server.kubeconfigPath, ...args], 100_000);
  const lines = (stdout: string) => stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

  before(async () => {
    await requirePythonKubernetes();
    await k.ok(['create', 'namespace', 'py-apps']);
  });

  it('lists every workload kind typed, each with the objects kubectl made', async () => {
    const ns = 'py-apps';
    const objects = [
      deployment(ns, 'web', 2),
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs', namespace: ns }, spec: { replicas: 1, selector: { matchLabels: labels('rs') }, template: template('rs') } },
      { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', namespace: ns }, spec: { serviceName: 'db', selector: { matchLabels: labels('db') }, template: template('db') } },
      { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent', namespace: ns }, spec: { selector: { matchLabels: labels('agent') }, template: template('agent') } },
      { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'once', namespace: ns }, spec: { template: template('once', 'Never') } },
      { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'nightly', namespace: ns }, spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: template('nightly', 'OnFailure') } } } },
      {
        apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: ns },
        spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 5 },
      },
    ];
    // A List is validated against /openapi/v2 in protobuf, not served here: --validate=false.
    await k.ok(['apply', '--validate=false', '-f', k.manifest('workloads.yaml', { apiVersion: 'v1', kind: 'List', items: objects })]);
    const res = await py(['list', ns]);
    expect(res.code, res.stderr).to.equal(0);
    expect(lines(res.stdout).map((l) => [l.kind, l.names])).to.deep.equal([
      ['Deployment', ['web']], ['ReplicaSet', ['rs']], ['StatefulSet', ['db']], ['DaemonSet', ['agent']],
      ['Job', ['once']], ['CronJob', ['nightly']], ['HorizontalPodAutoscaler', ['web']],
    ]);
  });

  it('watches Deployments and Jobs from their lists and sees kubectl\'s writes, typed', async () => {
    const ns = 'py-watch-apps';
    await k.ok(['create', 'namespace', ns]);
    const c = spawnLines(PYTHON, [SCRIPT, k.server.kubeconfigPath, 'watch', ns, '3']);
    try {
      await c.waitFor((l) => l.filter((x) => x.includes('LISTED')).length === 2, 'both lists', 60_000);
      await k.ok(['apply', '-f', k.manifest('watch-deploy.yaml', deployment(ns, 'api', 1))]);
      await k.ok(['scale', 'deployment/api', '-n', ns, '--replicas=4']);
      await k.ok(['create', 'job', 'migrate', '-n', ns, '--image=busybox:1.36', '--', 'true']);
      const out = await c.waitFor((l) => l.filter((x) => !x.includes('LISTED')).length >= 3, 'three events', 60_000);
      const events = out.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.type !== 'LISTED');
      expect(events.filter((e) => e.kind === 'Deployment').map((e) => [e.type, e.name, e.replicas])).to.deep.equal([
        ['ADDED', 'api', 1], ['MODIFIED', 'api', 4],
      ]);
      expect(events.filter((e) => e.kind === 'Job').map((e) => [e.type, e.name, e.completions])).to.deep.equal([['ADDED', 'migrate', 1]]);
    } finally {
      await c.stop();
    }
  });

  it('creates a Deployment from typed models with Kubernetes\' defaults and scales it through /scale', async () => {
    const res = await py(['scale', 'py-apps', 'typed']);
    expect(res.code, res.stderr).to.equal(0);
    expect(lines(res.stdout)).to.deep.equal([
      { step: 'created', replicas: 1, strategy: 'RollingUpdate', maxSurge: '25%' },
      { step: 'scale', replicas: 1, selector: 'app=typed' },
      { step: 'scaled', replicas: 3 },
      { step: 'deployment', replicas: 3 },
    ]);
  });
});
