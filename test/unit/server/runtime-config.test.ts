import { expect } from 'chai';
import { applyRuntimeConfig, RuntimeConfigInput } from '../../../lib/server/runtime-config';
import { builtinResources } from '../../../lib/registry/builtin';
import { namingFor } from '../../../lib/naming';
import { ResourceDef } from '../../../lib/scheme/types';

const naming = namingFor('orch');
const all = builtinResources(naming);
/** What is served without --runtime-config: all but the versions off by default (policy/v1beta1). */
const byDefault = all.filter((d) => d.servedByDefault !== false);
/** A made-up alpha version next to the built-ins: alpha versions are off unless asked for. */
const alpha = { ...all.find((d) => d.resource === 'leases')!, version: 'v1alpha1' } as ResourceDef;

function served(runtimeConfig: Record<string, boolean>, extra: Partial<RuntimeConfigInput> = {}, defs = all): string[] {
  const r = applyRuntimeConfig(defs, { runtimeConfig, authorizationMode: ['RBAC'], leaderElect: false, ...extra }, naming);
  return r.resources.map((d) => `${d.group}/${d.version}/${d.resource}`);
}

function refusal(runtimeConfig: Record<string, boolean>, extra: Partial<RuntimeConfigInput> = {}): string {
  try {
    served(runtimeConfig, extra);
  } catch (err) {
    const message = (err as Error).message;
    expect(message).not.to.include('\n');
    return message;
  }
  throw new Error(`${JSON.stringify(runtimeConfig)} was accepted`);
}

