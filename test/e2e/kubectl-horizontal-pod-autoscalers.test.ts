/**
 * kubectl (1.32) with HorizontalPodAutoscalers: api-resources names `hpa` at autoscaling/v2,
 * `apply -f` creates one, `kubectl autoscale statefulset` creates one at autoscaling/v1 (as kubectl
 * 1.32 does; Deployments are not served on this branch yet), `get hpa` prints NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE,
 * `get horizontalpodautoscalers.v1.autoscaling -o yaml` shows the v1 form with Kubernetes' annotations, `describe hpa`
 * reads it, a status patch goes through `--subresource=status`, and a bad one is refused with
 * Kubernetes' message; an autoscaling/v1 manifest applied twice keeps the v2-only fields.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

const WEB = {
  apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 5,
    metrics: [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } },
    ],
  },
};

describe('kubectl with HorizontalPodAutoscalers', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-hpa', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;

  it('api-resources lists horizontalpodautoscalers (hpa), namespaced, at autoscaling/v2', async () => {
    const table = parseTable((await ok(['api-resources', '--api-group=autoscaling'])).stdout);
    expect(table.rows.map((r) => [r.NAME, r.SHORTNAMES, r.APIVERSION, r.NAMESPACED, r.KIND])).to.deep.equal(
      [['horizontalpodautoscalers', 'hpa', 'autoscaling/v2', 'true', 'HorizontalPodAutoscaler']]);
  });

  it('apply, get hpa, get it at v1 with the annotations, describe, patch the status', async () => {
    expect((await ok(['apply', '-f', e2e.manifest('web.yaml', WEB)])).stdout).to.contain('horizontalpodautoscaler.autoscaling/web created');
    let table = parseTable((await ok(['get', 'hpa'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
    expect(table.rows[0]).to.deep.include({
      NAME: 'web', REFERENCE: 'Deployment/web', TARGETS: 'cpu: <unknown>/70%, memory: <unknown>/500Mi', MINPODS: '2', MAXPODS: '5', REPLICAS: '0',
    });

    // The resource's full name: kubectl 1.32 expands the short name of `hpa.v1.autoscaling` to the
    // preferred version (it asks autoscaling/v2), as it does against kube-apiserver.
    const v1 = JSON.parse((await ok(['get', 'horizontalpodautoscalers.v1.autoscaling', 'web', '-o', 'json'])).stdout);
    expect(v1.apiVersion).to.equal('autoscaling/v1');
    expect(v1.spec).to.deep.equal({ scaleTargetRef: WEB.spec.scaleTargetRef, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 70 });
    expect(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics'])).to.deep.equal(
      [{ type: 'Resource', resource: { name: 'memory', targetAverageValue: '500Mi' } }]);
    const yaml = (await ok(['get', 'horizontalpodautoscalers.v1.autoscaling', 'web', '-o', 'yaml'])).stdout;
    expect(yaml).to.contain('apiVersion: autoscaling/v1').and.to.contain('autoscaling.alpha.kubernetes.io/metrics:').and.to.contain('targetCPUUtilizationPercentage: 70');

    const described = (await ok(['describe', 'hpa', 'web'])).stdout;
    expect(described).to.match(/Reference:\s+Deployment\/web/).and.to.match(/Min replicas:\s+2/).and.to.match(/Max replicas:\s+5/);

    await ok(['patch', 'hpa', 'web', '--subresource=status', '--type=merge', '-p',
      '{"status":{"currentReplicas":3,"desiredReplicas":3,"currentMetrics":[{"type":"Resource","resource":{"name":"cpu","current":{"averageUtilization":42}}}]}}']);
    table = parseTable((await ok(['get', 'hpa', 'web'])).stdout);
    expect(table.rows[0]).to.deep.include({ TARGETS: 'cpu: 42%/70%, memory: <unknown>/500Mi', REPLICAS: '3' });

    const refused = await fails(['apply', '-f', e2e.manifest('bad.yaml', { ...WEB, metadata: { name: 'bad' }, spec: { ...WEB.spec, minReplicas: 6 } })]);
    expect(refused.stderr).to.contain('spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`');
  });

  it('apply of an autoscaling/v1 manifest, twice (a strategic merge patch at v1), keeps the v2 fields', async () => {
    const v1 = (maxReplicas: number) => ({
      apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'legacy' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'legacy' }, maxReplicas, targetCPUUtilizationPercentage: 65 },
    });
    expect((await ok(['apply', '-f', e2e.manifest('legacy.yaml', v1(3))])).stdout).to.contain('horizontalpodautoscaler.autoscaling/legacy created');
    await ok(['patch', 'hpa', 'legacy', '--type=merge', '-p', '{"spec":{"behavior":{"scaleDown":{"stabilizationWindowSeconds":60}}}}']);
    expect((await ok(['apply', '-f', e2e.manifest('legacy.yaml', v1(4))])).stdout).to.contain('horizontalpodautoscaler.autoscaling/legacy configured');
    const v2 = JSON.parse((await ok(['get', 'hpa', 'legacy', '-o', 'json'])).stdout);
    expect(v2.spec.maxReplicas).to.equal(4);
    expect(v2.spec.metrics).to.deep.equal([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 65 } } }]);
    expect(v2.spec.behavior.scaleDown.stabilizationWindowSeconds).to.equal(60);
  });

  it('kubectl autoscale statefulset creates the HPA kubectl 1.32 writes', async () => {
    await ok(['apply', '-f', e2e.manifest('sts.yaml', {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db' },
      spec: { serviceName: 'db', replicas: 1, selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres:16' }] } } },
    })]);
    const made = await ok(['autoscale', 'statefulset', 'db', '--min=2', '--max=5', '--cpu-percent=70', '-v=6']);
    expect(made.stdout).to.contain('horizontalpodautoscaler.autoscaling/db autoscaled');
    const posted = /POST https:\/\/\S+\/apis\/autoscaling\/(v\d)\/namespaces\/default\/horizontalpodautoscalers/.exec(made.stderr);
    // kubectl 1.32 writes the autoscaler at autoscaling/v1 (targetCPUUtilizationPercentage); read at v2 it is the CPU metric.
    expect(posted?.[1], made.stderr).to.equal('v1');
    const hpa = JSON.parse((await ok(['get', 'hpa', 'db', '-o', 'json'])).stdout);
    expect(hpa.spec).to.deep.equal({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' }, minReplicas: 2, maxReplicas: 5,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }],
    });
    const row = parseTable((await ok(['get', 'hpa', 'db'])).stdout).rows[0];
    expect(row).to.deep.include({ REFERENCE: 'StatefulSet/db', TARGETS: 'cpu: <unknown>/70%', MINPODS: '2', MAXPODS: '5' });
  });

  it('explain shows the v2 schema', async () => {
    const out = (await ok(['explain', 'hpa.spec.behavior.scaleUp'])).stdout;
    expect(out).to.contain('GROUP:      autoscaling').and.to.contain('VERSION:    v2').and.to.contain('stabilizationWindowSeconds');
  });
});
