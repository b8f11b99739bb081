/**
 * kubectl (1.32) `get cs`: the deprecation warning kubectl prints from the server's Warning
 * header, the NAME STATUS MESSAGE ERROR table with etcd-0 Healthy `ok` and rows for the
 * scheduler and the controller-manager, and `get cs etcd-0 -o json`.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

describe('kubectl get componentstatuses', function () {
  this.timeout(90_000);
  const { ok } = useKubectlServer('kubectl-cs', ['--flavor=kubernetes']);

  it('get cs prints the components and the deprecation warning', async () => {
    const res = await ok(['get', 'cs']);
    expect(res.stderr).to.contain('Warning: v1 ComponentStatus is deprecated in v1.19+');
    const table = parseTable(res.stdout);
    expect(table.columns).to.deep.equal(['NAME', 'STATUS', 'MESSAGE', 'ERROR']);
    expect(table.rows.map((r) => r.NAME)).to.have.members(['controller-manager', 'etcd-0', 'scheduler']);
    expect(table.rows.find((r) => r.NAME === 'etcd-0')).to.deep.equal({ NAME: 'etcd-0', STATUS: 'Healthy', MESSAGE: 'ok', ERROR: '' });
    const etcd = JSON.parse((await ok(['get', 'componentstatus', 'etcd-0', '-o', 'json'])).stdout);
    expect(etcd).to.deep.include({ kind: 'ComponentStatus', apiVersion: 'v1', conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] });
  });
});
