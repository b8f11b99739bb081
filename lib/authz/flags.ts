/**
 * The authorization flags: the mode chain, the Webhook and ABAC modes' files, and
 * --authorization-config (a structured chain, exclusive with the mode and webhook flags as in
 * kube-apiserver). Parsed by lib/server/flags.ts.
 */
import { AUTHORIZATION_MODES, type AuthorizationMode, type ServerConfig } from '../config';
import { duration, flag, list, oneOf, text, type FlagDef, type FlagProblem } from '../flag-definitions';
import { readAuthorizationConfig } from './authorization-config';

function noRepeats(modes: string[]): string | undefined {
  if (modes.length === 0) return 'must name at least one mode';
  const twice = modes.find((m, i) => modes.indexOf(m) !== i);
  return twice === undefined ? undefined : `${twice} is listed more than once`;
}

export const AUTHORIZATION_FLAGS: readonly FlagDef[] = [
  // RBAC rather than kube-apiserver's AlwaysAllow: deny by default (docs/access-control.md says why).
  flag('authorization-mode', 'authorizationMode', list(AUTHORIZATION_MODES), ['RBAC'],
    'Ordered authorizers, the first allow or deny decides: AlwaysAllow, AlwaysDeny, RBAC, Node, Webhook, ABAC (system:masters is always allowed).',
    { check: noRepeats }),
  flag('authorization-webhook-config-file', 'authorizationWebhookConfigFile', text, '',
    'Kubeconfig-format file of a remote service that decides by SubjectAccessReview; used with --authorization-mode=Webhook.'),
  flag('authorization-webhook-version', 'authorizationWebhookVersion', oneOf<'v1' | 'v1beta1'>(['v1', 'v1beta1']), 'v1beta1',
    'SubjectAccessReview version sent to the authorization webhook.'),
  flag('authorization-webhook-cache-authorized-ttl', 'authorizationWebhookCacheAuthorizedTtlMs', duration, 300_000,
    'How long the authorization webhook\'s "authorized" answers are cached.'),
  flag('authorization-webhook-cache-unauthorized-ttl', 'authorizationWebhookCacheUnauthorizedTtlMs', duration, 30_000,
    'How long the authorization webhook\'s other answers are cached.'),
  flag('authorization-policy-file', 'authorizationPolicyFile', text, '',
    'ABAC policy, one JSON Policy per line; used with --authorization-mode=ABAC.'),
  flag('authorization-config', 'authorizationConfigFile', text, '',
    'File with an AuthorizationConfiguration (apiserver.config.orch.io/v1): the ordered authorizers (RBAC, Node, Webhook with CEL matchConditions, ...); reloaded when it changes. Cannot be used with --authorization-mode or the --authorization-webhook-* flags.'),
  flag('authorization-config-reload-interval', 'authorizationConfigReloadIntervalMs', duration, 60_000,
    'How often the file of --authorization-config is checked for changes. Not a kube-apiserver flag (kube-apiserver checks every minute).'),
];

/** kube-apiserver's legacy authorization flags, refused beside --authorization-config. */
const LEGACY_FLAGS = ['authorization-mode', 'authorization-webhook-config-file', 'authorization-webhook-version',
  'authorization-webhook-cache-authorized-ttl', 'authorization-webhook-cache-unauthorized-ttl'];

/**
 * As kube-apiserver: --authorization-config excludes the legacy flags (when `given` says which
 * were given); otherwise a mode's file without the mode, or the mode without its file, is a mistake.
 */
export function authorizationFlagsProblem(c: ServerConfig, given?: ReadonlySet<string>): FlagProblem | undefined {
  if (c.authorizationConfigFile) {
    const legacy = given ? LEGACY_FLAGS.some((f) => given.has(f)) : c.authorizationWebhookConfigFile !== '';
    if (legacy) {
      return { code: 'IncompatibleFlags', message: '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined', flag: 'authorization-config' };
    }
    // As kube-apiserver's option validation: the file is read and validated before anything starts.
    try {
      readAuthorizationConfig(c.authorizationConfigFile);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const why = err.code === 'ENOENT' ? `open ${c.authorizationConfigFile}: no such file or directory` : err.message;
      return { code: 'InvalidValue', message: `--authorization-config: ${why.replace(/\n/g, ' ')}`, flag: 'authorization-config' };
    }
    return undefined;
  }
  const modeFile = (mode: AuthorizationMode, name: string, value: string): FlagProblem | undefined => {
    if (c.authorizationMode.includes(mode) && value === '') {
      return { code: 'IncompatibleFlags', message: `--authorization-mode ${mode} needs --${name}`, flag: name };
    }
    if (!c.authorizationMode.includes(mode) && value !== '') {
      return { code: 'IncompatibleFlags', message: `--${name} needs ${mode} in --authorization-mode`, flag: 'authorization-mode' };
    }
    return undefined;
  };
  return modeFile('Webhook', 'authorization-webhook-config-file', c.authorizationWebhookConfigFile)
    ?? modeFile('ABAC', 'authorization-policy-file', c.authorizationPolicyFile);
}
