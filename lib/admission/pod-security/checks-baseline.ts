/**
 * The baseline level's checks (Pod Security Standards), each with the policy versions its
 * revisions apply to and Kubernetes' wording.
 */
import {
  ALLOWED, Check, CheckResult, PodView, CheckNames, containersOf, containersPhrase, goQuote, isSet, joinQuote, obj,
  objs, podSecurityContext, pluralize, sorted, str,
} from './check';

function privileged({ spec }: PodView): CheckResult {
  const bad = containersOf(spec).filter((c) => c.securityContext?.privileged === true).map((c) => c.name);
  if (!bad.length) return ALLOWED;
  return { allowed: false, reason: 'privileged', detail: `${containersPhrase(bad)} must not set securityContext.privileged=true` };
}

function hostNamespaces({ spec }: PodView): CheckResult {
  const host = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter((f) => spec[f] === true).map((f) => `${f}=true`);
  if (!host.length) return ALLOWED;
  return { allowed: false, reason: 'host namespaces', detail: host.join(', ') };
}

function hostPorts({ spec }: PodView): CheckResult {
  const bad: string[] = [];
  const ports = new Set<string>();
  for (const c of containersOf(spec)) {
    let valid = true;
    for (const p of objs(c.raw.ports)) {
      if (isSet(p.hostPort) && p.hostPort !== 0) {
        valid = false;
        ports.add(String(p.hostPort));
      }
    }
    if (!valid) bad.push(c.name);
  }
  if (!bad.length) return ALLOWED;
  return {
    allowed: false, reason: 'hostPort',
    detail: `${containersPhrase(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', ports.size)} ${sorted(ports).join(', ')}`,
  };
}

