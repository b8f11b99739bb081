/**
 * kubectl (1.32) prints the server's Tables: `get` asks for a meta.k8s.io/v1 Table and shows its
 * columns (NAME DATA AGE for configmaps, NAME TYPE DATA AGE for secrets, NAME STATUS AGE for
 * namespaces); --show-labels and -A read the rows' PartialObjectMetadata; --sort-by asks
 * includeObject=Object; `get -w` prints the Table rows of the watch events.
 */
import { WITHOUT_NAMESPACE_DEFAULTS } from '../helpers/server-harness';
import { expect } from 'chai';
import { parseTable } from '../helpers/kubectl';
import { useKubectlServer } from '../helpers/e2e-server';

const NS = 'printed';
const AGE = /^\d+s$/;
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('kubectl get prints server-side Tables', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-table', [WITHOUT_NAMESPACE_DEFAULTS]);
  const { ok } = e2e;
  let manifests = 0;

  /** `kubectl create -f` of `obj` as a YAML manifest (YAML 1.1 quoting, as kubectl reads it). */
  async function create(obj: unknown): Promise<void> {
    await ok(['create', '-f', e2e.manifest(`manifest-${++manifests}.yaml`, obj), '--validate=false']);
  }

  const configMap = (name: string, data: Record<string, string>, labels?: Record<string, string>, namespace = NS) =>
    ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...(labels ? { labels } : {}) }, data });

  before(async () => {
    await create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await create(configMap('alpha', { a: '1', b: '2' }, { app: 'alpha', tier: 'web' }));
    await create(configMap('beta', {}));
    await create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds', namespace: NS }, data: { user: b64('u'), pass: b64('p') } });
    await create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cert', namespace: NS }, type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c'), 'tls.key': b64('k') } });
  });

  it('get cm shows NAME DATA AGE', async () => {
    const table = parseTable((await ok(['get', 'cm', '-n', NS])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'DATA', 'AGE']);
    expect(table.rows.map((r) => [r.NAME, r.DATA])).to.deep.equal([['alpha', '2'], ['beta', '0']]);
    for (const r of table.rows) expect(r.AGE).to.match(AGE);
  });

  it('get cm NAME shows the one row', async () => {
    const table = parseTable((await ok(['get', 'configmap', 'alpha', '-n', NS])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'DATA', 'AGE']);
    expect(table.rows.map((r) => [r.NAME, r.DATA])).to.deep.equal([['alpha', '2']]);
  });

  it('get secrets shows NAME TYPE DATA AGE', async () => {
    const table = parseTable((await ok(['get', 'secrets', '-n', NS])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'TYPE', 'DATA', 'AGE']);
    expect(table.rows.map((r) => [r.NAME, r.TYPE, r.DATA])).to.deep.equal([['cert', 'kubernetes.io/tls', '2'], ['creds', 'Opaque', '2']]);
  });

  it('get ns shows NAME STATUS AGE', async () => {
    const table = parseTable((await ok(['get', 'ns'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'STATUS', 'AGE']);
    const row = table.rows.find((r) => r.NAME === NS);
    expect(row).to.include({ STATUS: 'Active' });
    expect(row!.AGE).to.match(AGE);
    expect(table.rows.map((r) => r.NAME)).to.include.members(['default', 'orch-system', 'orch-public']);
  });

  it('get cm --show-labels adds LABELS from the rows\' metadata', async () => {
    const table = parseTable((await ok(['get', 'cm', '-n', NS, '--show-labels'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'DATA', 'AGE', 'LABELS']);
    expect(table.rows.map((r) => [r.NAME, r.LABELS])).to.deep.equal([['alpha', 'app=alpha,tier=web'], ['beta', '<none>']]);
  });

  it('get cm -A adds NAMESPACE, -L a label column', async () => {
    const table = parseTable((await ok(['get', 'cm', '-A', '-L', 'app'])).stdout);
    expect(table.columns).to.deep.equal(['NAMESPACE', 'NAME', 'DATA', 'AGE', 'APP']);
    expect(table.rows.filter((r) => r.NAMESPACE === NS).map((r) => [r.NAME, r.APP])).to.deep.equal([['alpha', 'alpha'], ['beta', '']]);
  });

  it('get cm --sort-by (includeObject=Object) sorts by a field of the whole object', async () => {
    const table = parseTable((await ok(['get', 'cm', '-n', NS, '--sort-by=.data.a'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'DATA', 'AGE']);
    expect(table.rows.map((r) => r.NAME)).to.deep.equal(['beta', 'alpha']);
  });

  it('get cm -w prints the listed Table, then a Table row for each change', async () => {
    const w = e2e.spawnKubectl(['-v=6', 'get', 'cm', '-n', NS, '-w']);
    await w.waitFor((l) => l.length >= 3, 'the listed table');
    await w.waitForStderr(/GET \S+\?\S*watch=true\S* 200 OK/);
    await create(configMap('gamma', { x: '1', y: '2', z: '3' }));
    await ok(['delete', 'cm', 'beta', '-n', NS]);
    await w.waitFor((l) => l.length >= 5, 'a row per change');
    const cells = w.lines.map((l) => l.trim().split(/\s+/));
    expect(cells[0]).to.deep.equal(['NAME', 'DATA', 'AGE']);
    expect(cells.slice(1).map((c) => c.slice(0, 2))).to.deep.equal([['alpha', '2'], ['beta', '0'], ['gamma', '3'], ['beta', '0']]);
    for (const c of cells.slice(1)) {
      expect(c).to.have.length(3);
      expect(c[2]).to.match(AGE);
    }
  });
});
