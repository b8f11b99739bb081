/**
 * kubectl (1.32) with the workload kinds together, as a new user meets them: `kubectl apply -f`
 * of a typical application (ConfigMap, Deployment, HorizontalPodAutoscaler, PodDisruptionBudget,
 * CronJob) creates everything and a second apply changes nothing; `get all` finds the workloads
 * through the `all` category; `get deploy,rs,sts,ds,job,cronjob,hpa,pdb,rc -o wide` prints
 * every kind's table; `autoscale` makes an autoscaling/v2 HPA for a Deployment; `create job
 * --from=cronjob/...` instantiates a CronJob's template; `api-resources` lists the kinds with
 * kube-apiserver's short names.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify as stringifyYaml } from 'yaml';

const NS = 'shop';
const labels = { app: 'web' };

const app = {
  apiVersion: 'v1', kind: 'List',
  items: [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config', namespace: NS }, data: { MODE: 'production' } },
    {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: NS, labels },
      spec: {
        replicas: 2, selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [{
              name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80, name: 'http' }],
              envFrom: [{ configMapRef: { name: 'web-config' } }],
              resources: { requests: { cpu: '100m', memory: '64Mi' } },
              readinessProbe: { httpGet: { path: '/', port: 'http' } },
            }],
          },
        },
      },
    },
    {
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: NS },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 10,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }],
      },
    },
    { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web', namespace: NS }, spec: { minAvailable: 1, selector: { matchLabels: labels } } },
    {
      apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'report', namespace: NS },
      spec: {
        schedule: '0 2 * * *', timeZone: 'Europe/Paris',
        jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'report', image: 'busybox:1.36', command: ['date'] }] } } } },
      },
    },
  ],
};

describe('kubectl with the workload kinds', function () {
  this.timeout(120_000);
  const e2e = useKubectlServer('kubectl-workloads', ['--flavor=kubernetes']);
  const { ok } = e2e;

  before(async () => { await ok(['create', 'namespace', NS]); });

  it('api-resources lists the workload kinds with kube-apiserver\'s short names and versions', async () => {
    const rows = parseTable((await ok(['api-resources'])).stdout).rows;
    const find = (name: string) => rows.find((r) => r.NAME === name);
    const want: Array<[string, string, string]> = [
      ['deployments', 'deploy', 'apps/v1'], ['replicasets', 'rs', 'apps/v1'], ['statefulsets', 'sts', 'apps/v1'],
      ['daemonsets', 'ds', 'apps/v1'], ['controllerrevisions', '', 'apps/v1'], ['jobs', '', 'batch/v1'], ['cronjobs', 'cj', 'batch/v1'],
      ['horizontalpodautoscalers', 'hpa', 'autoscaling/v2'], ['poddisruptionbudgets', 'pdb', 'policy/v1'],
      ['replicationcontrollers', 'rc', 'v1'], ['podtemplates', '', 'v1'],
    ];
    for (const [name, short, version] of want) {
      expect(find(name), name).to.deep.include({ SHORTNAMES: short, APIVERSION: version, NAMESPACED: 'true' });
    }
  });

  it('/apis lists the groups in kube-apiserver\'s order: apiregistration, apps, then events, authentication, ..., autoscaling, batch, ..., policy', async () => {
    const groups = (JSON.parse((await ok(['get', '--raw', '/apis'])).stdout).groups as Array<{ name: string }>).map((g) => g.name);
    // The aggregator's own group first, as kube-apiserver lists it (its APIService priority 18000).
    expect(groups.slice(0, 2)).to.deep.equal(['apiregistration.k8s.io', 'apps']);
    const at = (name: string) => groups.indexOf(name);
    expect(at('autoscaling')).to.be.above(at('authorization.k8s.io'));
    expect(at('batch')).to.equal(at('autoscaling') + 1);
    expect(at('policy')).to.be.below(at('rbac.authorization.k8s.io'));
  });

  it('apply -f of an application creates every object; a second apply leaves them unchanged', async () => {
    // One `kind: List`: kubectl validates it client-side against /openapi/v2 in protobuf.
    const file = path.join(e2e.dir, 'app.yaml');
    writeFileSync(file, stringifyYaml({ apiVersion: 'v1', kind: 'List', items: app.items }, { version: '1.1' }));
    const first = (await ok(['apply', '-f', file])).stdout;
    for (const line of ['configmap/web-config created', 'deployment.apps/web created', 'horizontalpodautoscaler.autoscaling/web created',
      'poddisruptionbudget.policy/web created', 'cronjob.batch/report created']) {
      expect(first).to.contain(line);
    }
    // A budget's selector has patch strategy `replace`: kubectl's three-way patch always carries
    // it, so kubectl says `configured` for it on kube-apiserver too; the object does not change.
    const before = JSON.parse((await ok(['get', 'pdb', 'web', '-n', NS, '-o', 'json'])).stdout);
    const second = (await ok(['apply', '-f', file])).stdout.trim().split('\n');
    expect(second.filter((l) => !l.endsWith(' unchanged'))).to.deep.equal(['poddisruptionbudget.policy/web configured']);
    const after = JSON.parse((await ok(['get', 'pdb', 'web', '-n', NS, '-o', 'json'])).stdout);
    expect(after.metadata.resourceVersion).to.equal(before.metadata.resourceVersion);
  });

  it('get all finds the workloads through the `all` category', async () => {
    const out = (await ok(['get', 'all', '-n', NS, '-o', 'name'])).stdout.trim().split('\n').sort();
    expect(out).to.include.members(['deployment.apps/web', 'horizontalpodautoscaler.autoscaling/web', 'cronjob.batch/report']);
    expect(out.some((l) => l.startsWith('configmap/') || l.startsWith('poddisruptionbudget'))).to.equal(false);
  });

  it('get of every workload kind prints its table, also with -o wide', async () => {
    await ok(['create', 'job', 'once', '-n', NS, '--image=busybox:1.36', '--', 'true']);
    for (const wide of [false, true]) {
      const { stdout } = await ok(['get', 'deploy,rs,sts,ds,job,cronjob,hpa,pdb,rc', '-n', NS, ...(wide ? ['-o', 'wide'] : [])]);
      expect(stdout).to.match(/NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE/);
      expect(stdout).to.match(/deployment\.apps\/web\s+0\/2\s+0\s+0\s/);
      expect(stdout).to.match(/NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE/);
      expect(stdout).to.match(/NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE/);
      expect(stdout).to.match(/cronjob\.batch\/report\s+0 2 \* \* \*\s+Europe\/Paris\s+False\s+0\s+<none>/);
      if (wide) expect(stdout).to.match(/deployment\.apps\/web\s+.*\s+web\s+nginx:1\.27\s+app=web/);
    }
  });

  it('autoscale makes an HPA for a Deployment, read back at v1 with the CPU target', async () => {
    await ok(['create', 'deployment', 'api', '-n', NS, '--image=nginx:1.27', '--replicas=2']);
    expect((await ok(['autoscale', 'deployment', 'api', '-n', NS, '--min=2', '--max=5', '--cpu-percent=70'])).stdout)
      .to.contain('horizontalpodautoscaler.autoscaling/api autoscaled');
    // kubectl resolves `hpa.v1.autoscaling` through the short name to the preferred version; the full resource name asks for v1.
    const v1 = JSON.parse((await ok(['get', 'horizontalpodautoscalers.v1.autoscaling', 'api', '-n', NS, '-o', 'json'])).stdout);
    expect(v1.apiVersion).to.equal('autoscaling/v1');
    expect(v1.spec).to.deep.include({ minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 70 });
    expect(v1.spec.scaleTargetRef).to.deep.include({ kind: 'Deployment', name: 'api', apiVersion: 'apps/v1' });
  });

  it('create job --from=cronjob instantiates the CronJob\'s template, owned by it', async () => {
    expect((await ok(['create', 'job', 'report-now', '-n', NS, '--from=cronjob/report'])).stdout).to.contain('job.batch/report-now created');
    const job = JSON.parse((await ok(['get', 'job', 'report-now', '-n', NS, '-o', 'json'])).stdout);
    expect(job.metadata.annotations).to.deep.include({ 'cronjob.kubernetes.io/instantiate': 'manual' });
    expect(job.metadata.ownerReferences.map((r: { kind: string; name: string }) => [r.kind, r.name])).to.deep.equal([['CronJob', 'report']]);
    expect(job.spec.template.spec.containers[0]).to.deep.include({ name: 'report', image: 'busybox:1.36' });
    // Kubernetes' generated selector and labels.
    expect(job.spec.selector.matchLabels['batch.kubernetes.io/controller-uid']).to.equal(job.metadata.uid);
    expect(job.spec.template.metadata.labels).to.deep.include({ 'batch.kubernetes.io/job-name': 'report-now', 'job-name': 'report-now' });
  });

  it('scale and set image change a Deployment; rollout pause and resume flip spec.paused', async () => {
    await ok(['scale', 'deployment/web', '-n', NS, '--replicas=4']);
    await ok(['set', 'image', 'deployment/web', '-n', NS, 'web=nginx:1.28']);
    await ok(['rollout', 'pause', 'deployment/web', '-n', NS]);
    let d = JSON.parse((await ok(['get', 'deploy', 'web', '-n', NS, '-o', 'json'])).stdout);
    expect([d.spec.replicas, d.spec.template.spec.containers[0].image, d.spec.paused]).to.deep.equal([4, 'nginx:1.28', true]);
    expect(d.metadata.generation).to.equal(4);
    await ok(['rollout', 'resume', 'deployment/web', '-n', NS]);
    d = JSON.parse((await ok(['get', 'deploy', 'web', '-n', NS, '-o', 'json'])).stdout);
    expect(d.spec.paused).to.equal(undefined);
  });
});
