/**
 * kubectl (1.32) with API priority and fairness' objects: api-resources lists flowschemas and
 * prioritylevelconfigurations (cluster-scoped, flowcontrol.apiserver.k8s.io/v1); `get` prints
 * the bootstrap configuration in kube-apiserver's columns (NAME PRIORITYLEVEL MATCHINGPRECEDENCE
 * DISTINGUISHERMETHOD AGE MISSINGPL; NAME TYPE NOMINALCONCURRENCYSHARES QUEUES HANDSIZE
 * QUEUELENGTHLIMIT AGE); `apply` creates and then configures a custom level and schema, whose
 * MISSINGPL turns False once its level exists; a bad spec is refused with Kubernetes' message.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

const GV = 'flowcontrol.apiserver.k8s.io/v1';

describe('kubectl with FlowSchemas and PriorityLevelConfigurations', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-apf', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;

  it('api-resources lists both kinds, cluster-scoped, at flowcontrol.apiserver.k8s.io/v1', async () => {
    const table = parseTable((await ok(['api-resources', '--api-group=flowcontrol.apiserver.k8s.io'])).stdout);
    expect(table.rows.map((r) => [r.NAME, r.APIVERSION, r.NAMESPACED, r.KIND])).to.deep.equal([
      ['flowschemas', GV, 'false', 'FlowSchema'],
      ['prioritylevelconfigurations', GV, 'false', 'PriorityLevelConfiguration'],
    ]);
  });

  it('get prints the bootstrap configuration as kube-apiserver does', async () => {
    const fs = parseTable((await ok(['get', 'flowschemas'])).stdout);
    expect(fs.columns).to.deep.equal(['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'AGE', 'MISSINGPL']);
    expect(fs.rows.map((r) => r.NAME)).to.include.members(['exempt', 'probes', 'system-nodes', 'global-default', 'catch-all']);
    expect(fs.rows.find((r) => r.NAME === 'probes')).to.deep.include({ PRIORITYLEVEL: 'exempt', MATCHINGPRECEDENCE: '2', DISTINGUISHERMETHOD: '<none>' });
    expect(fs.rows.find((r) => r.NAME === 'kube-system-service-accounts')).to.deep.include({ PRIORITYLEVEL: 'workload-high', MATCHINGPRECEDENCE: '900', DISTINGUISHERMETHOD: 'ByNamespace', MISSINGPL: 'False' });
    const pl = parseTable((await ok(['get', 'prioritylevelconfigurations'])).stdout);
    expect(pl.columns).to.deep.equal(['NAME', 'TYPE', 'NOMINALCONCURRENCYSHARES', 'QUEUES', 'HANDSIZE', 'QUEUELENGTHLIMIT', 'AGE']);
    expect(pl.rows.find((r) => r.NAME === 'exempt')).to.deep.include({ TYPE: 'Exempt', NOMINALCONCURRENCYSHARES: '<none>', QUEUES: '<none>' });
    expect(pl.rows.find((r) => r.NAME === 'catch-all')).to.deep.include({ TYPE: 'Limited', NOMINALCONCURRENCYSHARES: '5', QUEUES: '<none>' });
    expect(pl.rows.find((r) => r.NAME === 'workload-high')).to.deep.include({ TYPE: 'Limited', NOMINALCONCURRENCYSHARES: '40', QUEUES: '128', HANDSIZE: '6', QUEUELENGTHLIMIT: '50' });
  });

  it('apply creates and configures a custom schema and level', async () => {
    const schema = {
      apiVersion: GV, kind: 'FlowSchema', metadata: { name: 'batch-jobs' },
      spec: {
        priorityLevelConfiguration: { name: 'batch' }, matchingPrecedence: 3000, distinguisherMethod: { type: 'ByUser' },
        rules: [{ subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'batch', name: '*' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] }],
      },
    };
    expect((await ok(['apply', '-f', e2e.manifest('fs.yaml', schema)])).stdout).to.contain('flowschema.flowcontrol.apiserver.k8s.io/batch-jobs created');
    const dangling = async () => parseTable((await ok(['get', 'flowschemas', 'batch-jobs'])).stdout).rows[0];
    let row = await dangling();
    for (let i = 0; i < 50 && row.MISSINGPL !== 'True'; i++) { await new Promise((r) => setTimeout(r, 100)); row = await dangling(); }
    expect(row).to.deep.include({ PRIORITYLEVEL: 'batch', MATCHINGPRECEDENCE: '3000', MISSINGPL: 'True' });

    const levelManifest = (shares: number) => e2e.manifest(`pl-${shares}.yaml`, {
      apiVersion: GV, kind: 'PriorityLevelConfiguration', metadata: { name: 'batch' },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4 } } } },
    });
    expect((await ok(['apply', '-f', levelManifest(10)])).stdout).to.contain('prioritylevelconfiguration.flowcontrol.apiserver.k8s.io/batch created');
    expect((await ok(['apply', '-f', levelManifest(15)])).stdout).to.contain('prioritylevelconfiguration.flowcontrol.apiserver.k8s.io/batch configured');
    const pl = parseTable((await ok(['get', 'prioritylevelconfigurations', 'batch'])).stdout).rows[0];
    expect(pl).to.deep.include({ TYPE: 'Limited', NOMINALCONCURRENCYSHARES: '15', QUEUES: '16', HANDSIZE: '4', QUEUELENGTHLIMIT: '50' });
    row = await dangling();
    for (let i = 0; i < 50 && row.MISSINGPL !== 'False'; i++) { await new Promise((r) => setTimeout(r, 100)); row = await dangling(); }
    expect(row.MISSINGPL).to.equal('False');
  });

  it('refuses an invalid level with Kubernetes\' message', async () => {
    const refused = await fails(['apply', '-f', e2e.manifest('bad.yaml', {
      apiVersion: GV, kind: 'PriorityLevelConfiguration', metadata: { name: 'bad' },
      spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 5 } } } },
    })]);
    expect(refused.stderr).to.contain('spec.limited.limitResponse.queuing.handSize: Invalid value: 5: should not be greater than queues (4)');
  });
});
