/**
 * `--emulated-version=1.N`: discovery (`/apis`, `/apis/<group>`, aggregated discovery), OpenAPI,
 * `/version`, deprecation warnings and the deprecated-API metric are those of release 1.N: the
 * versions Kubernetes removed after 1.N are served by default (and work: written and read back),
 * the versions it introduced after 1.N are not; `--runtime-config` still switches each on or off;
 * without the flag the server is release 1.32, and `--version` always prints the binary's.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { eventually, startTestServer, TestServer } from '../helpers/server-harness';
import { builtinResources } from '../../lib/registry/builtin';
import { namingFor } from '../../lib/naming';
import { servedByDefaultAt } from '../../lib/server/runtime-config';

type Body = Record<string, any>;
const NS = 'emulated';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const kube = namingFor('kubernetes');

/** The versions `/apis` lists for `group` (empty when the group is not listed). */
async function versionsOf(t: TestServer, group: string): Promise<string[]> {
  const g = (await t.get('/apis')).body.groups.find((x: Body) => x.name === group);
  return g ? g.versions.map((v: Body) => v.version) : [];
}

/** The resources `/apis/<group>/<version>` lists (empty on 404). */
async function resourcesOf(t: TestServer, groupVersion: string): Promise<string[]> {
  const r = await t.get(`/apis/${groupVersion}`);
  return r.status === 404 ? [] : r.body.resources.map((x: Body) => x.name);
}

/** The `apiserver_requested_deprecated_apis` lines of /metrics. */
async function deprecatedApiLines(t: TestServer): Promise<string[]> {
  return (await t.get('/metrics', { headers: { accept: 'text/plain' } })).text.split('\n').filter((l) => l.startsWith('apiserver_requested_deprecated_apis{'));
}

/**
 * Over the whole catalogue (the removed versions of every area included): the built-in resources
 * release 1.`minor` served by default are listed, no other is, and a list of each served one is
 * warned of exactly when its version was deprecated by then.
 */
function servesTheCatalogueOf(t: () => TestServer, minor: number): void {
  it(`serves every version the catalogue says 1.${minor} served by default, no other, and warns of those deprecated by then`, async () => {
    const defs = builtinResources(kube).filter((d) => d.group);
    for (const d of defs) {
      const on = servedByDefaultAt(d, minor, kube);
      const listed = (await resourcesOf(t(), `${d.group}/${d.version}`)).includes(d.resource);
      expect(listed, `${d.group}/${d.version} ${d.resource} in discovery at 1.${minor}`).to.equal(on);
      if (!on || d.virtual || !d.verbs.includes('list')) continue;
      const list = await t().get(`/apis/${d.group}/${d.version}/${d.resource}`);
      expect(list.status, `${d.group}/${d.version} ${d.resource}: ${list.text}`).to.equal(200);
      const deprecated = !!d.deprecation && (!d.deprecation.deprecatedIn || d.deprecation.deprecatedIn[1] <= minor);
      expect(list.headers.warning !== undefined, `warning of ${d.group}/${d.version} ${d.resource} at 1.${minor}`).to.equal(deprecated);
    }
  });
}

