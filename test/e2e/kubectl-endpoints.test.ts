/**
 * kubectl (1.32) with Endpoints and EndpointSlices: api-resources names `endpoints` (ep) and
 * `endpointslices` at discovery.k8s.io/v1; `get endpoints` prints NAME ENDPOINTS AGE, the
 * server's own `kubernetes` row included (its advertise address on the secure port);
 * `get endpointslices` prints NAME ADDRESSTYPE PORTS ENDPOINTS AGE; a loopback address is
 * refused with Kubernetes' message.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

describe('kubectl with Endpoints and EndpointSlices', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-endpoints', ['--flavor=kubernetes', '--advertise-address=127.0.0.2']);
  const { ok, fails } = e2e;

  it('api-resources lists endpoints (ep) in the core group and endpointslices at discovery.k8s.io/v1', async () => {
    const core = parseTable((await ok(['api-resources', '--api-group='])).stdout);
    expect(core.rows.filter((r) => r.NAME === 'endpoints').map((r) => [r.SHORTNAMES, r.APIVERSION, r.NAMESPACED, r.KIND])).to.deep.equal([['ep', 'v1', 'true', 'Endpoints']]);
    const discovery = parseTable((await ok(['api-resources', '--api-group=discovery.k8s.io'])).stdout);
    expect(discovery.rows.map((r) => [r.NAME, r.APIVERSION, r.NAMESPACED, r.KIND])).to.deep.equal([['endpointslices', 'discovery.k8s.io/v1', 'true', 'EndpointSlice']]);
  });

  it('get endpoints: the kubernetes row and a created one, three pairs then "+ N more..."', async () => {
    await ok(['create', '-f', e2e.manifest('ep.yaml', {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web' },
      subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] }],
    })]);
    const port = new URL(JSON.parse((await ok(['config', 'view', '--raw', '-o', 'json'])).stdout).clusters[0].cluster.server).port;
    const table = parseTable((await ok(['get', 'endpoints', '-n', 'default'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'ENDPOINTS', 'AGE']);
    expect(table.rows.find((r) => r.NAME === 'web')?.ENDPOINTS).to.equal('10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...');
    expect(table.rows.find((r) => r.NAME === 'kubernetes')?.ENDPOINTS).to.equal(`127.0.0.2:${port}`);
    expect(parseTable((await ok(['get', 'ep', 'web'])).stdout).rows).to.have.length(1);
  });

  it('get endpointslices: NAME ADDRESSTYPE PORTS ENDPOINTS AGE', async () => {
    await ok(['create', '-f', e2e.manifest('slice.yaml', {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-1', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2'] }], ports: [{ name: 'http', port: 80 }],
    })]);
    const table = parseTable((await ok(['get', 'endpointslices'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS', 'AGE']);
    expect(table.rows.find((r) => r.NAME === 'web-1')).to.deep.include({ ADDRESSTYPE: 'IPv4', PORTS: '80', ENDPOINTS: '10.0.0.1,10.0.0.2' });
    expect(table.rows.find((r) => r.NAME === 'kubernetes')).to.deep.include({ ADDRESSTYPE: 'IPv4', ENDPOINTS: '127.0.0.2' });
  });

  it('refuses a loopback address with Kubernetes\' message', async () => {
    const refused = await fails(['create', '-f', e2e.manifest('loop.yaml', {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'loop' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }] }],
    })]);
    expect(refused.stderr).to.contain('subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)');
  });
});
