/**
 * kubectl (1.32) with PodDisruptionBudgets (policy/v1): api-resources names `pdb`, `create pdb`
 * writes a budget, `get pdb` prints NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE
 * (N/A for the unset bound), a status patch goes through `--subresource=status`, and a budget
 * with both bounds is refused with Kubernetes' message.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

/** kubectl's columns are set apart by at least three spaces; these headers have single spaces inside. */
function wideTable(stdout: string): { columns: string[]; rows: Array<Record<string, string>> } {
  const [head, ...lines] = stdout.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
  return { columns: head, rows: lines.map((cells) => Object.fromEntries(head.map((c, i) => [c, cells[i]]))) };
}

describe('kubectl with PodDisruptionBudgets', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-pdb', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;

  it('api-resources lists poddisruptionbudgets (pdb), namespaced, at policy/v1', async () => {
    const table = parseTable((await ok(['api-resources', '--api-group=policy'])).stdout);
    expect(table.rows.map((r) => [r.NAME, r.SHORTNAMES, r.APIVERSION, r.NAMESPACED, r.KIND])).to.deep.equal(
      [['poddisruptionbudgets', 'pdb', 'policy/v1', 'true', 'PodDisruptionBudget']]);
  });

  it('create pdb, get pdb, patch the status, refuse both bounds', async () => {
    expect((await ok(['create', 'pdb', 'web', '--selector=app=web', '--min-available=2'])).stdout).to.contain('poddisruptionbudget.policy/web created');
    expect((await ok(['create', 'pdb', 'db', '--selector=app=db', '--max-unavailable=25%'])).stdout).to.contain('poddisruptionbudget.policy/db created');
    let table = wideTable((await ok(['get', 'pdb'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE']);
    expect(table.rows.find((r) => r.NAME === 'web')).to.deep.include({ 'MIN AVAILABLE': '2', 'MAX UNAVAILABLE': 'N/A', 'ALLOWED DISRUPTIONS': '0' });
    expect(table.rows.find((r) => r.NAME === 'db')).to.deep.include({ 'MIN AVAILABLE': 'N/A', 'MAX UNAVAILABLE': '25%', 'ALLOWED DISRUPTIONS': '0' });

    await ok(['patch', 'pdb', 'web', '--subresource=status', '--type=merge', '-p', '{"status":{"disruptionsAllowed":1,"expectedPods":3}}']);
    table = wideTable((await ok(['get', 'pdb', 'web'])).stdout);
    expect(table.rows[0]['ALLOWED DISRUPTIONS']).to.equal('1');

    const refused = await fails(['create', '-f', e2e.manifest('both.yaml', {
      apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'both' }, spec: { minAvailable: 1, maxUnavailable: 1 },
    })]);
    expect(refused.stderr).to.contain('minAvailable and maxUnavailable cannot be both set');
  });
});
