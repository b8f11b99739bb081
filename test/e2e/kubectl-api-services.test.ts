/**
 * kubectl (1.32) with APIServices (apiregistration.k8s.io/v1): api-resources lists apiservices,
 * cluster-scoped, in the api-extensions category; `kubectl create -f` of a valid local APIService
 * and of a remote one, `kubectl get apiservices` printing NAME SERVICE AVAILABLE AGE (Local and
 * True for the local one, <namespace>/<name> for the remote one), `kubectl get api-extensions`
 * naming it; `kubectl create -f` of invalid APIServices refused with kube-aggregator's messages;
 * `kubectl delete` answering as kubectl prints it.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

const AV = 'apiregistration.k8s.io/v1';

describe('kubectl with APIServices', function () {
  this.timeout(120_000);
  const e2e = useKubectlServer('kubectl-apisvc', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;

  it('api-resources lists apiservices, cluster-scoped, in the api-extensions category', async () => {
    const table = parseTable((await ok(['api-resources', '--api-group=apiregistration.k8s.io'])).stdout);
    expect(table.rows.map((r) => [r.NAME, r.APIVERSION, r.NAMESPACED, r.KIND])).to.deep.equal([['apiservices', AV, 'false', 'APIService']]);
    const wide = parseTable((await ok(['api-resources', '--api-group=apiregistration.k8s.io', '-o', 'wide'])).stdout);
    expect(wide.rows[0].CATEGORIES).to.equal('api-extensions');
  });

  it('create -f of a local and a remote APIService, get apiservices as NAME SERVICE AVAILABLE AGE, delete', async () => {
    const local = e2e.manifest('local.yaml', {
      apiVersion: AV, kind: 'APIService', metadata: { name: 'v1.local-e2e.example.com' },
      spec: { group: 'local-e2e.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15 },
    });
    expect((await ok(['create', '-f', local])).stdout).to.contain('apiservice.apiregistration.k8s.io/v1.local-e2e.example.com created');
    const remote = e2e.manifest('remote.yaml', {
      apiVersion: AV, kind: 'APIService', metadata: { name: 'v1beta1.remote-e2e.example.com' },
      spec: { group: 'remote-e2e.example.com', version: 'v1beta1', service: { namespace: 'ext', name: 'remote-api' }, insecureSkipTLSVerify: true, groupPriorityMinimum: 1000, versionPriority: 15 },
    });
    expect((await ok(['create', '-f', remote])).stdout).to.contain('apiservice.apiregistration.k8s.io/v1beta1.remote-e2e.example.com created');

    const table = parseTable((await ok(['get', 'apiservices'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
    const row = (name: string) => table.rows.find((r) => r.NAME === name);
    expect(row('v1.local-e2e.example.com')).to.deep.include({ SERVICE: 'Local', AVAILABLE: 'True' });
    expect(row('v1beta1.remote-e2e.example.com')).to.deep.include({ SERVICE: 'ext/remote-api' });
    // No Service ext/remote-api exists: no condition yet, or the one an availability check writes.
    expect(row('v1beta1.remote-e2e.example.com')!.AVAILABLE).to.match(/^(Unknown|False \(ServiceNotFound\))$/);
    expect((await ok(['get', 'apiservice', 'v1beta1.remote-e2e.example.com', '-o', 'jsonpath={.spec.service.port}'])).stdout).to.equal('443');

    const extensions = (await ok(['get', 'api-extensions', '-o', 'name'])).stdout.split('\n');
    expect(extensions).to.include.members(['apiservice.apiregistration.k8s.io/v1.local-e2e.example.com', 'apiservice.apiregistration.k8s.io/v1beta1.remote-e2e.example.com']);

    expect((await ok(['delete', 'apiservice', 'v1beta1.remote-e2e.example.com', 'v1.local-e2e.example.com'])).stdout)
      .to.contain('apiservice.apiregistration.k8s.io "v1beta1.remote-e2e.example.com" deleted');
    const left = await fails(['get', 'apiservice', 'v1.local-e2e.example.com']);
    expect(left.stderr).to.contain('apiservices.apiregistration.k8s.io "v1.local-e2e.example.com" not found');
  });

  it('create -f of invalid APIServices is refused with the causes kube-aggregator gives', async () => {
    const misnamed = e2e.manifest('misnamed.yaml', {
      apiVersion: AV, kind: 'APIService', metadata: { name: 'v1.wrong.example.com' },
      spec: { group: 'right.example.com', version: 'v1', groupPriorityMinimum: 0, versionPriority: 15 },
    });
    const refused = await fails(['create', '-f', misnamed]);
    expect(refused.stderr).to.contain('The APIService "v1.wrong.example.com" is invalid');
    expect(refused.stderr).to.contain('metadata.name: Invalid value: "v1.wrong.example.com": must be `spec.version+"."+spec.group`: "v1.right.example.com"');
    expect(refused.stderr).to.contain('spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000');

    const both = e2e.manifest('both.yaml', {
      apiVersion: AV, kind: 'APIService', metadata: { name: 'v1.both.example.com' },
      spec: { group: 'both.example.com', version: 'v1', service: { namespace: 'ext', name: 'api', port: 0 }, insecureSkipTLSVerify: true, caBundle: Buffer.from('pem').toString('base64'), groupPriorityMinimum: 10, versionPriority: 10 },
    });
    const second = await fails(['create', '-f', both]);
    expect(second.stderr).to.contain('spec.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive');
    expect(second.stderr).to.contain('spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present');
    expect((await fails(['get', 'apiservice', 'v1.both.example.com'])).stderr).to.contain('not found');
  });
});
