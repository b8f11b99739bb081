/**
 * kubectl (1.32) with apps/v1 ControllerRevisions: `api-resources --api-group=apps`, `create -f`,
 * `get controllerrevisions` with kubectl's NAME CONTROLLER REVISION AGE columns (the controller
 * as `statefulset.apps/web`), `-o yaml` showing `revision: 0` when none was given, and a refused
 * change of data as kubectl prints it.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

describe('kubectl with ControllerRevisions', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-controller-revisions', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;

  const revision = (name: string, fields: Record<string, unknown>, metadata: Record<string, unknown> = {}) =>
    e2e.manifest(`${name}.yaml`, { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name, namespace: 'default', ...metadata }, ...fields });

  it('api-resources lists controllerrevisions, namespaced, at apps/v1, without short names', async () => {
    const table = parseTable((await ok(['api-resources', '--api-group=apps'])).stdout);
    expect(table.rows.map((r) => [r.NAME, r.SHORTNAMES, r.APIVERSION, r.NAMESPACED, r.KIND])).to.deep.include(
      ['controllerrevisions', '', 'apps/v1', 'true', 'ControllerRevision']);
  });

  it('create -f, get with NAME CONTROLLER REVISION AGE, and a refused change of data', async () => {
    // The owner exists: StatefulSet is served, and a revision whose owner is missing is garbage collected.
    await ok(['create', '-f', e2e.manifest('web.yaml', {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    })]);
    const uid = (await ok(['get', 'sts', 'web', '-o', 'jsonpath={.metadata.uid}'])).stdout.trim();
    const owner = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid, controller: true };
    expect((await ok(['create', '-f', revision('web-5d8f', { data: { spec: { x: 1 } }, revision: 2 }, { ownerReferences: [owner] })])).stdout)
      .to.contain('controllerrevision.apps/web-5d8f created');
    expect((await ok(['create', '-f', revision('loose', { data: {} })])).stdout).to.contain('controllerrevision.apps/loose created');

    const table = parseTable((await ok(['get', 'controllerrevisions'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'CONTROLLER', 'REVISION', 'AGE']);
    expect(table.rows.find((r) => r.NAME === 'web-5d8f')).to.deep.include({ CONTROLLER: 'statefulset.apps/web', REVISION: '2' });
    expect(table.rows.find((r) => r.NAME === 'loose')).to.deep.include({ CONTROLLER: '<none>', REVISION: '0' });

    expect((await ok(['get', 'controllerrevision', 'loose', '-o', 'jsonpath={.revision}'])).stdout).to.equal('0');

    const refused = await fails(['patch', 'controllerrevision', 'web-5d8f', '--type=merge', '-p', '{"data":{"spec":{"x":2}}}']);
    expect(refused.stderr).to.include('The ControllerRevision "web-5d8f" is invalid: data: Invalid value: runtime.Unknown{')
      .and.include('field is immutable');
    expect((await ok(['patch', 'controllerrevision', 'web-5d8f', '--type=merge', '-p', '{"revision":3}'])).stdout)
      .to.contain('controllerrevision.apps/web-5d8f patched');
  });
});
