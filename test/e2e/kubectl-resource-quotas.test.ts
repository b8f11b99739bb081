/**
 * kubectl (1.32) with ResourceQuotas: api-resources names `quota`, `create quota --hard` writes
 * one, `describe quota` shows the Used and Hard columns the controller and the admission plugin
 * keep, `get quota` prints NAME AGE REQUEST LIMIT, and a create past the hard limit fails with
 * the plugin's "exceeded quota" sentence.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('kubectl with ResourceQuotas', function () {
  this.timeout(90_000);
  // Without the root-CA publisher: the namespace holds only the ConfigMaps this test makes.
  const e2e = useKubectlServer('kubectl-quota', ['--flavor=kubernetes', '--controllers=*,-root-ca-cert-publisher,-serviceaccount',
    '--disable-admission-plugins=ServiceAccount']);
  const { ok, fails } = e2e;

  /** `describe quota` once the controller has filled the status (Used shows numbers). */
  async function describe(name: string, until: RegExp): Promise<string> {
    for (let i = 0; i < 50; i++) {
      const out = (await ok(['describe', 'quota', name])).stdout;
      if (until.test(out)) return out;
      await sleep(200);
    }
    throw new Error(`describe quota ${name} never matched ${until}`);
  }

  it('api-resources lists resourcequotas (quota), namespaced, at v1', async () => {
    const table = parseTable((await ok(['api-resources', '--api-group='])).stdout);
    const row = table.rows.find((r) => r.NAME === 'resourcequotas');
    expect(row && [row.SHORTNAMES, row.APIVERSION, row.NAMESPACED, row.KIND]).to.deep.equal(['quota', 'v1', 'true', 'ResourceQuota']);
  });

  it('create quota, describe quota with Used and Hard, get quota, and a create over the limit refused', async () => {
    expect((await ok(['create', 'quota', 'q', '--hard=pods=2,count/configmaps=3'])).stdout).to.contain('resourcequota/q created');
    let out = await describe('q', /count\/configmaps\s+0\s+3/);
    expect(out).to.match(/^Name:\s+q$/m);
    expect(out).to.match(/^Resource\s+Used\s+Hard$/m);
    expect(out).to.match(/^pods\s+0\s+2$/m);

    for (const n of ['c1', 'c2', 'c3']) await ok(['create', 'configmap', n, '--from-literal=a=b']);
    const refused = await fails(['create', 'configmap', 'c4', '--from-literal=a=b']);
    expect(refused.stderr).to.contain('configmaps "c4" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=3, limited: count/configmaps=3');
    out = await describe('q', /count\/configmaps\s+3\s+3/);
    expect(out).to.match(/^count\/configmaps\s+3\s+3$/m);

    const table = parseTable((await ok(['get', 'quota', 'q'])).stdout);
    expect(table.rows[0]).to.deep.include({ NAME: 'q', REQUEST: 'count/configmaps: 3/3, pods: 0/2', LIMIT: '' });
  });
});
