/**
 * Container and pod security contexts as Kubernetes' validation checks them: user and group
 * IDs in range, procMount, seccomp and AppArmor profiles, sysctl names, the fsGroup change and
 * supplemental groups policies, and the combinations Kubernetes refuses. Privileged containers
 * are allowed unless the server runs with --allow-privileged=false (capabilities.ts).
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { Json, isObject, items, record, records, text } from '../json-fields';
import { validateLocalDescendingPath } from '../volumes/local-path';
import { privilegedAllowed } from './capabilities';

const ID_MSG = 'must be between 0 and 2147483647, inclusive';
const PROC_MOUNTS = ['Default', 'Unmasked'];
const PROFILE_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'];
const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL_RE = new RegExp(`^(${SYSCTL_SEGMENT}[\\./])*${SYSCTL_SEGMENT}$`);
const SYSCTL_MSG = `must have at most 253 characters and match regex ${SYSCTL_RE.source}`;

function validateId(value: unknown, path: string): FieldError[] {
  if (typeof value !== 'number') return [];
  return value < 0 || value > 2147483647 ? [fieldErrors.invalid(path, value, ID_MSG)] : [];
}

/** validateSeccompProfileField. */
function validateSeccomp(profile: Json | undefined, path: string): FieldError[] {
  if (!profile) return [];
  const type = text(profile, 'type');
  if (!type) return [fieldErrors.required(child(path, 'type'), 'type is required when seccompProfile is set')];
  if (!PROFILE_TYPES.includes(type)) return [fieldErrors.notSupported(child(path, 'type'), type, PROFILE_TYPES)];
  const local = profile.localhostProfile;
  if (type === 'Localhost') {
    if (typeof local !== 'string') return [fieldErrors.required(child(path, 'localhostProfile'), 'must be set when seccomp type is Localhost')];
    return validateLocalDescendingPath(local, child(path, 'localhostProfile'));
  }
  return typeof local === 'string' ? [fieldErrors.invalid(child(path, 'localhostProfile'), profile, 'can only be set when seccomp type is Localhost')] : [];
}

/** ValidateAppArmorProfileField. */
function validateAppArmor(profile: Json | undefined, path: string): FieldError[] {
  if (!profile) return [];
  const type = text(profile, 'type');
  const local = profile.localhostProfile;
  const localPath = child(path, 'localhostProfile');
  if (type === 'Localhost') {
    if (typeof local !== 'string' || !local.trim()) {
      if (typeof local === 'string' && local !== local.trim()) return [fieldErrors.invalid(localPath, local, 'must not be padded with whitespace')];
      return [fieldErrors.required(localPath, 'must be set when AppArmor type is Localhost')];
    }
    if (local !== local.trim()) return [fieldErrors.invalid(localPath, local, 'must not be padded with whitespace')];
    return local.length > 4095 ? [fieldErrors.tooLong(localPath, 4095)] : [];
  }
  if (type === 'RuntimeDefault' || type === 'Unconfined') {
    return typeof local === 'string' ? [fieldErrors.invalid(localPath, local, 'can only be set when AppArmor type is Localhost')] : [];
  }
  if (!type) return [fieldErrors.required(child(path, 'type'), 'type is required when appArmorProfile is set')];
  return [fieldErrors.notSupported(child(path, 'type'), type, PROFILE_TYPES)];
}

/** ValidateSecurityContext of a container; `hostUsers` is the pod's (Unmasked needs a user namespace). */
export function validateContainerSecurityContext(sc: Json | undefined, hostUsers: boolean, path: string): FieldError[] {
  if (!sc) return [];
  const errs: FieldError[] = [];
  if (sc.privileged === true && !privilegedAllowed()) errs.push(fieldErrors.forbidden(child(path, 'privileged'), 'disallowed by cluster policy'));
  errs.push(...validateId(sc.runAsUser, child(path, 'runAsUser')), ...validateId(sc.runAsGroup, child(path, 'runAsGroup')));
  const procMount = sc.procMount;
  if (typeof procMount === 'string') {
    if (!PROC_MOUNTS.includes(procMount)) errs.push(fieldErrors.notSupported(child(path, 'procMount'), procMount, PROC_MOUNTS));
    if (hostUsers && procMount === 'Unmasked') errs.push(fieldErrors.invalid(child(path, 'procMount'), procMount, '`hostUsers` must be false to use `Unmasked`'));
  }
  errs.push(...validateSeccomp(record(sc, 'seccompProfile'), child(path, 'seccompProfile')));
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged === true) errs.push(fieldErrors.invalid(path, sc, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    if (items(record(sc, 'capabilities') ?? {}, 'add').includes('CAP_SYS_ADMIN')) {
      errs.push(fieldErrors.invalid(path, sc, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
    }
  }
  errs.push(...validateAppArmor(record(sc, 'appArmorProfile'), child(path, 'appArmorProfile')));
  return errs;
}

function validateSysctls(sysctls: Json[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  sysctls.forEach((s, i) => {
    const name = text(s, 'name');
    const at = child(index(path, i), 'name');
    if (!name) errs.push(fieldErrors.required(at));
    else if (name.length > 253 || !SYSCTL_RE.test(name.replace(/\//g, '.'))) errs.push(fieldErrors.invalid(at, name, SYSCTL_MSG));
    else if (names.has(name)) errs.push(fieldErrors.duplicate(at, name));
    names.add(name);
  });
  return errs;
}

const oneOf = (value: unknown, supported: string[], path: string): FieldError[] => (
  typeof value === 'string' && !supported.includes(value) ? [fieldErrors.notSupported(path, value, supported)] : []);

/** validatePodSpecSecurityContext: spec.securityContext and the host namespace switches beside it. */
export function validatePodSecurityContext(spec: Json, path: string): FieldError[] {
  const sc = record(spec, 'securityContext');
  if (!sc) return [];
  const errs = [
    ...validateId(sc.fsGroup, child(path, 'fsGroup')),
    ...validateId(sc.runAsUser, child(path, 'runAsUser')),
    ...validateId(sc.runAsGroup, child(path, 'runAsGroup')),
  ];
  items(sc, 'supplementalGroups').forEach((gid, i) => errs.push(...validateId(gid, index(child(path, 'supplementalGroups'), i))));
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    errs.push(fieldErrors.invalid(child(path, 'shareProcessNamespace'), true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  }
  errs.push(...validateSysctls(records(sc, 'sysctls'), child(path, 'sysctls')));
  errs.push(...oneOf(sc.fsGroupChangePolicy, ['OnRootMismatch', 'Always'], child(path, 'fsGroupChangePolicy')));
  errs.push(...oneOf(sc.supplementalGroupsPolicy, ['Merge', 'Strict'], child(path, 'supplementalGroupsPolicy')));
  errs.push(...oneOf(sc.seLinuxChangePolicy, ['MountOption', 'Recursive'], child(path, 'seLinuxChangePolicy')));
  errs.push(...validateSeccomp(record(sc, 'seccompProfile'), child(path, 'seccompProfile')));
  errs.push(...validateAppArmor(record(sc, 'appArmorProfile'), child(path, 'appArmorProfile')));
  return errs;
}

/** Whether a container runs privileged (Bidirectional mount propagation needs it). */
export const isPrivileged = (c: Json): boolean => isObject(c.securityContext) && c.securityContext.privileged === true;