describe('applyRuntimeConfig', () => {
  it('serves every GA and beta version by default and no alpha one', () => {
    const s = served({}, {}, [...all, alpha]);
    expect(s).to.have.length(byDefault.length);
    // admissionregistration v1beta1 is off by default, as kube-apiserver 1.32 (which removed it in 1.22); its key switches it on.
    expect(s).not.to.include('admissionregistration.orch.io/v1beta1/validatingwebhookconfigurations');
    expect(served({ 'admissionregistration.orch.io/v1beta1': true })).to.include('admissionregistration.orch.io/v1beta1/validatingwebhookconfigurations');
    expect(s).to.include('admissionregistration.orch.io/v1/validatingwebhookconfigurations');
    expect(s).not.to.include('coordination.orch.io/v1alpha1/leases');
    expect(served({ 'api/alpha': true }, {}, [...all, alpha])).to.include('coordination.orch.io/v1alpha1/leases');
    expect(served({ 'coordination.orch.io/v1alpha1': true }, {}, [...all, alpha])).to.include('coordination.orch.io/v1alpha1/leases');
  });

  it('leaves a version off by default (policy/v1beta1) off until its key or api/all switches it on', () => {
    expect(served({})).not.to.include('policy/v1beta1/poddisruptionbudgets');
    expect(served({})).to.include('policy/v1/poddisruptionbudgets');
    expect(served({ 'policy/v1beta1': true })).to.include('policy/v1beta1/poddisruptionbudgets');
    expect(served({ 'policy/v1beta1/poddisruptionbudgets': true })).to.include('policy/v1beta1/poddisruptionbudgets');
    expect(served({ 'api/all': true })).to.include('policy/v1beta1/poddisruptionbudgets');
  });

  it('serves discovery v1 EndpointSlice by default and v1beta1 only when switched on (release-1.20 controllers use it)', () => {
    expect(served({})).to.include('discovery.orch.io/v1/endpointslices');
    expect(served({})).not.to.include('discovery.orch.io/v1beta1/endpointslices');
    expect(served({ 'discovery.orch.io/v1beta1': true })).to.include('discovery.orch.io/v1beta1/endpointslices');
    expect(served({ 'discovery.orch.io/v1': false })).not.to.include('discovery.orch.io/v1/endpointslices');
  });

  it('switches a group-version off and leaves the rest', () => {
    const s = served({ 'certificates.orch.io/v1': false });
    expect(s.filter((k) => k.startsWith('certificates.'))).to.deep.equal([]);
    expect(s).to.have.length(byDefault.length - 1);
  });

  it('switches a single resource off, and a resource key wins over its version key', () => {
    const s = served({ 'storage.orch.io/v1/csinodes': false });
    expect(s).not.to.include('storage.orch.io/v1/csinodes');
    expect(s).to.include('storage.orch.io/v1/csidrivers');
    const only = served({ 'storage.orch.io/v1': false, 'storage.orch.io/v1/csidrivers': true });
    expect(only.filter((k) => k.startsWith('storage.'))).to.deep.equal(['storage.orch.io/v1/csidrivers']);
  });

  it('applies api/all, then api/ga|beta|alpha, then group-versions', () => {
    expect(served({ 'api/beta': false }).filter((k) => k.includes('v1beta1'))).to.deep.equal([]);
    const s = served({ 'api/all': false, v1: true, 'rbac.authorization.orch.io/v1': true });
    expect(new Set(s.map((k) => k.split('/').slice(0, 2).join('/')))).to.deep.equal(new Set(['/v1', 'rbac.authorization.orch.io/v1']));
    // api/ga=true after api/all=false: every GA version back, beta stays off.
    const ga = served({ 'api/all': false, 'api/ga': true });
    expect(ga.some((k) => k.includes('beta'))).to.equal(false);
    expect(ga).to.include('coordination.orch.io/v1/leases');
  });

  it('takes v1, api/v1 and /v1 for the core group and ignores api/legacy', () => {
    expect(served({ v1: true, 'api/legacy': false })).to.have.length(byDefault.length);
    expect(refusal({ 'api/v1': false })).to.match(/^runtime-config cannot disable the core API group v1/);
    expect(refusal({ 'v1/pods': false })).to.match(/^runtime-config cannot disable the core API group v1/);
    expect(refusal({ '/v1/pods': false })).to.match(/core API group v1 \(pods\)/);
    expect(refusal({ 'api/all': false, 'rbac.authorization.orch.io/v1': true })).to.match(/add v1=true$/);
  });

  it('refuses unknown groups, versions and resources, and malformed keys, in Kubernetes words', () => {
    expect(refusal({ 'nosuchgroup/v1': false })).to.equal('unknown api groups nosuchgroup/v1');
    // The flavor's spelling only: this server's group is rbac.authorization.orch.io.
    expect(refusal({ 'rbac.authorization.k8s.io/v1': false, 'storage.k8s.io/v1': true })).to.equal('unknown api groups rbac.authorization.k8s.io/v1,storage.k8s.io/v1');
    expect(refusal({ 'certificates.orch.io/v1alpha1': false })).to.equal('group version certificates.orch.io/v1alpha1 that has not been registered');
    expect(refusal({ 'storage.orch.io/v1/nosuch': false })).to.equal('runtime-config invalid key storage.orch.io/v1/nosuch: storage.orch.io/v1 has no resource nosuch');
    expect(refusal({ 'storage.orch.io/v1/CSINodes': false }))
      .to.equal('invalid key storage.orch.io/v1/CSINodes: group/version/resource and resource is always lowercase plural, not "CSINodes"');
    expect(refusal({ 'a/b/c/d': false })).to.equal('runtime-config invalid key a/b/c/d');
    expect(refusal({ certificates: false })).to.equal('runtime-config invalid key certificates');
    expect(refusal({ 'api/all': false })).to.equal('invalid runtime-config with only api/all=false');
  });

  it('refuses switches the server cannot run with: RBAC mode without its kinds, leader election without Leases', () => {
    expect(refusal({ 'rbac.authorization.orch.io/v1/roles': false })).to.equal(
      '--authorization-mode=RBAC needs rbac.authorization.orch.io/v1, which --runtime-config disables (roles)');
    expect(served({ 'rbac.authorization.orch.io/v1': false }, { authorizationMode: ['AlwaysAllow'] }).some((k) => k.startsWith('rbac.'))).to.equal(false);
    expect(refusal({ 'coordination.orch.io/v1': false }, { leaderElect: true })).to.equal(
      '--leader-elect needs leases.coordination.orch.io/v1, which --runtime-config disables; set --leader-elect=false');
    expect(served({ 'coordination.orch.io/v1': false })).not.to.include('coordination.orch.io/v1/leases');
  });

  it('switches apps/v1 off and on by its name, the same in both flavors', () => {
    const off = served({ 'apps/v1': false });
    expect(off.filter((k) => k.startsWith('apps/'))).to.deep.equal([]);
    expect(off).to.have.length(byDefault.length - all.filter((d) => d.group === 'apps' && d.servedByDefault !== false).length);
    expect(served({})).to.include('apps/v1/controllerrevisions');
    const only = served({ 'api/all': false, v1: true, 'apps/v1': true }, { authorizationMode: ['AlwaysAllow'] });
    expect(only).to.include('apps/v1/controllerrevisions');
    expect(only.every((k) => k.startsWith('/v1/') || k.startsWith('apps/v1/'))).to.equal(true);
    expect(served({ 'apps/v1/controllerrevisions': false })).not.to.include('apps/v1/controllerrevisions');
    const kube = namingFor('kubernetes');
    const kubeAll = builtinResources(kube);
    const r = applyRuntimeConfig(kubeAll, { runtimeConfig: { 'apps/v1': false }, authorizationMode: ['RBAC'], leaderElect: false }, kube);
    expect(r.disabledGroupVersions).to.include('apps/v1');
    expect(r.resources.some((d) => d.group === 'apps')).to.equal(false);
  });

  it('switches batch/v1 (Job, CronJob) off and on by its name, the same in both flavors', () => {
    const off = served({ 'batch/v1': false });
    expect(off.filter((k) => k.startsWith('batch/'))).to.deep.equal([]);
    expect(served({})).to.include.members(['batch/v1/jobs', 'batch/v1/cronjobs']);
    expect(served({ 'batch/v1/cronjobs': false })).to.include('batch/v1/jobs').and.not.include('batch/v1/cronjobs');
    const kube = namingFor('kubernetes');
    const r = applyRuntimeConfig(builtinResources(kube), { runtimeConfig: { 'batch/v1': false }, authorizationMode: ['RBAC'], leaderElect: false }, kube);
    expect(r.disabledGroupVersions).to.include('batch/v1');
    expect(r.resources.some((d) => d.group === 'batch')).to.equal(false);
  });

  it('reports what it switched off', () => {
    const r = applyRuntimeConfig(all, { runtimeConfig: { 'certificates.orch.io/v1': false, 'storage.orch.io/v1/csinodes': false }, authorizationMode: [], leaderElect: false }, naming);
    // The one switched off, and the removed versions that are off by default.
    expect(r.disabledGroupVersions).to.include.members(['certificates.orch.io/v1', 'certificates.orch.io/v1beta1', 'policy/v1beta1', 'rbac.authorization.orch.io/v1beta1', 'apiextensions.orch.io/v1beta1', 'apiregistration.orch.io/v1beta1',
      'coordination.orch.io/v1beta1', 'batch/v1beta1', 'networking.orch.io/v1beta1', 'extensions/v1beta1', 'scheduling.orch.io/v1beta1', 'node.orch.io/v1beta1',
      'apps/v1beta2', 'apps/v1beta1']);
    expect(r.disabledGroupVersions.filter((gv) => gv !== 'certificates.orch.io/v1').every((gv) => /\/v\d+beta\d+$/.test(gv))).to.equal(true);
    expect(r.disabledResources).to.deep.equal(['storage.orch.io/v1/csinodes']);
  });
});
