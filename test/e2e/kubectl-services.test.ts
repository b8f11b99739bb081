/**
 * kubectl (1.32) with Services: api-resources names `svc`; `create service clusterip` and
 * `create service nodeport` get an address of the range and a node port; `expose deployment`
 * makes a Service from the Deployment's selector; `get svc` prints NAME TYPE CLUSTER-IP
 * EXTERNAL-IP PORT(S) AGE (and SELECTOR with -o wide); `describe svc` shows the allocations; a
 * taken node port is refused with Kubernetes' message.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

/** kubectl's columns are set apart by at least two spaces; PORT(S) has none inside. */
function table(stdout: string): { columns: string[]; rows: Array<Record<string, string>> } {
  const [head, ...lines] = stdout.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
  return { columns: head, rows: lines.map((cells) => Object.fromEntries(head.map((c, i) => [c, cells[i]]))) };
}

describe('kubectl with Services', function () {
  this.timeout(120_000);
  const e2e = useKubectlServer('kubectl-svc', ['--flavor=kubernetes', '--service-cluster-ip-range=10.55.0.0/24', '--service-node-port-range=31000-31099']);
  const { ok, fails } = e2e;

  it('api-resources lists services (svc), namespaced, at v1', async () => {
    const t = parseTable((await ok(['api-resources', '--api-group='])).stdout);
    expect(t.rows.find((r) => r.NAME === 'services')).to.deep.include({ SHORTNAMES: 'svc', APIVERSION: 'v1', NAMESPACED: 'true', KIND: 'Service' });
  });

  it('create service clusterip / nodeport, expose a deployment, get (wide), describe', async () => {
    expect((await ok(['create', 'service', 'clusterip', 'web', '--tcp=80:8080'])).stdout).to.contain('service/web created');
    expect((await ok(['create', 'service', 'nodeport', 'np', '--tcp=443:8443', '--node-port=31050'])).stdout).to.contain('service/np created');
    await ok(['create', 'deployment', 'app', '--image=registry.example.com/app:1', '--port=8080']);
    expect((await ok(['expose', 'deployment', 'app', '--port=80'])).stdout).to.contain('service/app exposed');

    const t = table((await ok(['get', 'svc'])).stdout);
    expect(t.columns).to.deep.equal(['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']);
    const web = t.rows.find((r) => r.NAME === 'web')!;
    expect(web).to.deep.include({ TYPE: 'ClusterIP', 'EXTERNAL-IP': '<none>', 'PORT(S)': '80/TCP' });
    expect(web['CLUSTER-IP']).to.match(/^10\.55\.0\.\d+$/);
    expect(t.rows.find((r) => r.NAME === 'np')).to.deep.include({ TYPE: 'NodePort', 'PORT(S)': '443:31050/TCP' });
    const app = t.rows.find((r) => r.NAME === 'app')!;
    expect(app).to.deep.include({ TYPE: 'ClusterIP', 'PORT(S)': '80/TCP' });
    expect(new Set(t.rows.map((r) => r['CLUSTER-IP'])).size).to.equal(t.rows.length);

    const wide = table((await ok(['get', 'svc', 'app', 'web', '-o', 'wide'])).stdout);
    expect(wide.columns).to.deep.equal(['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR']);
    expect(wide.rows.find((r) => r.NAME === 'app')!.SELECTOR).to.equal('app=app');
    expect(wide.rows.find((r) => r.NAME === 'web')!.SELECTOR).to.equal('app=web');

    const described = (await ok(['describe', 'svc', 'np'])).stdout;
    expect(described).to.match(/Type:\s+NodePort/);
    expect(described).to.match(/NodePort:\s+443-8443\s+31050\/TCP/);
    expect(described).to.match(/IP Family Policy:\s+SingleStack/);
    expect(described).to.match(/IP Families:\s+IPv4/);

    const refused = await fails(['create', 'service', 'nodeport', 'np2', '--tcp=80:80', '--node-port=31050']);
    expect(refused.stderr).to.contain('spec.ports[0].nodePort: Invalid value: 31050: provided port is already allocated');
  });
});
