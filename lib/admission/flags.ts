/**
 * The admission flags: which plugins run, their configuration file, and DefaultTolerationSeconds'
 * two values. Parsed by lib/server/flags.ts.
 */
import type { ServerConfig } from '../config';
import { flag, int, list, text, type FlagDef, type FlagProblem } from '../flag-definitions';
import { unknownPluginError } from './plugin-names';

export const ADMISSION_FLAGS: readonly FlagDef[] = [
  flag('enable-admission-plugins', 'enableAdmissionPlugins', list(), [],
    'Admission plugins to enable besides the default ones.'),
  flag('disable-admission-plugins', 'disableAdmissionPlugins', list(), [],
    'Admission plugins to disable even if on by default.'),
  flag('admission-control-config-file', 'admissionControlConfigFile', text, '',
    'AdmissionConfiguration file (apiserver.config.orch.io/v1): plugins\' configurations, each inline or by path.'),
  flag('default-not-ready-toleration-seconds', 'defaultNotReadyTolerationSeconds', int(0, 2 ** 31 - 1), 300,
    'tolerationSeconds of the not-ready:NoExecute toleration DefaultTolerationSeconds adds to workloads.'),
  flag('default-unreachable-toleration-seconds', 'defaultUnreachableTolerationSeconds', int(0, 2 ** 31 - 1), 300,
    'tolerationSeconds of the unreachable:NoExecute toleration DefaultTolerationSeconds adds to workloads.'),
];

/** An unknown plugin, or one both enabled and disabled, with kube-apiserver's sentences; or undefined. */
export function admissionFlagsProblem(c: ServerConfig): FlagProblem | undefined {
  const unknownPlugin = unknownPluginError(c.enableAdmissionPlugins, c.disableAdmissionPlugins);
  if (unknownPlugin) {
    return { code: 'InvalidValue', message: unknownPlugin, flag: unknownPlugin.startsWith('enable') ? 'enable-admission-plugins' : 'disable-admission-plugins' };
  }
  const both = c.enableAdmissionPlugins.filter((p) => c.disableAdmissionPlugins.includes(p));
  if (both.length) {
    // kube-apiserver's sentence, with Go's %v of the list.
    return { code: 'IncompatibleFlags', message: `[${both.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`, flag: 'enable-admission-plugins' };
  }
  return undefined;
}
