/**
 * `--emulated-version=1.N`'s default served set (lib/server/runtime-config.ts servedByDefaultAt):
 * release by release, what Kubernetes served by default, with `--runtime-config` on top; and, over
 * the whole catalogue, every removed version served until its removal and every later version
 * from its introduction.
 */
import { expect } from 'chai';
import { applyRuntimeConfig, RuntimeConfigInput, servedByDefaultAt } from '../../../lib/server/runtime-config';
import { builtinResources } from '../../../lib/registry/builtin';
import { releaseIntroduced } from '../../../lib/registry/introduced';
import { namingFor } from '../../../lib/naming';
import { ResourceDef } from '../../../lib/scheme/types';
import { BINARY_MINOR, OLDEST_EMULATED_MINOR } from '../../../lib/server/kube-flags';

const kube = namingFor('kubernetes');
const all = builtinResources(kube);
const gvr = (d: ResourceDef) => `${d.group || 'core'}/${d.version}/${d.resource}`;

function served(emulatedVersion: string, runtimeConfig: Record<string, boolean> = {}, extra: Partial<RuntimeConfigInput> = {}, defs = all): Set<string> {
  const r = applyRuntimeConfig(defs, { runtimeConfig, authorizationMode: ['RBAC'], leaderElect: true, emulatedVersion, ...extra }, kube);
  return new Set(r.resources.map(gvr));
}

/** Release × group-version-resource -> served by default (kube-apiserver of that release, without flags). */
const TABLE: Array<[string, Record<string, boolean>]> = [
  ['1.20', {
    'policy/v1beta1/poddisruptionbudgets': true, 'policy/v1/poddisruptionbudgets': false,
    'discovery.k8s.io/v1beta1/endpointslices': true, 'discovery.k8s.io/v1/endpointslices': false,
    'admissionregistration.k8s.io/v1beta1/validatingwebhookconfigurations': true,
    'admissionregistration.k8s.io/v1/validatingwebhookconfigurations': true,
    'batch/v1/jobs': true, 'batch/v1/cronjobs': false,
    'autoscaling/v1/horizontalpodautoscalers': true, 'autoscaling/v2/horizontalpodautoscalers': false,
    'storage.k8s.io/v1/csistoragecapacities': false, 'storage.k8s.io/v1/csidrivers': true,
    'authentication.k8s.io/v1/tokenreviews': true, 'authentication.k8s.io/v1/selfsubjectreviews': false,
    'flowcontrol.apiserver.k8s.io/v1/flowschemas': false,
    'admissionregistration.k8s.io/v1/validatingadmissionpolicies': false,
    'node.k8s.io/v1/runtimeclasses': true, 'networking.k8s.io/v1/ingressclasses': true, 'core/v1/pods': true,
  }],
  ['1.21', {
    'policy/v1beta1/poddisruptionbudgets': true, 'policy/v1/poddisruptionbudgets': true, 'batch/v1/cronjobs': true,
    'discovery.k8s.io/v1/endpointslices': true, 'admissionregistration.k8s.io/v1beta1/mutatingwebhookconfigurations': true,
  }],
  ['1.22', {
    'admissionregistration.k8s.io/v1beta1/mutatingwebhookconfigurations': false, 'admissionregistration.k8s.io/v1beta1/validatingwebhookconfigurations': false,
    'policy/v1beta1/poddisruptionbudgets': true, 'autoscaling/v2/horizontalpodautoscalers': false,
  }],
  ['1.23', { 'autoscaling/v2/horizontalpodautoscalers': true, 'storage.k8s.io/v1/csistoragecapacities': false }],
  ['1.24', { 'storage.k8s.io/v1/csistoragecapacities': true, 'policy/v1beta1/poddisruptionbudgets': true, 'discovery.k8s.io/v1beta1/endpointslices': true }],
  ['1.25', { 'policy/v1beta1/poddisruptionbudgets': false, 'discovery.k8s.io/v1beta1/endpointslices': false, 'policy/v1/poddisruptionbudgets': true }],
  ['1.28', { 'authentication.k8s.io/v1/selfsubjectreviews': true, 'flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations': false }],
  ['1.29', { 'flowcontrol.apiserver.k8s.io/v1/flowschemas': true, 'admissionregistration.k8s.io/v1/validatingadmissionpolicybindings': false }],
  ['1.30', { 'admissionregistration.k8s.io/v1/validatingadmissionpolicies': true, 'admissionregistration.k8s.io/v1/validatingadmissionpolicybindings': true }],
  ['', {
    'policy/v1beta1/poddisruptionbudgets': false, 'admissionregistration.k8s.io/v1beta1/validatingwebhookconfigurations': false,
    'flowcontrol.apiserver.k8s.io/v1/flowschemas': true, 'admissionregistration.k8s.io/v1/validatingadmissionpolicies': true,
  }],
];

