/**
 * Schemas of the security settings of a container (SecurityContext) and of a whole pod
 * (PodSecurityContext), with the option types they share (SELinux, Windows, seccomp, AppArmor).
 */
import { goType } from '../../../scheme/type-names';
import { Schema, atomicList, bool, int64, object, str } from '../../../scheme/schema';

/** core/v1 Capabilities. */
export const capabilities: Schema = goType('io.k8s.api.core.v1.Capabilities', object({
  add: atomicList(str()),
  drop: atomicList(str()),
}));

/** core/v1 SELinuxOptions. */
export const seLinuxOptions: Schema = goType('io.k8s.api.core.v1.SELinuxOptions', object({
  user: str(),
  role: str(),
  type: str(),
  level: str(),
}));

/** core/v1 WindowsSecurityContextOptions. */
export const windowsSecurityContextOptions: Schema = goType('io.k8s.api.core.v1.WindowsSecurityContextOptions', object({
  gmsaCredentialSpecName: str(),
  gmsaCredentialSpec: str(),
  runAsUserName: str(),
  hostProcess: bool(),
}));

/** core/v1 SeccompProfile. */
export const seccompProfile: Schema = goType('io.k8s.api.core.v1.SeccompProfile', object({
  type: str(),
  localhostProfile: str(),
}, { required: ['type'] }));

/** core/v1 AppArmorProfile. */
export const appArmorProfile: Schema = goType('io.k8s.api.core.v1.AppArmorProfile', object({
  type: str(),
  localhostProfile: str(),
}, { required: ['type'] }));

/** core/v1 Sysctl. */
export const sysctl: Schema = goType('io.k8s.api.core.v1.Sysctl', object({
  name: str(),
  value: str(),
}, { required: ['name', 'value'] }));

/** core/v1 SecurityContext. */
export const securityContext: Schema = goType('io.k8s.api.core.v1.SecurityContext', object({
  capabilities: capabilities,
  privileged: bool(),
  seLinuxOptions: seLinuxOptions,
  windowsOptions: windowsSecurityContextOptions,
  runAsUser: int64(),
  runAsGroup: int64(),
  runAsNonRoot: bool(),
  readOnlyRootFilesystem: bool(),
  allowPrivilegeEscalation: bool(),
  procMount: str(),
  seccompProfile: seccompProfile,
  appArmorProfile: appArmorProfile,
}));

/** core/v1 PodSecurityContext. */
export const podSecurityContext: Schema = goType('io.k8s.api.core.v1.PodSecurityContext', object({
  seLinuxOptions: seLinuxOptions,
  windowsOptions: windowsSecurityContextOptions,
  runAsUser: int64(),
  runAsGroup: int64(),
  runAsNonRoot: bool(),
  supplementalGroups: atomicList(int64()),
  supplementalGroupsPolicy: str(),
  fsGroup: int64(),
  sysctls: atomicList(sysctl),
  fsGroupChangePolicy: str(),
  seccompProfile: seccompProfile,
  appArmorProfile: appArmorProfile,
  seLinuxChangePolicy: str(),
}));
