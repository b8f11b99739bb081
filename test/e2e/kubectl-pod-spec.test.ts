/**
 * kubectl (1.32) with a Pod written for Kubernetes: `kubectl apply -f` sends ports, resources,
 * probes, env, security contexts, affinity and tolerations without an "unknown field" warning
 * (kubectl validates against the served OpenAPI), `get -o yaml` shows them with Kubernetes'
 * defaults, and `get -o wide` prints the pod's columns.
 */
import { expect } from 'chai';
import { parse as parseYaml } from 'yaml';
import { useKubectlServer } from '../helpers/e2e-server';

const POD = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' },
  spec: {
    containers: [{
      name: 'app', image: 'nginx:1.27',
      ports: [{ name: 'http', containerPort: 80 }],
      resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } },
      readinessProbe: { httpGet: { path: '/healthz', port: 'http' } },
      env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
      securityContext: { runAsNonRoot: true, capabilities: { drop: ['ALL'] } },
    }],
    securityContext: { runAsUser: 101, seccompProfile: { type: 'RuntimeDefault' } },
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } },
    nodeSelector: { disktype: 'ssd' },
    readinessGates: [{ conditionType: 'example.com/lb' }],
  },
};

describe('kubectl with a Kubernetes Pod manifest', function () {
  this.timeout(90_000);
  // The service-account plugin's token volume is its own suite's.
  const e2e = useKubectlServer('kubectl-pod-spec', ['--disable-admission-plugins=ServiceAccount']);

  it('applies without unknown-field warnings and shows every field with the defaults', async () => {
    const r = await e2e.ok(['apply', '-f', e2e.manifest('pod.yaml', POD)]);
    expect(r.stdout).to.contain('pod/web created');
    expect(r.stderr).to.not.match(/unknown field/i);
    const pod = parseYaml((await e2e.ok(['get', 'pod', 'web', '-o', 'yaml'])).stdout);
    const c = pod.spec.containers[0];
    expect(c.ports).to.deep.equal([{ name: 'http', containerPort: 80, protocol: 'TCP' }]);
    expect(c.resources).to.deep.equal({ requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } });
    expect(c.readinessProbe).to.deep.equal({
      httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3,
    });
    expect(c.securityContext).to.deep.equal(POD.spec.containers[0].securityContext);
    expect(c).to.include({ terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' });
    // DefaultTolerationSeconds (enabled by default) adds its two NoExecute tolerations after ours.
    expect(pod.spec.tolerations[0]).to.deep.equal(POD.spec.tolerations[0]);
    expect(pod.spec).to.deep.include({
      affinity: POD.spec.affinity, nodeSelector: POD.spec.nodeSelector, securityContext: POD.spec.securityContext,
      restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', enableServiceLinks: true, terminationGracePeriodSeconds: 30,
    });
    expect(pod.status.qosClass).to.equal('Burstable');
    // A second apply of the same manifest passes the update rules (defaults are stable; the
    // plugin's tolerations come back), leaving the spec as it was.
    await e2e.ok(['apply', '-f', e2e.manifest('pod.yaml', POD)]);
    expect(parseYaml((await e2e.ok(['get', 'pod', 'web', '-o', 'yaml'])).stdout).spec).to.deep.equal(pod.spec);
  });

  it('prints the wide columns, readiness gates counted', async () => {
    const out = (await e2e.ok(['get', 'pod', 'web', '-o', 'wide', '--no-headers'])).stdout.trim().split(/\s+/);
    expect(out.slice(0, 4)).to.deep.equal(['web', '0/1', 'Pending', '0']);
    expect(out.slice(-4)).to.deep.equal(['<none>', '<none>', '<none>', '0/1']);
  });
});