describe('--emulated-version: the served set', () => {
  for (const [release, expected] of TABLE) {
    it(`release ${release || '1.32 (no flag)'} serves what Kubernetes ${release || '1.32'} served by default`, () => {
      const s = served(release);
      for (const [key, on] of Object.entries(expected)) expect(s.has(key), `${key} at ${release || '1.32'}`).to.equal(on);
    });
  }

  it('without the flag and with --emulated-version=1.32 serves the same as before the flag existed', () => {
    const beforeFlag = all.filter((d) => d.servedByDefault !== false).map(gvr);
    expect([...served('')]).to.deep.equal(beforeFlag);
    expect([...served('1.32')]).to.deep.equal(beforeFlag);
  });

  it('--runtime-config switches on top of the release: a removed version off, a later one on, api/all on', () => {
    expect(served('1.20', { 'policy/v1beta1': false }).has('policy/v1beta1/poddisruptionbudgets')).to.equal(false);
    expect(served('1.20', { 'policy/v1beta1/poddisruptionbudgets': false }).has('policy/v1beta1/poddisruptionbudgets')).to.equal(false);
    const later = served('1.20', { 'batch/v1/cronjobs': true, 'policy/v1': true });
    expect(later.has('batch/v1/cronjobs') && later.has('policy/v1/poddisruptionbudgets')).to.equal(true);
    expect(served('1.20', { 'api/beta': false }).has('discovery.k8s.io/v1beta1/endpointslices')).to.equal(false);
    expect(served('1.20', { 'api/all': true }).has('flowcontrol.apiserver.k8s.io/v1/flowschemas')).to.equal(true);
    // Release 1.32 takes the removed versions back only when asked, as before.
    expect(served('', { 'discovery.k8s.io/v1beta1': true }).has('discovery.k8s.io/v1beta1/endpointslices')).to.equal(true);
  });

  it('keeps the server\'s needs at every release: RBAC and Leases are served from 1.20 on', () => {
    for (let minor = OLDEST_EMULATED_MINOR; minor <= BINARY_MINOR; minor++) {
      const s = served(`1.${minor}`);
      expect(s.has('rbac.authorization.k8s.io/v1/roles') && s.has('coordination.k8s.io/v1/leases') && s.has('core/v1/namespaces'), `1.${minor}`).to.equal(true);
    }
  });

  it('decides per resource within a version: one removed earlier stays off beside one removed later', () => {
    const ingresses = { ...all.find((d) => d.resource === 'ingresses')!, group: 'extensions', version: 'v1beta1', deprecation: { removedIn: [1, 22] } } as ResourceDef;
    const deployments = { ...all.find((d) => d.resource === 'deployments')!, group: 'extensions', version: 'v1beta1', deprecation: { removedIn: [1, 16] } } as ResourceDef;
    const defs = [...all, ingresses, deployments];
    const at20 = served('1.20', {}, {}, defs);
    expect(at20.has('extensions/v1beta1/ingresses')).to.equal(true);
    expect(at20.has('extensions/v1beta1/deployments'), 'removed in 1.16: off, but switchable').to.equal(false);
    expect(served('1.20', { 'extensions/v1beta1': true }, {}, defs).has('extensions/v1beta1/deployments')).to.equal(true);
    expect(served('1.22', {}, {}, defs).has('extensions/v1beta1/ingresses')).to.equal(false);
    const r = applyRuntimeConfig(defs, { runtimeConfig: {}, authorizationMode: [], leaderElect: false, emulatedVersion: '1.20' }, kube);
    expect(r.disabledResources).to.include('extensions/v1beta1/deployments');
  });

  it('leaves alpha versions and off-by-default betas with no removal off at every release', () => {
    const alpha = { ...all.find((d) => d.resource === 'leases')!, version: 'v1alpha1' } as ResourceDef;
    const laterBeta = { ...all.find((d) => d.resource === 'leases')!, version: 'v1beta1', introducedIn: [1, 28], servedByDefault: false } as ResourceDef;
    for (const minor of [20, 28, 32]) {
      expect(servedByDefaultAt(alpha, minor, kube)).to.equal(false);
      expect(servedByDefaultAt(laterBeta, minor, kube)).to.equal(false);
    }
  });

  describe('over the whole catalogue (every flavor)', () => {
    for (const flavor of ['kubernetes', 'orch'] as const) {
      const naming = namingFor(flavor);
      const defs = builtinResources(naming);
      it(`${flavor}: a version removed in 1.R is served by default at 1.(R-1) and not at 1.R`, () => {
        for (const d of defs.filter((x) => x.deprecation?.removedIn)) {
          const [, removed] = d.deprecation!.removedIn!;
          const introduced = releaseIntroduced(d, naming)?.[1] ?? 0;
          if (removed - 1 >= Math.max(OLDEST_EMULATED_MINOR, introduced)) expect(servedByDefaultAt(d, removed - 1, naming), `${gvr(d)} at 1.${removed - 1}`).to.equal(true);
          if (removed <= BINARY_MINOR) expect(servedByDefaultAt(d, removed, naming), `${gvr(d)} at 1.${removed}`).to.equal(false);
        }
      });

      it(`${flavor}: a version introduced in 1.I is off at 1.(I-1) and on from 1.I when its release served it by default`, () => {
        for (const d of defs) {
          const introduced = releaseIntroduced(d, naming)?.[1];
          if (introduced === undefined) continue;
          expect(servedByDefaultAt(d, introduced - 1, naming), `${gvr(d)} at 1.${introduced - 1}`).to.equal(false);
          const removed = d.deprecation?.removedIn?.[1];
          const onWhenIntroduced = removed !== undefined ? removed > introduced : d.servedByDefault !== false;
          if (!/alpha/.test(d.version)) expect(servedByDefaultAt(d, introduced, naming), `${gvr(d)} at 1.${introduced}`).to.equal(onWhenIntroduced);
        }
      });

      it(`${flavor}: every release from 1.20 to 1.32 starts (the served set passes the server's checks)`, () => {
        for (let minor = OLDEST_EMULATED_MINOR; minor <= BINARY_MINOR; minor++) {
          expect(() => applyRuntimeConfig(defs, { runtimeConfig: {}, authorizationMode: ['RBAC'], leaderElect: true, emulatedVersion: `1.${minor}` }, naming)).not.to.throw();
        }
      });
    }
  });
});
