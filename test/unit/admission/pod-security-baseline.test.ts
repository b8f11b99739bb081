/**
 * PodSecurity's baseline checks: each one allowed and refused at the policy versions where its
 * rule changes, with Kubernetes' reason and detail text.
 */
import { expect } from 'chai';
import { orchEvaluator as orch, kubeEvaluator as kube, verdict } from './pod-security-verdict';

type Spec = Record<string, unknown>;

const c = (name: string, securityContext?: Spec, extra: Spec = {}) => ({ name, image: 'busybox', ...(securityContext ? { securityContext } : {}), ...extra });
const pod = (containers: Spec[], extra: Spec = {}): Spec => ({ containers, ...extra });
const baseline = (version: number | 'latest', spec: Spec, annotations?: Record<string, string>) => verdict('baseline', version, spec, annotations);

describe('PodSecurity baseline checks', () => {
  it('a plain pod passes baseline at every version and privileged checks nothing', () => {
    for (const v of [0, 8, 19, 25, 32, 'latest'] as const) expect(baseline(v, pod([c('c')]))).to.equal('');
    expect(verdict('privileged', 'latest', pod([c('c', { privileged: true })], { hostNetwork: true }))).to.equal('');
  });

  it('privileged: refused for every container kind from v1.0, false allowed', () => {
    const spec = pod([c('a', { privileged: true }), c('b', { privileged: false })], {
      initContainers: [c('init', { privileged: true })], ephemeralContainers: [c('debug', { privileged: true })],
    });
    expect(baseline(0, spec)).to.equal('privileged (containers "init", "a", "debug" must not set securityContext.privileged=true)');
    expect(baseline('latest', pod([c('a', { privileged: true })]))).to.equal('privileged (container "a" must not set securityContext.privileged=true)');
    expect(baseline('latest', pod([c('b', { privileged: false })]))).to.equal('');
  });

  it('host namespaces: hostNetwork, hostPID and hostIPC listed together', () => {
    expect(baseline(0, pod([c('c')], { hostNetwork: true, hostPID: true, hostIPC: true })))
      .to.equal('host namespaces (hostNetwork=true, hostPID=true, hostIPC=true)');
    expect(baseline('latest', pod([c('c')], { hostPID: true }))).to.equal('host namespaces (hostPID=true)');
    expect(baseline('latest', pod([c('c')], { hostNetwork: false }))).to.equal('');
  });

  it('hostPort: containers and ports (sorted as strings), 0 allowed', () => {
    expect(baseline('latest', pod([c('c', undefined, { ports: [{ containerPort: 80, hostPort: 8080 }] })])))
      .to.equal('hostPort (container "c" uses hostPort 8080)');
    expect(baseline(0, pod([
      c('a', undefined, { ports: [{ containerPort: 80, hostPort: 80 }, { containerPort: 443, hostPort: 443 }] }),
      c('b', undefined, { ports: [{ containerPort: 9, hostPort: 9 }] }),
    ]))).to.equal('hostPort (containers "a", "b" use hostPorts 443, 80, 9)');
    expect(baseline('latest', pod([c('c', undefined, { ports: [{ containerPort: 80, hostPort: 0 }, { containerPort: 81 }] })]))).to.equal('');
  });

  it('hostPath volumes', () => {
    const spec = pod([c('c')], { volumes: [{ name: 'a', hostPath: { path: '/' } }, { name: 'b', emptyDir: {} }, { name: 'd', hostPath: { path: '/x' } }] });
    expect(baseline(0, spec)).to.equal('hostPath volumes (volumes "a", "d")');
    expect(baseline('latest', pod([c('c')], { volumes: [{ name: 'a', hostPath: { path: '/' } }] }))).to.equal('hostPath volumes (volume "a")');
  });

  it('non-default capabilities: the 13 default ones may be added, others not', () => {
    const defaults = ['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID',
      'SETPCAP', 'SETUID', 'SYS_CHROOT'];
    expect(baseline('latest', pod([c('c', { capabilities: { add: defaults, drop: ['NET_RAW'] } })]))).to.equal('');
    expect(baseline(0, pod([c('a', { capabilities: { add: ['SYS_ADMIN', 'CHOWN', 'NET_ADMIN'] } }), c('b', { capabilities: { add: ['NET_ADMIN'] } })])))
      .to.equal('non-default capabilities (containers "a", "b" must not include "NET_ADMIN", "SYS_ADMIN" in securityContext.capabilities.add)');
  });

  it('procMount: only Default', () => {
    expect(baseline('latest', pod([c('c', { procMount: 'Unmasked' })])))
      .to.equal('procMount (container "c" must not set securityContext.procMount to "Unmasked")');
    expect(baseline('latest', pod([c('c', { procMount: 'Default' })]))).to.equal('');
  });

  it('seLinuxOptions: allowed types, container_engine_t from v1.31, user and role never', () => {
    const engine = pod([c('c', { seLinuxOptions: { type: 'container_engine_t' } })]);
    expect(baseline(30, engine)).to.equal('seLinuxOptions (container "c" set forbidden securityContext.seLinuxOptions: type "container_engine_t")');
    expect(baseline(31, engine)).to.equal('');
    expect(baseline('latest', engine)).to.equal('');
    for (const type of ['', 'container_t', 'container_init_t', 'container_kvm_t']) {
      expect(baseline(0, pod([c('c', { seLinuxOptions: { type, level: 's0:c1,c2' } })]))).to.equal('');
    }
    const spec = pod([c('a', { seLinuxOptions: { type: 'spc_t', role: 'r' } }), c('b', { seLinuxOptions: { type: 'unconfined_t' } })],
      { securityContext: { seLinuxOptions: { user: 'root' } } });
    expect(baseline('latest', spec)).to.equal('seLinuxOptions (pod and containers "a", "b" set forbidden securityContext.seLinuxOptions: '
      + 'types "spc_t", "unconfined_t"; user may not be set; role may not be set)');
  });

  it('seccompProfile: the alpha annotations before v1.19, the field from v1.19', () => {
    const annotated = { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined', 'container.seccomp.security.alpha.kubernetes.io/c': 'foo' };
    expect(baseline(18, pod([c('c')]), annotated)).to.equal('seccompProfile (forbidden annotations '
      + 'container.seccomp.security.alpha.kubernetes.io/c="foo", seccomp.security.alpha.kubernetes.io/pod="unconfined")');
    expect(baseline(18, pod([c('c')]), { 'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default', 'container.seccomp.security.alpha.kubernetes.io/c': 'localhost/p' })).to.equal('');
    expect(baseline(18, pod([c('c')]), { 'seccomp.security.alpha.kubernetes.io/pod': 'docker/default' })).to.equal('');
    expect(baseline(19, pod([c('c')]), annotated)).to.equal('');
    const field = pod([c('c', { seccompProfile: { type: 'Unconfined' } })], { securityContext: { seccompProfile: { type: 'Unconfined' } } });
    expect(baseline(18, field)).to.equal('');
    expect(baseline(19, field)).to.equal('seccompProfile (pod and container "c" must not set securityContext.seccompProfile.type to "Unconfined")');
    expect(baseline('latest', pod([c('c', { seccompProfile: { type: 'Localhost', localhostProfile: 'p' } })]))).to.equal('');
  });

  it('the orch flavor reads the orch.io spellings of the seccomp and AppArmor annotations', () => {
    const annotations = { 'seccomp.security.alpha.orch.io/pod': 'unconfined', 'container.apparmor.security.beta.orch.io/c': 'unconfined' };
    expect(verdict('baseline', 18, pod([c('c')]), annotations, orch)).to.equal('forbidden AppArmor profile (annotation must not set AppArmor profile type to '
      + '"container.apparmor.security.beta.orch.io/c="unconfined""), seccompProfile (forbidden annotation seccomp.security.alpha.orch.io/pod="unconfined")');
    expect(verdict('baseline', 'latest', pod([c('c')]), annotations, orch))
      .to.equal('forbidden AppArmor profile (annotation must not set AppArmor profile type to "container.apparmor.security.beta.orch.io/c="unconfined"")');
    expect(verdict('baseline', 'latest', pod([c('c')]), annotations, kube)).to.equal('');
  });

  it('sysctls: the safe set grows at v1.27, v1.29 and v1.32; newer versions count as v1.32', () => {
    const sysctl = (name: string) => pod([c('c')], { securityContext: { sysctls: [{ name, value: '1' }] } });
    expect(baseline(0, sysctl('net.ipv4.ip_unprivileged_port_start'))).to.equal('');
    expect(baseline(26, sysctl('net.ipv4.ip_local_reserved_ports'))).to.equal('forbidden sysctls (net.ipv4.ip_local_reserved_ports)');
    expect(baseline(27, sysctl('net.ipv4.ip_local_reserved_ports'))).to.equal('');
    expect(baseline(28, sysctl('net.ipv4.tcp_keepalive_time'))).to.equal('forbidden sysctls (net.ipv4.tcp_keepalive_time)');
    expect(baseline(29, sysctl('net.ipv4.tcp_keepalive_time'))).to.equal('');
    expect(baseline(31, sysctl('net.ipv4.tcp_rmem'))).to.equal('forbidden sysctls (net.ipv4.tcp_rmem)');
    expect(baseline(32, sysctl('net.ipv4.tcp_rmem'))).to.equal('');
    expect(baseline(40, sysctl('net.ipv4.tcp_wmem'))).to.equal('');
    expect(baseline(40, sysctl('kernel.msgmax'))).to.equal('forbidden sysctls (kernel.msgmax)');
    const two = pod([c('c')], { securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }, { name: 'net.core.somaxconn', value: '1' }] } });
    expect(baseline('latest', two)).to.equal('forbidden sysctls (kernel.msgmax, net.core.somaxconn)');
  });

  it('hostProcess: pod and containers', () => {
    const spec = pod([c('c', { windowsOptions: { hostProcess: true } })], { securityContext: { windowsOptions: { hostProcess: true } } });
    expect(baseline(0, spec)).to.equal('hostProcess (pod and container "c" must not set securityContext.windowsOptions.hostProcess=true)');
    expect(baseline('latest', pod([c('c', { windowsOptions: { hostProcess: false } })]))).to.equal('');
  });

  it('AppArmor: the field types and the beta annotations', () => {
    const spec = pod([c('c', { appArmorProfile: { type: 'Unconfined' } })], { securityContext: { appArmorProfile: { type: 'Unconfined' } } });
    expect(baseline(0, spec)).to.equal('forbidden AppArmor profile (pod and container "c" must not set AppArmor profile type to "Unconfined")');
    expect(baseline('latest', pod([c('c', { appArmorProfile: { type: 'Localhost', localhostProfile: 'p' } })],
      { securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } }))).to.equal('');
    const annotations = {
      'container.apparmor.security.beta.kubernetes.io/b': 'unconfined', 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined',
      'container.apparmor.security.beta.kubernetes.io/ok': 'localhost/p',
    };
    expect(baseline('latest', spec, annotations)).to.equal('forbidden AppArmor profiles (pod and container "c" and annotations must not set AppArmor profile type to '
      + '"Unconfined", "container.apparmor.security.beta.kubernetes.io/a="unconfined"", "container.apparmor.security.beta.kubernetes.io/b="unconfined"")');
    expect(baseline('latest', pod([c('c')]), { 'container.apparmor.security.beta.kubernetes.io/c': 'runtime/default' })).to.equal('');
  });

  it('several violations in check-id order, as Kubernetes lists them', () => {
    const spec = pod([c('c', { privileged: true, capabilities: { add: ['NET_ADMIN'] } }, { ports: [{ containerPort: 80, hostPort: 80 }] })],
      { hostNetwork: true, volumes: [{ name: 'h', hostPath: { path: '/' } }] });
    expect(baseline('latest', spec)).to.equal('non-default capabilities (container "c" must not include "NET_ADMIN" in securityContext.capabilities.add), '
      + 'host namespaces (hostNetwork=true), hostPath volumes (volume "h"), hostPort (container "c" uses hostPort 80), '
      + 'privileged (container "c" must not set securityContext.privileged=true)');
  });
});