function hostPathVolumes({ spec }: PodView): CheckResult {
  const bad = objs(spec.volumes).filter((v) => isSet(v.hostPath)).map((v) => str(v.name));
  if (!bad.length) return ALLOWED;
  return { allowed: false, reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}` };
}

const CAPABILITIES_ALLOWED_1_0 = new Set([
  'AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID',
  'SETPCAP', 'SETUID', 'SYS_CHROOT',
]);

function capabilitiesBaseline({ spec }: PodView): CheckResult {
  const bad: string[] = [];
  const caps = new Set<string>();
  for (const c of containersOf(spec)) {
    const capabilities = obj(c.securityContext?.capabilities);
    if (!capabilities) continue;
    let valid = true;
    for (const cap of Array.isArray(capabilities.add) ? capabilities.add : []) {
      if (!CAPABILITIES_ALLOWED_1_0.has(str(cap))) {
        valid = false;
        caps.add(str(cap));
      }
    }
    if (!valid) bad.push(c.name);
  }
  if (!bad.length) return ALLOWED;
  return {
    allowed: false, reason: 'non-default capabilities',
    detail: `${containersPhrase(bad)} must not include ${joinQuote(sorted(caps))} in securityContext.capabilities.add`,
  };
}

function procMount({ spec }: PodView): CheckResult {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const c of containersOf(spec)) {
    const pm = c.securityContext?.procMount;
    if (!isSet(pm) || pm === 'Default') continue;
    bad.push(c.name);
    types.add(str(pm));
  }
  if (!bad.length) return ALLOWED;
  return { allowed: false, reason: 'procMount', detail: `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sorted(types))}` };
}

const SELINUX_TYPES_1_0 = ['', 'container_t', 'container_init_t', 'container_kvm_t'];
const SELINUX_TYPES_1_31 = [...SELINUX_TYPES_1_0, 'container_engine_t'];

function seLinuxOptions(allowedTypes: readonly string[]) {
  return ({ spec }: PodView): CheckResult => {
    const badSetters: string[] = [];
    const badTypes = new Set<string>();
    let setUser = false;
    let setRole = false;
    const valid = (opts: Record<string, unknown>): boolean => {
      let ok = true;
      if (!allowedTypes.includes(str(opts.type))) {
        ok = false;
        badTypes.add(str(opts.type));
      }
      if (str(opts.user)) {
        ok = false;
        setUser = true;
      }
      if (str(opts.role)) {
        ok = false;
        setRole = true;
      }
      return ok;
    };
    const podOpts = obj(podSecurityContext(spec)?.seLinuxOptions);
    if (podOpts && !valid(podOpts)) badSetters.push('pod');
    const bad = containersOf(spec).filter((c) => {
      const opts = obj(c.securityContext?.seLinuxOptions);
      return opts ? !valid(opts) : false;
    }).map((c) => c.name);
    if (bad.length) badSetters.push(containersPhrase(bad));
    if (!badSetters.length) return ALLOWED;
    const data: string[] = [];
    if (badTypes.size) data.push(`${pluralize('type', 'types', badTypes.size)} ${joinQuote(sorted(badTypes))}`);
    if (setUser) data.push('user may not be set');
    if (setRole) data.push('role may not be set');
    return { allowed: false, reason: 'seLinuxOptions', detail: `${badSetters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}` };
  };
}

const validSeccompAnnotation = (v: string) => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');

/** Before 1.19 seccomp was set by the alpha annotations. */
function seccompBaseline1_0({ annotations, spec }: PodView, names: CheckNames): CheckResult {
  const forbidden = new Set<string>();
  const look = (key: string) => {
    if (Object.prototype.hasOwnProperty.call(annotations, key) && !validSeccompAnnotation(annotations[key])) {
      forbidden.add(`${key}=${goQuote(annotations[key])}`);
    }
  };
  look(names.seccompPod);
  for (const c of containersOf(spec)) look(names.seccompContainerPrefix + c.name);
  if (!forbidden.size) return ALLOWED;
  return { allowed: false, reason: 'seccompProfile', detail: `forbidden ${pluralize('annotation', 'annotations', forbidden.size)} ${sorted(forbidden).join(', ')}` };
}

export const validSeccompType = (t: string) => t === 'Localhost' || t === 'RuntimeDefault';

function seccompBaseline1_19({ spec }: PodView): CheckResult {
  const badSetters: string[] = [];
  const badValues = new Set<string>();
  const podProfile = obj(podSecurityContext(spec)?.seccompProfile);
  if (podProfile && !validSeccompType(str(podProfile.type))) {
    badSetters.push('pod');
    badValues.add(str(podProfile.type));
  }
  const bad: string[] = [];
  for (const c of containersOf(spec)) {
    const profile = obj(c.securityContext?.seccompProfile);
    if (profile && !validSeccompType(str(profile.type))) {
      bad.push(c.name);
      badValues.add(str(profile.type));
    }
  }
  if (bad.length) badSetters.push(containersPhrase(bad));
  if (!badSetters.length) return ALLOWED;
  return {
    allowed: false, reason: 'seccompProfile',
    detail: `${badSetters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sorted(badValues))}`,
  };
}

const SYSCTLS_1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start'];
const SYSCTLS_1_27 = [...SYSCTLS_1_0, 'net.ipv4.ip_local_reserved_ports'];
const SYSCTLS_1_29 = [...SYSCTLS_1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes'];
const SYSCTLS_1_32 = [...SYSCTLS_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

function sysctls(allowed: readonly string[]) {
  const set = new Set(allowed);
  return ({ spec }: PodView): CheckResult => {
    const bad = objs(podSecurityContext(spec)?.sysctls).map((s) => str(s.name)).filter((n) => !set.has(n));
    if (!bad.length) return ALLOWED;
    return { allowed: false, reason: 'forbidden sysctls', detail: bad.join(', ') };
  };
}

function windowsHostProcess({ spec }: PodView): CheckResult {
  const hostProcess = (sc: Record<string, unknown> | undefined) => obj(sc?.windowsOptions)?.hostProcess === true;
  const setters: string[] = [];
  if (hostProcess(podSecurityContext(spec))) setters.push('pod');
  const bad = containersOf(spec).filter((c) => hostProcess(c.securityContext)).map((c) => c.name);
  if (bad.length) setters.push(containersPhrase(bad));
  if (!setters.length) return ALLOWED;
  return { allowed: false, reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` };
}