function startAt(release: string, ...flags: string[]): () => TestServer {
  let t: TestServer | undefined;
  before(async () => {
    t = await startTestServer(['--flavor=kubernetes', ...(release ? [`--emulated-version=${release}`] : []), ...flags]);
    expect((await t.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).to.equal(201);
  });
  after(async () => { await t?.stop(); });
  return () => t!;
}

describe('--emulated-version', () => {
  describe('=1.20', () => {
    const t = startAt('1.20');

    it('/version is release 1.20', async () => {
      const v = (await t().get('/version')).body;
      expect(v).to.deep.include({ major: '1', minor: '20', gitVersion: 'v1.20.0-orch' });
    });

    it('lists the versions 1.20 served and not those introduced later, in /apis and /apis/<group>', async () => {
      expect(await versionsOf(t(), 'policy')).to.include('v1beta1').and.not.include('v1');
      const policy = (await t().get('/apis/policy')).body;
      expect(policy.preferredVersion.version).to.equal('v1beta1');
      expect((await t().get('/apis/policy/v1')).status).to.equal(404);
      expect(await versionsOf(t(), 'discovery.k8s.io')).to.include('v1beta1').and.not.include('v1');
      expect(await versionsOf(t(), 'admissionregistration.k8s.io')).to.include.members(['v1', 'v1beta1']);
      expect(await resourcesOf(t(), 'admissionregistration.k8s.io/v1')).to.include('validatingwebhookconfigurations').and.not.include('validatingadmissionpolicies');
      expect(await resourcesOf(t(), 'batch/v1')).to.include('jobs').and.not.include('cronjobs');
      expect(await versionsOf(t(), 'autoscaling')).to.include('v1').and.not.include('v2');
      expect(await resourcesOf(t(), 'storage.k8s.io/v1')).to.include('csidrivers').and.not.include('csistoragecapacities');
      expect(await resourcesOf(t(), 'authentication.k8s.io/v1')).to.deep.equal(['tokenreviews']);
      expect(await versionsOf(t(), 'flowcontrol.apiserver.k8s.io')).not.to.include('v1');
      expect(await versionsOf(t(), 'node.k8s.io')).to.include('v1');
    });

    it('lists the same in aggregated discovery and OpenAPI v3', async () => {
      const agg = (await t().get('/apis', { headers: { accept: AGGREGATED } })).body;
      const policy = agg.items.find((g: Body) => g.metadata.name === 'policy');
      expect(policy.versions.map((v: Body) => v.version)).to.include('v1beta1').and.not.include('v1');
      const paths = Object.keys((await t().get('/openapi/v3')).body.paths);
      expect(paths).to.include('apis/policy/v1beta1').and.not.include('apis/policy/v1');
      expect((await t().get('/openapi/v3/apis/policy/v1beta1')).body.info.version).to.equal('v1.20.0-orch');
    });

    servesTheCatalogueOf(t, 20);

    it('registers the local APIServices of release 1.20\'s versions (v1beta1.policy, not v1.policy)', async () => {
      const apiServices = '/apis/apiregistration.k8s.io/v1/apiservices';
      const names = await eventually(async () => {
        const items: string[] = (await t().get(apiServices)).body.items.map((o: Body) => o.metadata.name);
        return items.includes('v1beta1.policy') && items;
      });
      expect(names).to.include.members(['v1beta1.discovery.k8s.io', 'v1beta1.admissionregistration.k8s.io', 'v1.batch']);
      expect(names).not.to.include.members(['v1.policy']);
      expect(names).not.to.include('v1.discovery.k8s.io');
      expect(names).not.to.include('v2.autoscaling');
    });

    it('writes and reads a removed version with nothing later served beside it (policy/v1beta1 without policy/v1)', async () => {
      const path = `/apis/policy/v1beta1/namespaces/${NS}/poddisruptionbudgets`;
      const spec = { minAvailable: 1, selector: { matchLabels: { app: 'web' } } };
      const created = await t().post(path, { apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec });
      expect(created.status, created.text).to.equal(201);
      expect(created.body.apiVersion).to.equal('policy/v1beta1');
      const read = await t().get(`${path}/web`);
      expect(read.body).to.deep.include({ apiVersion: 'policy/v1beta1', spec });
      expect((await t().get(path)).body.items.map((o: Body) => o.metadata.name)).to.deep.equal(['web']);
    });

    it('pods/eviction honours a budget written at policy/v1beta1 (429 while it allows no disruption)', async () => {
      const created = (await t().post(`/api/v1/namespaces/${NS}/pods`, {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'guarded', labels: { app: 'guarded' } }, spec: { containers: [{ name: 'c', image: 'registry.example.com/c:1' }] },
      })).body;
      const running = await t().put(`/api/v1/namespaces/${NS}/pods/guarded/status`, { ...created, status: { ...created.status, phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });
      expect(running.status, running.text).to.equal(200);
      const budget = await t().post(`/apis/policy/v1beta1/namespaces/${NS}/poddisruptionbudgets`, {
        apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', metadata: { name: 'guard' }, spec: { maxUnavailable: 0, selector: { matchLabels: { app: 'guarded' } } },
      });
      expect(budget.status, budget.text).to.equal(201);
      const evicted = await t().post(`/api/v1/namespaces/${NS}/pods/guarded/eviction`, { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: 'guarded' } });
      expect(evicted.status, evicted.text).to.equal(429);
      expect((await t().get(`/api/v1/namespaces/${NS}/pods/guarded`)).status).to.equal(200);
    });

    it('warns of versions deprecated by 1.20 only: admissionregistration v1beta1 (1.16) yes, policy/v1beta1 (1.21) no', async () => {
      const pdbs = await t().get(`/apis/policy/v1beta1/namespaces/${NS}/poddisruptionbudgets`);
      expect(pdbs.status).to.equal(200);
      expect(pdbs.headers.warning).to.equal(undefined);
      const hooks = await t().get('/apis/admissionregistration.k8s.io/v1beta1/validatingwebhookconfigurations');
      expect(hooks.status).to.equal(200);
      expect(String(hooks.headers.warning)).to.contain('admissionregistration.k8s.io/v1beta1 ValidatingWebhookConfiguration is deprecated in v1.16+, unavailable in v1.22+');
      const lines = await deprecatedApiLines(t());
      expect(lines.some((l) => l.includes('group="admissionregistration.k8s.io"') && l.includes('removed_release="1.22"'))).to.equal(true);
      expect(lines.some((l) => l.includes('group="policy"'))).to.equal(false);
    });
  });

  describe('=1.22 with --runtime-config on top', () => {
    const t = startAt('1.22', '--runtime-config=discovery.k8s.io/v1beta1=false,batch/v1/cronjobs=false,autoscaling/v2=true');

    it('/version is release 1.22', async () => {
      expect((await t().get('/version')).body).to.deep.include({ major: '1', minor: '22', gitVersion: 'v1.22.0-orch' });
    });

    it('warns of policy/v1beta1 (deprecated in 1.21) and counts it', async () => {
      const r = await t().get(`/apis/policy/v1beta1/namespaces/${NS}/poddisruptionbudgets`);
      expect(r.status).to.equal(200);
      expect(String(r.headers.warning)).to.contain('policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; use policy/v1 PodDisruptionBudget');
      expect((await deprecatedApiLines(t())).some((l) => l.includes('group="policy"') && l.includes('removed_release="1.25"'))).to.equal(true);
    });

    it('serves what 1.22 served, with the switches applied over it', async () => {
      expect(await versionsOf(t(), 'policy')).to.include.members(['v1', 'v1beta1']);
      expect(await versionsOf(t(), 'admissionregistration.k8s.io')).not.to.include('v1beta1');
      expect(await versionsOf(t(), 'discovery.k8s.io')).to.include('v1').and.not.include('v1beta1');
      expect(await resourcesOf(t(), 'batch/v1')).to.include('jobs').and.not.include('cronjobs');
      expect(await resourcesOf(t(), 'autoscaling/v2')).to.include('horizontalpodautoscalers');
    });
  });

  describe('=1.25', () => {
    const t = startAt('1.25');
    servesTheCatalogueOf(t, 25);

    it('/version is release 1.25; policy and discovery v1beta1 are gone, CSIStorageCapacity v1 and autoscaling/v2 are in', async () => {
      expect((await t().get('/version')).body).to.deep.include({ major: '1', minor: '25', gitVersion: 'v1.25.0-orch' });
      expect(await versionsOf(t(), 'policy')).to.include('v1').and.not.include('v1beta1');
      expect((await t().get('/apis/policy/v1beta1')).status).to.equal(404);
      expect(await versionsOf(t(), 'discovery.k8s.io')).to.include('v1').and.not.include('v1beta1');
      expect(await resourcesOf(t(), 'storage.k8s.io/v1')).to.include('csistoragecapacities');
      expect(await versionsOf(t(), 'autoscaling')).to.include.members(['v1', 'v2']);
      expect(await versionsOf(t(), 'flowcontrol.apiserver.k8s.io')).not.to.include('v1');
      expect(await resourcesOf(t(), 'authentication.k8s.io/v1')).not.to.include('selfsubjectreviews');
    });
  });

  describe('=1.29', () => {
    const t = startAt('1.29');
    servesTheCatalogueOf(t, 29);

    it('/version is release 1.29; flowcontrol v1 is in, ValidatingAdmissionPolicy v1 not yet', async () => {
      expect((await t().get('/version')).body).to.deep.include({ major: '1', minor: '29', gitVersion: 'v1.29.0-orch' });
      expect(await versionsOf(t(), 'flowcontrol.apiserver.k8s.io')).to.include('v1');
      expect(await resourcesOf(t(), 'admissionregistration.k8s.io/v1')).not.to.include('validatingadmissionpolicies');
      expect(await resourcesOf(t(), 'authentication.k8s.io/v1')).to.include('selfsubjectreviews');
    });
  });

  it('--version prints the binary\'s version whatever release is emulated', () => {
    const main = path.resolve(__dirname, '../../lib/server/main.js');
    const r = spawnSync(process.execPath, [main, '--emulated-version=1.20', '--version'], { encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout.trim()).to.equal('Kubernetes v1.32.0-orch');
  });

  describe('not given (release 1.32)', () => {
    const t = startAt('');
    servesTheCatalogueOf(t, 32);

    it('/version is release 1.32 and only 1.32\'s versions are served', async () => {
      expect((await t().get('/version')).body).to.deep.include({ major: '1', minor: '32', gitVersion: 'v1.32.0-orch' });
      expect(await versionsOf(t(), 'admissionregistration.k8s.io')).to.deep.equal(['v1']);
      expect(await resourcesOf(t(), 'admissionregistration.k8s.io/v1')).to.include('validatingadmissionpolicies');
      expect(await versionsOf(t(), 'policy')).to.deep.equal(['v1']);
      expect(await versionsOf(t(), 'discovery.k8s.io')).to.deep.equal(['v1']);
      expect(await versionsOf(t(), 'flowcontrol.apiserver.k8s.io')).to.include('v1');
    });
  });
});
