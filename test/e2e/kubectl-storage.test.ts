/**
 * kubectl (1.32) with the storage kinds: `create -f` of a class, a volume and a claim (kubectl
 * validates against the served OpenAPI), `get pv,pvc,sc` printing the kinds' columns, short
 * names in `api-resources`, a status patch through `--subresource=status`, and delete.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { useKubectlServer } from '../helpers/e2e-server';

const NS = 'default';
const AGE = /^\d+s$/;

interface Printed { columns: string[]; rows: Record<string, string>[] }

/**
 * The tables of one `kubectl get a,b,c` (separated by blank lines). Columns are split where
 * the header has two or more spaces, so `ACCESS MODES` stays one column.
 */
function parseTables(text: string): Printed[] {
  return text.split(/\n\s*\n/).map((block) => block.split('\n').filter((l) => l.trim())).filter((l) => l.length).map((lines) => {
    const header = lines[0];
    const starts: number[] = [];
    const re = /\S+( \S+)*/g;
    for (let m = re.exec(header); m; m = re.exec(header)) starts.push(m.index);
    const columns = starts.map((s, i) => header.slice(s, starts[i + 1]).trim());
    const rows = lines.slice(1).map((line) => Object.fromEntries(columns.map((c, i) => [c, line.slice(starts[i], starts[i + 1]).trim()])));
    return { columns, rows };
  });
}

describe('kubectl with the storage kinds', function () {
  this.timeout(90_000);
  const storageGroup = 'storage.orch.io';
  const e2e = useKubectlServer('kubectl-storage');
  const { ok } = e2e;

  before(async () => {
    const manifest = [
      { apiVersion: `${storageGroup}/v1`, kind: 'StorageClass', metadata: { name: 'fast', annotations: { 'storageclass.orch.io/is-default-class': 'true' } }, provisioner: 'example.com/fast', allowVolumeExpansion: true },
      { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-1' }, spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], storageClassName: 'fast', hostPath: { path: '/data/pv-1' } } },
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'claim-1', namespace: NS }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: '1.5Gi' } } } },
    ];
    const p = path.join(e2e.dir, 'storage.yaml');
    writeFileSync(p, manifest.map((m) => stringifyYaml(m, { version: '1.1' })).join('---\n'));
    const r = await ok(['create', '-f', p]);
    expect(r.stdout).to.contain('persistentvolumeclaim/claim-1 created');
  });

  it('get pv,pvc,sc prints each kind with its columns', async () => {
    const [pv, pvc, sc] = parseTables((await ok(['get', 'pv,pvc,sc', '-n', NS])).stdout);
    expect(pv.columns).to.deep.equal(['NAME', 'CAPACITY', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS', 'REASON', 'AGE']);
    expect(pv.rows).to.have.length(1);
    expect(pv.rows[0]).to.deep.include({ NAME: 'persistentvolume/pv-1', CAPACITY: '10Gi', 'ACCESS MODES': 'RWO,ROX', 'RECLAIM POLICY': 'Retain', STATUS: 'Pending', CLAIM: '', STORAGECLASS: 'fast' });
    expect(pv.rows[0].AGE).to.match(AGE);
    expect(pvc.columns).to.deep.equal(['NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS MODES', 'STORAGECLASS', 'AGE']);
    expect(pvc.rows[0]).to.deep.include({ NAME: 'persistentvolumeclaim/claim-1', STATUS: 'Pending', VOLUME: '', CAPACITY: '', STORAGECLASS: 'fast' });
    expect(sc.columns).to.deep.equal(['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE']);
    expect(sc.rows[0]).to.deep.include({ NAME: `storageclass.${storageGroup}/fast (default)`, PROVISIONER: 'example.com/fast', RECLAIMPOLICY: 'Delete', VOLUMEBINDINGMODE: 'Immediate', ALLOWVOLUMEEXPANSION: 'true' });
  });

  it('-o wide adds VOLUMEMODE', async () => {
    const [pvc] = parseTables((await ok(['get', 'pvc', '-o', 'wide', '-n', NS])).stdout);
    expect(pvc.columns).to.include('VOLUMEMODE');
    expect(pvc.rows[0].VOLUMEMODE).to.equal('Filesystem');
  });

  it('api-resources lists the short names pvc, pv and sc', async () => {
    const out = (await ok(['api-resources', '--no-headers'])).stdout.split('\n').map((l) => l.trim().split(/\s+/));
    const row = (name: string) => out.find((cells) => cells[0] === name);
    expect(row('persistentvolumeclaims')?.[1]).to.equal('pvc');
    expect(row('persistentvolumes')?.[1]).to.equal('pv');
    expect(row('storageclasses')?.slice(1, 3)).to.deep.equal(['sc', `${storageGroup}/v1`]);
    expect(row('csistoragecapacities')?.[2]).to.equal('true');
  });

  it('get pvc -o yaml shows the defaults', async () => {
    const out = (await ok(['get', 'pvc', 'claim-1', '-n', NS, '-o', 'jsonpath={.spec.volumeMode} {.spec.resources.requests.storage} {.status.phase}'])).stdout;
    expect(out).to.equal('Filesystem 1536Mi Pending');
  });

  it('patch --subresource=status binds the claim; get shows volume, capacity and modes', async () => {
    await ok(['patch', 'pvc', 'claim-1', '-n', NS, '--type=merge', '-p', JSON.stringify({ spec: { volumeName: 'pv-1' } })]);
    await ok(['patch', 'pvc', 'claim-1', '-n', NS, '--subresource=status', '--type=merge',
      '-p', JSON.stringify({ status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '10Gi' } } })]);
    const [pvc] = parseTables((await ok(['get', 'pvc', '-n', NS])).stdout);
    expect(pvc.rows[0]).to.deep.include({ NAME: 'claim-1', STATUS: 'Bound', VOLUME: 'pv-1', CAPACITY: '10Gi', 'ACCESS MODES': 'RWO' });
  });

  it('an invalid claim is refused with the field in the message', async () => {
    const p = path.join(e2e.dir, 'bad.yaml');
    writeFileSync(p, stringifyYaml({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'bad', namespace: NS }, spec: { accessModes: ['ReadWriteOnce'] } }));
    const r = await e2e.kubectl(['create', '-f', p]);
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.contain('spec.resources[storage]: Required value');
  });

  it('delete answers for each kind', async () => {
    const r = await ok(['delete', '-n', NS, 'pvc/claim-1', 'pv/pv-1', 'sc/fast']);
    expect(r.stdout).to.contain('persistentvolumeclaim "claim-1" deleted');
    expect(r.stdout).to.contain('persistentvolume "pv-1" deleted');
    expect(r.stdout).to.contain('storageclass.storage.orch.io "fast" deleted');
    expect((await ok(['get', 'pv,pvc,sc', '-n', NS])).stderr).to.contain('No resources found');
  });
});
