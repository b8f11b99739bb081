/**
 * kubectl (1.32) with ReplicationControllers (core/v1): api-resources names `rc`, `apply -f`
 * creates one (selector and labels defaulted from the template), `get rc` prints NAME DESIRED
 * CURRENT READY AGE and `-o wide` adds CONTAINERS IMAGES SELECTOR, `get all` includes it (category
 * all), `describe rc` and `explain rc.spec` work, `scale rc/x --replicas=3` goes through /scale, and a template that restarts OnFailure is refused
 * with Kubernetes' message.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

const rc = (name: string, restartPolicy = 'Always') => ({
  apiVersion: 'v1', kind: 'ReplicationController', metadata: { name },
  spec: {
    replicas: 2,
    template: { metadata: { labels: { app: name } }, spec: { restartPolicy, containers: [{ name: 'web', image: 'registry.example.com/web:1' }] } },
  },
});

describe('kubectl with ReplicationControllers', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-rc', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;

  it('api-resources lists replicationcontrollers (rc), namespaced, at v1', async () => {
    const table = parseTable((await ok(['api-resources', '--api-group='])).stdout);
    const row = table.rows.find((r) => r.NAME === 'replicationcontrollers');
    expect(row && [row.SHORTNAMES, row.APIVERSION, row.NAMESPACED, row.KIND]).to.deep.equal(['rc', 'v1', 'true', 'ReplicationController']);
  });

  it('apply, get (and -o wide), get all, describe, explain', async () => {
    expect((await ok(['apply', '-f', e2e.manifest('web.yaml', rc('web'))])).stdout).to.contain('replicationcontroller/web created');
    let table = parseTable((await ok(['get', 'rc'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE']);
    expect(table.rows[0]).to.deep.include({ NAME: 'web', DESIRED: '2', CURRENT: '0', READY: '0' });
    table = parseTable((await ok(['get', 'rc', 'web', '-o', 'wide'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(table.rows[0]).to.deep.include({ CONTAINERS: 'web', IMAGES: 'registry.example.com/web:1', SELECTOR: 'app=web' });

    expect((await ok(['get', 'all'])).stdout).to.contain('replicationcontroller/web');
    const described = (await ok(['describe', 'rc', 'web'])).stdout;
    expect(described).to.match(/Selector:\s+app=web/);
    expect(described).to.match(/Replicas:\s+0 current \/ 2 desired/);
    expect((await ok(['explain', 'rc.spec'])).stdout).to.contain('ReplicationControllerSpec is the specification of a replication controller.');
  });

  it('scale rc/scaled --replicas=3 goes through /scale', async () => {
    await ok(['apply', '-f', e2e.manifest('scaled.yaml', rc('scaled'))]);
    expect((await ok(['scale', 'rc/scaled', '--replicas=3'])).stdout).to.contain('replicationcontroller/scaled scaled');
    expect((await ok(['get', 'rc', 'scaled', '-o', 'jsonpath={.spec.replicas}'])).stdout).to.equal('3');
    expect((await ok(['get', '--raw', '/api/v1/namespaces/default/replicationcontrollers/scaled/scale'])).stdout).to.contain('"selector":"app=scaled"');
  });

  it('refuses a template that restarts OnFailure', async () => {
    const refused = await fails(['create', '-f', e2e.manifest('bad.yaml', rc('bad', 'OnFailure'))]);
    expect(refused.stderr).to.contain('spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"');
  });
});
