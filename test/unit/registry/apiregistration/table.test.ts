/**
 * The cells kubectl prints for APIServices (kube-aggregator's ConvertToTable): SERVICE is `Local`
 * without a service, else `<namespace>/<name>`; AVAILABLE is the Available condition's status when
 * True, `<status> (<reason>)` otherwise when it has a reason, its bare status without one, and
 * Unknown without the condition; AGE as kubectl's other ages.
 */
import { expect } from 'chai';
import { apiServiceTable } from '../../../../lib/registry/apiregistration/api-services/definition';

const NOW = new Date('2026-01-02T00:00:00Z');
const cells = (spec: Record<string, unknown>, conditions?: unknown[]) =>
  apiServiceTable.cells({ metadata: { name: 'v1.x.example.com', creationTimestamp: '2026-01-01T00:00:00Z' }, spec, status: conditions ? { conditions } : {} }, NOW);

describe('APIService Table cells', () => {
  it('has the columns NAME SERVICE AVAILABLE AGE', () => {
    expect(apiServiceTable.columns.map((c) => [c.name, c.type])).to.deep.equal([['Name', 'string'], ['Service', 'string'], ['Available', 'string'], ['Age', 'string']]);
  });

  it('prints Local and True for a local APIService', () => {
    expect(cells({ group: 'x.example.com', version: 'v1' }, [{ type: 'Available', status: 'True', reason: 'Local' }]))
      .to.deep.equal(['v1.x.example.com', 'Local', 'True', '24h']);
  });

  it('prints <namespace>/<name>, and the reason beside a status that is not True', () => {
    const spec = { service: { namespace: 'kube-system', name: 'metrics-server', port: 443 } };
    expect(cells(spec, [{ type: 'Available', status: 'False', reason: 'MissingEndpoints' }]).slice(1, 3)).to.deep.equal(['kube-system/metrics-server', 'False (MissingEndpoints)']);
    expect(cells(spec, [{ type: 'Available', status: 'Unknown', reason: 'Pending' }])[2]).to.equal('Unknown (Pending)');
    expect(cells(spec, [{ type: 'Available', status: 'False' }])[2]).to.equal('False');
    expect(cells(spec, [{ type: 'Other', status: 'True' }])[2]).to.equal('Unknown');
    expect(cells(spec)[2]).to.equal('Unknown');
  });
});
