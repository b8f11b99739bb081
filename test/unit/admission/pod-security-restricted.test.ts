/**
 * PodSecurity's restricted checks: each one allowed and refused at the policy versions where its
 * rule starts or changes, the baseline checks it overrides, and Kubernetes' wording.
 */
import { expect } from 'chai';
import { verdict } from './pod-security-verdict';

type Spec = Record<string, unknown>;

const good = (name: string, extra: Spec = {}): Spec => ({
  name, image: 'busybox', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, ...extra },
});
/** A pod that meets restricted at every version. */
const compliant = (containers: Spec[] = [good('c')], extra: Spec = {}): Spec => ({
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } }, containers, ...extra,
});
const restricted = (version: number | 'latest', spec: Spec, annotations?: Record<string, string>) => verdict('restricted', version, spec, annotations);

describe('PodSecurity restricted checks', () => {
  it('a compliant pod passes at every version; a bare pod gets every restricted reason in Kubernetes order', () => {
    for (const v of [0, 7, 8, 18, 19, 22, 23, 25, 32, 33, 'latest'] as const) expect(restricted(v, compliant())).to.equal('');
    expect(restricted('latest', { containers: [{ name: 'c', image: 'nginx' }] })).to.equal(
      'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), '
      + 'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), '
      + 'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), '
      + 'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")');
    // Before v1.8 only runAsNonRoot of these exists.
    expect(restricted(7, { containers: [{ name: 'c', image: 'nginx' }] })).to.equal(
      'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)');
  });

  it('restricted includes baseline checks', () => {
    expect(restricted('latest', compliant([good('c', { privileged: true })], { hostPID: true })))
      .to.equal('host namespaces (hostPID=true), privileged (container "c" must not set securityContext.privileged=true)');
  });

  it('allowPrivilegeEscalation: from v1.8; windows pods exempt from v1.25', () => {
    const unset = compliant([{ name: 'c', image: 'x', securityContext: { capabilities: { drop: ['ALL'] } } }, good('d', { allowPrivilegeEscalation: true })]);
    expect(restricted(7, unset)).to.equal('');
    expect(restricted(8, unset)).to.equal('allowPrivilegeEscalation != false (containers "c", "d" must set securityContext.allowPrivilegeEscalation=false)');
    const windows = { ...unset, os: { name: 'windows' } };
    expect(restricted(24, windows)).to.match(/^allowPrivilegeEscalation != false/);
    expect(restricted(25, windows)).to.equal('');
    expect(restricted(25, { ...unset, os: { name: 'linux' } })).to.match(/^allowPrivilegeEscalation != false/);
  });

  it('runAsNonRoot: explicit false by pod or container, or unset without a pod-level true', () => {
    const podFalse = compliant([good('a'), good('b', { runAsNonRoot: false })]);
    (podFalse.securityContext as Spec).runAsNonRoot = false;
    expect(restricted(0, podFalse)).to.equal('runAsNonRoot != true (pod and container "b" must not set securityContext.runAsNonRoot=false)');
    const perContainer = compliant([good('a', { runAsNonRoot: true }), good('b'), good('c')]);
    delete (perContainer.securityContext as Spec).runAsNonRoot;
    expect(restricted('latest', perContainer)).to.equal('runAsNonRoot != true (pod or containers "b", "c" must set securityContext.runAsNonRoot=true)');
    const allContainers = compliant([good('a', { runAsNonRoot: true })]);
    delete (allContainers.securityContext as Spec).runAsNonRoot;
    expect(restricted('latest', allContainers)).to.equal('');
  });

  it('runAsUser=0: from v1.23, pod and containers', () => {
    const root = compliant([good('c', { runAsUser: 0 }), good('d', { runAsUser: 1000 })]);
    (root.securityContext as Spec).runAsUser = 0;
    expect(restricted(22, root)).to.equal('');
    expect(restricted(23, root)).to.equal('runAsUser=0 (pod and container "c" must not set runAsUser=0)');
    expect(restricted('latest', compliant([good('c', { runAsUser: 1000 })]))).to.equal('');
  });

  it('seccompProfile: required from v1.19 (replacing the baseline annotation check), windows pods exempt from v1.25', () => {
    const missing = compliant([good('c')]);
    delete (missing.securityContext as Spec).seccompProfile;
    expect(restricted(18, missing)).to.equal('');
    expect(restricted(19, missing)).to.equal('seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")');
    expect(restricted(25, { ...missing, os: { name: 'windows' } })).to.equal('');
    const perContainer = compliant([good('c', { seccompProfile: { type: 'Localhost', localhostProfile: 'p' } })]);
    delete (perContainer.securityContext as Spec).seccompProfile;
    expect(restricted('latest', perContainer)).to.equal('');
    const unconfined = compliant([good('c', { seccompProfile: { type: 'Unconfined' } })]);
    (unconfined.securityContext as Spec).seccompProfile = { type: 'Unconfined' };
    expect(restricted('latest', unconfined)).to.equal('seccompProfile (pod and container "c" must not set securityContext.seccompProfile.type to "Unconfined")');
    // Before v1.19 the baseline annotation check applies in restricted too; from v1.19 it is overridden.
    const annotations = { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' };
    expect(restricted(18, compliant(), annotations)).to.equal('seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined")');
    expect(restricted(19, compliant(), annotations)).to.equal('');
  });

  it('capabilities: drop ALL and add at most NET_BIND_SERVICE from v1.22; before it the baseline rule', () => {
    const noDrop = compliant([{ name: 'c', image: 'x', securityContext: { allowPrivilegeEscalation: false } }]);
    expect(restricted(21, noDrop)).to.equal('');
    expect(restricted(22, noDrop)).to.equal('unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"])');
    const adds = compliant([good('a', { capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } }),
      good('b', { capabilities: { drop: ['NET_RAW'], add: ['CHOWN', 'SYS_ADMIN'] } })]);
    expect(restricted(21, adds)).to.equal('non-default capabilities (container "b" must not include "SYS_ADMIN" in securityContext.capabilities.add)');
    expect(restricted(22, adds)).to.equal('unrestricted capabilities (container "b" must set securityContext.capabilities.drop=["ALL"]; '
      + 'container "b" must not include "CHOWN", "SYS_ADMIN" in securityContext.capabilities.add)');
    expect(restricted(24, { ...noDrop, os: { name: 'windows' } })).to.match(/^unrestricted capabilities/);
    expect(restricted(25, { ...noDrop, os: { name: 'windows' } })).to.equal('');
  });

  it('volume types: only the restricted set, replacing the hostPath check', () => {
    const volumes = [
      { name: 'cm', configMap: { name: 'x' } }, { name: 'csi', csi: { driver: 'd' } }, { name: 'dapi', downwardAPI: {} }, { name: 'e', emptyDir: {} },
      { name: 'eph', ephemeral: { volumeClaimTemplate: { spec: {} } } }, { name: 'pvc', persistentVolumeClaim: { claimName: 'c' } },
      { name: 'proj', projected: { sources: [] } }, { name: 's', secret: { secretName: 's' } }, { name: 'nosource' },
    ];
    expect(restricted(0, compliant(undefined, { volumes }))).to.equal('');
    expect(restricted('latest', compliant(undefined, { volumes: [{ name: 'h', hostPath: { path: '/' } }] })))
      .to.equal('restricted volume types (volume "h" uses restricted volume type "hostPath")');
    expect(restricted('latest', compliant(undefined, {
      volumes: [{ name: 'n', nfs: { server: 's', path: '/' } }, { name: 'g', gitRepo: { repository: 'r' } }, { name: 'i', image: { reference: 'x' } }],
    }))).to.equal('restricted volume types (volumes "n", "g", "i" use restricted volume types "gitRepo", "nfs", "unknown")');
  });
});