const allowedAppArmorAnnotation = (v: string) => v === '' || v === 'runtime/default' || v.startsWith('localhost/');
const allowedAppArmorType = (t: string) => t === 'RuntimeDefault' || t === 'Localhost';

function appArmorProfile({ annotations, spec }: PodView, names: CheckNames): CheckResult {
  const badSetters: string[] = [];
  const badValues = new Set<string>();
  const podProfile = obj(podSecurityContext(spec)?.appArmorProfile);
  if (podProfile && !allowedAppArmorType(str(podProfile.type))) {
    badSetters.push('pod');
    badValues.add(str(podProfile.type));
  }
  const bad: string[] = [];
  for (const c of containersOf(spec)) {
    const profile = obj(c.securityContext?.appArmorProfile);
    if (profile && !allowedAppArmorType(str(profile.type))) {
      bad.push(c.name);
      badValues.add(str(profile.type));
    }
  }
  if (bad.length) badSetters.push(containersPhrase(bad));
  const forbiddenAnnotations = sorted(Object.entries(annotations)
    .filter(([k, v]) => k.startsWith(names.appArmorContainerPrefix) && !allowedAppArmorAnnotation(v))
    .map(([k, v]) => `${k}=${goQuote(v)}`));
  const values = sorted(badValues);
  if (forbiddenAnnotations.length) {
    values.push(...forbiddenAnnotations);
    badSetters.push(pluralize('annotation', 'annotations', forbiddenAnnotations.length));
  }
  if (!badSetters.length) return ALLOWED;
  return {
    allowed: false,
    reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', values.length),
    detail: `${badSetters.join(' and ')} must not set AppArmor profile type to ${joinQuote(values)}`,
  };
}

/** The id of the baseline checks restricted revisions override. */
export const CAPABILITIES_BASELINE = 'capabilities_baseline';
export const SECCOMP_BASELINE = 'seccompProfile_baseline';
export const HOST_PATH_VOLUMES = 'hostPathVolumes';

export const BASELINE_CHECKS: readonly Check[] = [
  { id: 'privileged', level: 'baseline', versions: [{ minMinor: 0, check: privileged }] },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ minMinor: 0, check: hostNamespaces }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ minMinor: 0, check: hostPorts }] },
  { id: HOST_PATH_VOLUMES, level: 'baseline', versions: [{ minMinor: 0, check: hostPathVolumes }] },
  { id: CAPABILITIES_BASELINE, level: 'baseline', versions: [{ minMinor: 0, check: capabilitiesBaseline }] },
  { id: 'procMount', level: 'baseline', versions: [{ minMinor: 0, check: procMount }] },
  {
    id: 'seLinuxOptions', level: 'baseline',
    versions: [{ minMinor: 0, check: seLinuxOptions(SELINUX_TYPES_1_0) }, { minMinor: 31, check: seLinuxOptions(SELINUX_TYPES_1_31) }],
  },
  { id: SECCOMP_BASELINE, level: 'baseline', versions: [{ minMinor: 0, check: seccompBaseline1_0 }, { minMinor: 19, check: seccompBaseline1_19 }] },
  {
    id: 'sysctls', level: 'baseline',
    versions: [
      { minMinor: 0, check: sysctls(SYSCTLS_1_0) }, { minMinor: 27, check: sysctls(SYSCTLS_1_27) },
      { minMinor: 29, check: sysctls(SYSCTLS_1_29) }, { minMinor: 32, check: sysctls(SYSCTLS_1_32) },
    ],
  },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ minMinor: 0, check: windowsHostProcess }] },
  { id: 'appArmorProfile', level: 'baseline', versions: [{ minMinor: 0, check: appArmorProfile }] },
];
