/**
 * The command line: kube-apiserver's flag names, parsed into one typed ServerConfig.
 * One table (FLAGS) drives parsing, defaults and the help text, so a flag exists in exactly one place.
 * Syntax follows Go's pflag: `--name=value`, `--name value`, bare `--bool`, `-h`/`-v` shorthands;
 * list and map flags accumulate over repeats (the first use replaces the default), scalars keep the last.
 */
import { isIP } from 'node:net';
import type { Flavor } from '../naming';
import { checkControllerEntries } from '../controllers/enabled';
import { leaderElectionTimesProblem } from '../controllers/leader-election';
import { unknownPluginError } from '../admission/plugin-names';
import { formatGoDuration } from '../meta/go-duration';
import { showHiddenVersionProblem } from '../metrics/registry';
import { auditBackendFlagsProblem } from '../audit/batch-options';
import { featureGatesHelp } from '../scheme/feature-gates';

import { GO_CIPHER_SUITES, TLS_VERSION_NAMES, cipherSuitesProblem, tlsVersionProblem } from './tls-options';
import {
  AUTHORIZATION_MODES, ETCD_CLIENTS, HTTP1_SERVERS, HTTP2_SERVERS, LOG_LEVELS, STORAGE_MEDIA_TYPES, type AuthorizationMode, type ServerConfig,
} from '../config';


export type FlagErrorCode =
  'UnknownFlag' | 'MissingValue' | 'InvalidValue' | 'UnexpectedArgument' | 'IncompatibleFlags';

/** A command-line mistake. `message` is one line fit for stderr; callers branch on `code`. */
export class FlagError extends Error {
  readonly code: FlagErrorCode;
  /** The flag concerned, without dashes, when there is one. */
  readonly flag?: string;
  constructor(code: FlagErrorCode, message: string, flag?: string) {
    super(message);
    this.name = 'FlagError';
    this.code = code;
    this.flag = flag;
  }
}

/** How one flag's text becomes a value. `parse` throws Error(reason) on bad text. */
export interface ValueKind<T> {
  /** The word shown in help: string, bool, int, float, duration, strings, mapStringBool. */
  readonly type: string;
  /** A bare `--flag` means true; the next argument is never taken as its value. */
  readonly isBool?: boolean;
  /** `previous` is this flag's value from an earlier occurrence on the same command line. */
  parse(raw: string, previous: T | undefined): T;
  show(value: T): string;
}

export interface FlagDef<K extends keyof ServerConfig = keyof ServerConfig> {
  /** Long name without dashes. */
  readonly name: string;
  readonly shorthand?: string;
  readonly key: K;
  readonly kind: ValueKind<ServerConfig[K]>;
  readonly default: ServerConfig[K];
  readonly help: string;
  /** Returns the reason a parsed value is unacceptable, or undefined. */
  check?(value: ServerConfig[K]): string | undefined;
}

// ---- durations (Go's time.ParseDuration syntax) ----

const UNIT_MS: Record<string, number> = {
  ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000,
};

/**
 * Parses a Go duration (`300ms`, `1.5h`, `2h45m`, `0`) into milliseconds, rounded to whole
 * nanoseconds. Every number needs a unit except a lone `0`. Throws FlagError('InvalidValue').
 */
export function parseDuration(text: string): number {
  const fail = (why: string): never => { throw new FlagError('InvalidValue', why); };
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') fail(`invalid duration ${JSON.stringify(text)}`);
  const part = /(\d+\.?\d*|\.\d+)([^\d.]*)/y;
  let total = 0;
  while (part.lastIndex < rest.length) {
    const m = part.exec(rest);
    if (!m) return fail(`invalid duration ${JSON.stringify(text)}`);
    const [, amount, unit] = m;
    if (unit === '') fail(`missing unit in duration ${JSON.stringify(text)}`);
    if (!(unit in UNIT_MS)) fail(`unknown unit ${JSON.stringify(unit)} in duration ${JSON.stringify(text)}`);
    total += Number(amount) * UNIT_MS[unit];
  }
  return sign * Math.round(total * 1e6) / 1e6;
}

/** Go's Duration.String() (`5m0s`, `1h30m0s`, `500ms`, `0s`), for help defaults. */
const formatDuration = (ms: number): string => formatGoDuration(BigInt(Math.round(ms * 1_000_000)));

// ---- value kinds ----

const TRUE_WORDS = ['1', 't', 'T', 'TRUE', 'true', 'True'];
const FALSE_WORDS = ['0', 'f', 'F', 'FALSE', 'false', 'False'];

/** Go's strconv.ParseBool spellings. */
function parseBool(raw: string): boolean {
  if (TRUE_WORDS.includes(raw)) return true;
  if (FALSE_WORDS.includes(raw)) return false;
  throw new Error('must be a boolean (true or false)');
}

const text: ValueKind<string> = { type: 'string', parse: (raw) => raw, show: (v) => v };

const bool: ValueKind<boolean> = { type: 'bool', isBool: true, parse: parseBool, show: String };

function oneOf<T extends string>(allowed: readonly T[]): ValueKind<T> {
  return {
    type: 'string',
    parse(raw) {
      if (!(allowed as readonly string[]).includes(raw)) throw new Error(`must be one of ${allowed.join(', ')}`);
      return raw as T;
    },
    show: (v) => v,
  };
}

/** An int or float within [min, max] (Go's ParseInt / ParseFloat syntax, decimal only). */
function numeric(type: 'int' | 'float', min: number, max: number): ValueKind<number> {
  const syntax = type === 'int' ? /^[+-]?\d+$/ : /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
  const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `between ${min} and ${max}`;
  return {
    type,
    parse(raw) {
      const n = Number(raw);
      if (syntax.test(raw) && n >= min && n <= max) return n;
      throw new Error(`must be ${type === 'int' ? 'an integer' : 'a number'} ${range}`);
    },
    show: String,
  };
}
const int = (min: number, max: number) => numeric('int', min, max);
const float = (min: number, max: number) => numeric('float', min, max);

const duration: ValueKind<number> = {
  type: 'duration',
  parse(raw) {
    const ms = parseDuration(raw);
    if (ms < 0) throw new Error('must not be negative');
    return ms;
  },
  show: formatDuration,
};

/** Comma-separated; blanks around items and empty items are dropped; `allowed` limits the items. */
function list<T extends string = string>(allowed?: readonly T[]): ValueKind<T[]> {
  return {
    type: 'strings',
    parse(raw, previous) {
      const items = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
      const bad = allowed && items.find((s) => !(allowed as readonly string[]).includes(s));
      if (bad !== undefined) throw new Error(`${JSON.stringify(bad)} is not one of ${allowed!.join(', ')}`);
      return [...(previous ?? []), ...(items as T[])];
    },
    show: (v) => v.join(','),
  };
}

/** Repeatable, one value per use, commas kept (pflag's StringArray: issuers, key files). */
const stringArray: ValueKind<string[]> = {
  type: 'stringArray',
  parse: (raw, previous) => [...(previous ?? []), raw],
  show: (v) => v.join(','),
};

/** Optional text where unset differs from empty (`--oidc-username-prefix=""` is not unset). */
const optionalText: ValueKind<string | undefined> = { type: 'string', parse: (raw) => raw, show: (v) => v ?? '' };

/** Comma-separated `key=value` pairs, accumulating over repeats (pflag's mapStringString). */
const stringMap: ValueKind<Record<string, string>> = {
  type: 'mapStringString',
  parse(raw, previous) {
    const out = { ...(previous ?? {}) };
    for (const item of raw.split(',').map((x) => x.trim()).filter((x) => x !== '')) {
      const eq = item.indexOf('=');
      if (eq <= 0) throw new Error(`${JSON.stringify(item)} must be formatted as key=value`);
      out[item.slice(0, eq)] = item.slice(eq + 1);
    }
    return out;
  },
  show: (v) => Object.entries(v).map(([k, x]) => `${k}=${x}`).join(','),
};

/** Comma-separated `key=bool`; with `valueOptional`, a bare `key` means true (runtime-config). */
function boolMap(valueOptional: boolean): ValueKind<Record<string, boolean>> {
  return {
    type: 'mapStringBool',
    parse(raw, previous) {
      const entries: [string, boolean][] = [];
      for (const item of raw.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
        const eq = item.indexOf('=');
        const key = (eq < 0 ? item : item.slice(0, eq)).trim();
        if (key === '') throw new Error(`missing key in ${JSON.stringify(item)}`);
        if (eq < 0 && !valueOptional) throw new Error(`missing bool value for ${key}`);
        const value = item.slice(eq + 1).trim();
        try {
          entries.push([key, eq < 0 ? true : parseBool(value)]);
        } catch {
          // Kubernetes' words: runtime-config's (resourceconfig) and feature gates' (featuregate).
          const goError = `strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`;
          throw new Error(valueOptional ? `invalid value of ${key}: ${value}, err: ${goError}` : `invalid value of ${key}=${value}, err: ${goError}`);
        }
      }
      return Object.fromEntries([...Object.entries(previous ?? {}), ...entries]);
    },
    show: (v) => Object.entries(v).map(([k, b]) => `${k}=${b}`).join(','),
  };
}

// ---- checks on parsed values ----

const notEmpty = (v: string) => (v === '' ? 'must not be empty' : undefined);
const requiredIp = (v: string) => (isIP(v) ? undefined : 'must be an IP address');
/** Empty passes: the flag is optional. */
const mustBeIp = (v: string) => (v === '' ? undefined : requiredIp(v));

function mustBeHttpUrls(urls: string[]): string | undefined {
  for (const u of urls) {
    let url: URL | undefined;
    try { url = new URL(u); } catch { url = undefined; }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
      return `${JSON.stringify(u)} is not an http or https URL`;
    }
  }
  return undefined;
}

function mustBeIssuer(v: string): string | undefined {
  if (!v.includes(':')) return undefined;
  try { new URL(v); return undefined; } catch { return 'contains a ":" but is not a valid URL'; }
}

const mustBeIssuers = (vs: string[]) => vs.map((v) => (v === '' ? 'must not be empty' : mustBeIssuer(v))).find((x) => x);

/** Empty passes: the flag is optional. */
function mustBeHttpsUrl(v: string): string | undefined {
  if (v === '') return undefined;
  let url: URL | undefined;
  try { url = new URL(v); } catch { url = undefined; }
  if (!url || url.protocol !== 'https:') return 'must be an https URL';
  if (url.hash || url.search || url.username || url.password) return 'must not carry a query, fragment or user info';
  return undefined;
}

const noBlanks = (vs: string[]) => (vs.some((v) => v.trim() === '') ? 'must not hold empty names' : undefined);

function noRepeats(modes: string[]): string | undefined {
  if (modes.length === 0) return 'must name at least one mode';
  const twice = modes.find((m, i) => modes.indexOf(m) !== i);
  return twice === undefined ? undefined : `${twice} is listed more than once`;
}

// ---- the table ----

/** One table row; K ties the kind, default and check to the config field's type. */
function flag<K extends keyof ServerConfig>(
  name: string, key: K, kind: ValueKind<ServerConfig[K]>, dflt: ServerConfig[K], help: string,
  extra: Pick<FlagDef<K>, 'shorthand' | 'check'> = {},
): FlagDef<K> {
  return { name, key, kind, default: dflt, help, ...extra };
}

const INT_MAX = Number.MAX_SAFE_INTEGER;

/** Every flag the server accepts, in help order: name, config field, kind, default, help[, extra]. */
export const FLAGS: readonly FlagDef[] = [
  flag('help', 'help', bool, false, 'Print the flags and exit.', { shorthand: 'h' }),
  flag('data-dir', 'dataDir', text, './.data',
    'Directory for the PKI, admin.kubeconfig and the embedded etcd.', { check: notEmpty }),
  flag('flavor', 'flavor', oneOf<Flavor>(['orch', 'kubernetes']), 'orch',
    'Vendor names to serve: orch (orch.io groups) or kubernetes (k8s.io groups, for stock tools).'),
  flag('etcd-servers', 'etcdServers', list(), [],
    'Comma-separated etcd URLs; empty starts an embedded etcd under <data-dir>/etcd.', { check: mustBeHttpUrls }),
  flag('etcd-prefix', 'etcdPrefix', text, '/registry',
    'Key prefix of every object in etcd.', { check: (v) => (v.startsWith('/') ? undefined : 'must start with "/"') }),
  flag('etcd-cafile', 'etcdCafile', text, '', 'CA bundle that verifies the etcd servers.'),
  flag('etcd-certfile', 'etcdCertfile', text, '', 'Client certificate for etcd (with --etcd-keyfile).'),
  flag('etcd-keyfile', 'etcdKeyfile', text, '', 'Client key for etcd (with --etcd-certfile).'),
  flag('etcd-binary', 'etcdBinary', text, 'etcd', 'The etcd executable run when --etcd-servers is empty.'),
  flag('etcd-compaction-interval', 'etcdCompactionIntervalMs', duration, 300_000,
    'Interval between etcd compactions; 0 disables them.'),
  flag('storage-media-type', 'storageMediaType', oneOf(STORAGE_MEDIA_TYPES), 'application/json',
    'Encoding of objects stored in etcd.'),
  flag('watch-cache', 'watchCache', bool, true, 'Serve lists and watches from an in-memory cache of etcd.'),
  flag('etcd-count-metric-poll-period', 'etcdCountMetricPollPeriodMs', duration, 60_000,
    'Frequency of polling etcd for number of resources per type (without the watch cache). 0 disables the metric collection.'),
  flag('continue-token-ttl', 'continueTokenTtlMs', duration, 300_000,
    'Lifetime of list continue tokens; an older token is answered 410 Expired.'),
  flag('secure-port', 'securePort', int(0, 65535), 6443, 'HTTPS port; 0 picks a free port.'),
  flag('bind-address', 'bindAddress', text, '127.0.0.1',
    'IP address to listen on (0.0.0.0 or :: for all interfaces).', { check: requiredIp }),
  flag('advertise-address', 'advertiseAddress', text, '',
    'IP address advertised to clients; empty uses --bind-address.', { check: mustBeIp }),
  flag('external-hostname', 'externalHostname', text, '',
    'Host name used in generated URLs and the serving certificate.'),
  flag('tls-cert-file', 'tlsCertFile', text, '',
    'Serving certificate (PEM); empty generates one under <data-dir>/pki.'),
  flag('tls-private-key-file', 'tlsPrivateKeyFile', text, '', 'Key of --tls-cert-file (PEM).'),
  flag('client-ca-file', 'clientCaFile', text, '', 'CA bundle that verifies client certificates.'),
  flag('token-auth-file', 'tokenAuthFile', text, '', 'CSV of static bearer tokens: token,user,uid,"group1,group2".'),
  flag('anonymous-auth', 'anonymousAuth', bool, true, 'Treat requests without credentials as system:anonymous.'),
  flag('enable-bootstrap-token-auth', 'enableBootstrapTokenAuth', bool, false,
    'Accept bootstrap tokens from Secrets in the system namespace.'),
  flag('requestheader-username-headers', 'requestheaderUsernameHeaders', list(), [],
    'Headers naming the user behind an authenticating proxy (e.g. X-Remote-User); the first with a value wins.', { check: noBlanks }),
  flag('requestheader-group-headers', 'requestheaderGroupHeaders', list(), [],
    'Headers whose every value is a group of the proxied user (e.g. X-Remote-Group).', { check: noBlanks }),
  flag('requestheader-extra-headers-prefix', 'requestheaderExtraHeadersPrefix', list(), [],
    'Header prefixes (e.g. X-Remote-Extra-) whose headers are extra attributes of the proxied user.', { check: noBlanks }),
  flag('requestheader-client-ca-file', 'requestheaderClientCaFile', text, '',
    'CA bundle a proxy\'s client certificate must chain to before its user headers are trusted.'),
  flag('requestheader-allowed-names', 'requestheaderAllowedNames', list(), [],
    'Common names allowed for proxy certificates; empty allows any certificate of the proxy CA.', { check: noBlanks }),
  flag('oidc-issuer-url', 'oidcIssuerUrl', text, '', 'OpenID Connect issuer (https); enables ID-token authentication.', { check: mustBeHttpsUrl }),
  flag('oidc-client-id', 'oidcClientId', text, '', 'Client ID every ID token must be issued to (its aud).'),
  flag('oidc-username-claim', 'oidcUsernameClaim', text, 'sub', 'Claim used as the user name.', { check: notEmpty }),
  flag('oidc-username-prefix', 'oidcUsernamePrefix', optionalText, undefined,
    'Prefix of OIDC user names; "-" for none. Unset: the issuer URL and "#", unless the claim is email.'),
  flag('oidc-groups-claim', 'oidcGroupsClaim', text, '', 'Claim (a string or a list of strings) used as groups.'),
  flag('oidc-groups-prefix', 'oidcGroupsPrefix', text, '', 'Prefix of OIDC group names.'),
  flag('oidc-required-claim', 'oidcRequiredClaim', stringMap, {}, 'key=value claims every ID token must carry; repeatable.'),
  flag('oidc-ca-file', 'oidcCaFile', text, '', 'CA bundle of the OIDC issuer\'s serving certificate; empty: the system roots.'),
  flag('oidc-signing-algs', 'oidcSigningAlgs', list(['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512']), ['RS256'],
    'JOSE algorithms accepted for ID-token signatures.'),
  flag('authentication-token-webhook-config-file', 'authenticationTokenWebhookConfigFile', text, '',
    'Kubeconfig-format file of a remote service that authenticates bearer tokens by TokenReview.'),
  flag('authentication-token-webhook-version', 'authenticationTokenWebhookVersion', oneOf<'v1' | 'v1beta1'>(['v1', 'v1beta1']), 'v1beta1',
    'TokenReview version sent to the token webhook.'),
  flag('authentication-token-webhook-cache-ttl', 'authenticationTokenWebhookCacheTtlMs', duration, 120_000,
    'How long the token webhook\'s answers (yes and no) are cached.'),
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
  flag('service-account-issuer', 'serviceAccountIssuer', stringArray, [],
    'Issuer (iss) of service account tokens; repeatable: the first signs, all are accepted. Empty: the flavor\'s default.', { check: mustBeIssuers }),
  flag('service-account-key-file', 'serviceAccountKeyFile', stringArray, [],
    'PEM file of RSA or EC keys (public, private or certificates) that verify service account tokens; repeatable.'),
  flag('service-account-signing-key-file', 'serviceAccountSigningKeyFile', text, '',
    'PEM private key (RSA or EC) that signs service account tokens; empty: a key generated under <data-dir>/pki.'),
  flag('service-account-jwks-uri', 'serviceAccountJwksUri', text, '',
    'jwks_uri of the issuer discovery document; empty: this server\'s URL + /openid/v1/jwks.', { check: mustBeHttpsUrl }),
  flag('service-account-max-token-expiration', 'serviceAccountMaxTokenExpirationMs', duration, 0,
    'Longest lifetime a token request may get; 0 means no limit.'),
  flag('service-account-lookup', 'serviceAccountLookup', bool, true,
    'Check legacy (Secret) tokens against their Secret and service account; bound tokens are always checked.'),
  flag('api-audiences', 'apiAudiences', list(), [],
    'Audiences this server accepts tokens for; empty: the service-account issuers.'),
  flag('root-ca-file', 'rootCaFile', text, '',
    'CA bundle published as ca.crt to every namespace and token Secret; empty: the generated CA.'),
  flag('cluster-signing-cert-file', 'clusterSigningCertFile', text, '',
    'PEM CA certificate of the built-in CSR signers; empty: the generated CA (with --cluster-signing-key-file).'),
  flag('cluster-signing-key-file', 'clusterSigningKeyFile', text, '',
    'PEM private key (RSA or EC) of --cluster-signing-cert-file.'),
  flag('cluster-signing-duration', 'clusterSigningDurationMs', duration, 8_760 * 3_600_000,
    'Longest lifetime of a certificate the built-in signers issue (spec.expirationSeconds may ask for less).', { check: (ms: number) => (ms > 0 ? undefined : 'must be positive') }),
  flag('controllers', 'controllers', list(), ['*'],
    'Controllers to run: "*" all on by default, "name" one more, "-name" one less (namespace, garbagecollector, '
    + 'ephemeral-volume, serviceaccount, serviceaccount-token, root-ca-cert-publisher, clusterrole-aggregation, '
    + 'pvc-protection, pv-protection, csrsigning, csrapproving, csrcleaner; off by default: tokencleaner, bootstrapsigner).',
    { check: checkControllerEntries }),
  flag('leader-elect', 'leaderElect', bool, true,
    'Run the controllers only in the replica that holds the controller-manager Lease (leader election).'),
  flag('leader-elect-lease-duration', 'leaderElectLeaseDurationMs', duration, 15_000,
    'How long other replicas wait, after the last renewal they saw, before taking the lease.'),
  flag('leader-elect-renew-deadline', 'leaderElectRenewDeadlineMs', duration, 10_000,
    'How long the leader keeps trying to renew before it stops its controllers; less than the lease duration.'),
  flag('leader-elect-retry-period', 'leaderElectRetryPeriodMs', duration, 2_000,
    'Interval between tries to acquire or renew the lease.'),
  flag('runtime-config', 'runtimeConfig', boolMap(true), {},
    'A set of key=value pairs that enable or disable built-in APIs. Supported options are:\n'
    + 'v1=true|false for the core API group\n'
    + '<group>/<version>=true|false for a specific API group and version (e.g. storage.orch.io/v1=true)\n'
    + '<group>/<version>/<resource>=true|false for a single resource\n'
    + 'api/all=true|false controls all API versions\n'
    + 'api/ga=true|false controls all API versions of the form v[0-9]+\n'
    + 'api/beta=true|false controls all API versions of the form v[0-9]+beta[0-9]+\n'
    + 'api/alpha=true|false controls all API versions of the form v[0-9]+alpha[0-9]+\n'
    + 'api/legacy is deprecated, and will be removed in a future version'),
  flag('feature-gates', 'featureGates', boolMap(false), {}, featureGatesHelp()),
  flag('audit-log-path', 'auditLogPath', text, '', 'If set, all requests coming to the apiserver will be logged to this file.  \'-\' means standard out.'),
  flag('audit-log-maxage', 'auditLogMaxage', int(0, INT_MAX), 366,
    'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename. 0: not removed by age.'),
  flag('audit-log-maxbackup', 'auditLogMaxbackup', int(0, INT_MAX), 100, 'The maximum number of old audit log files to retain. 0: no limit.'),
  flag('audit-log-maxsize', 'auditLogMaxsize', int(0, INT_MAX), 100,
    'The maximum size in megabytes of the audit log file before it gets rotated. 0 disables rotation.'),
  flag('audit-log-format', 'auditLogFormat', oneOf<'json' | 'legacy'>(['legacy', 'json']), 'json',
    'Format of saved audits: "legacy" (1-line text) or "json" (one Event per line).'),
  flag('audit-log-mode', 'auditLogMode', oneOf<'blocking' | 'blocking-strict' | 'batch'>(['batch', 'blocking', 'blocking-strict']), 'blocking',
    'Strategy for sending audit events to the log: batch (buffered, asynchronous), blocking or blocking-strict.'),
  flag('audit-log-compress', 'auditLogCompress', bool, false, 'If set, the rotated log files will be compressed using gzip.'),
  flag('audit-policy-file', 'auditPolicyFile', text, '', 'Path to the file that defines the audit policy configuration.'),
  // The batch flags of the log and the webhook, as kube-apiserver's (values checked in checkCombinations).
  flag('audit-log-batch-buffer-size', 'auditLogBatchBufferSize', int(-INT_MAX, INT_MAX), 10000,
    'The size of the buffer to store events before batching and writing. Only used in batch mode.'),
  flag('audit-log-batch-max-size', 'auditLogBatchMaxSize', int(-INT_MAX, INT_MAX), 1, 'The maximum size of a batch. Only used in batch mode.'),
  flag('audit-log-batch-max-wait', 'auditLogBatchMaxWaitMs', duration, 0,
    'The amount of time to wait before force writing the batch that hadn\'t reached the max size. Only used in batch mode.'),
  flag('audit-log-batch-throttle-enable', 'auditLogBatchThrottleEnable', bool, false, 'Whether batching throttling is enabled. Only used in batch mode.'),
  flag('audit-log-batch-throttle-qps', 'auditLogBatchThrottleQps', float(-INT_MAX, INT_MAX), 0,
    'Maximum average number of batches per second. Only used in batch mode.'),
  flag('audit-log-batch-throttle-burst', 'auditLogBatchThrottleBurst', int(-INT_MAX, INT_MAX), 0,
    'Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. Only used in batch mode.'),
  flag('audit-webhook-config-file', 'auditWebhookConfigFile', text, '',
    'Path to a kubeconfig formatted file that defines the audit webhook configuration.'),
  flag('audit-webhook-mode', 'auditWebhookMode', text, 'batch',
    'Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are batch,blocking,blocking-strict.'),
  flag('audit-webhook-batch-buffer-size', 'auditWebhookBatchBufferSize', int(-INT_MAX, INT_MAX), 10000,
    'The size of the buffer to store events before batching and writing. Only used in batch mode.'),
  flag('audit-webhook-batch-max-size', 'auditWebhookBatchMaxSize', int(-INT_MAX, INT_MAX), 400, 'The maximum size of a batch. Only used in batch mode.'),
  flag('audit-webhook-batch-max-wait', 'auditWebhookBatchMaxWaitMs', duration, 30_000,
    'The amount of time to wait before force writing the batch that hadn\'t reached the max size. Only used in batch mode.'),
  flag('audit-webhook-batch-throttle-enable', 'auditWebhookBatchThrottleEnable', bool, true, 'Whether batching throttling is enabled. Only used in batch mode.'),
  flag('audit-webhook-batch-throttle-qps', 'auditWebhookBatchThrottleQps', float(-INT_MAX, INT_MAX), 10,
    'Maximum average number of batches per second. Only used in batch mode.'),
  flag('audit-webhook-batch-throttle-burst', 'auditWebhookBatchThrottleBurst', int(-INT_MAX, INT_MAX), 15,
    'Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. Only used in batch mode.'),
  flag('audit-webhook-initial-backoff', 'auditWebhookInitialBackoffMs', duration, 10_000,
    'The amount of time to wait before retrying the first failed request.'),
  flag('audit-webhook-version', 'auditWebhookVersion', text, 'audit.k8s.io/v1',
    'API group and version used for serializing audit events written to webhook.'),
  flag('max-requests-inflight', 'maxRequestsInflight', int(0, INT_MAX), 400,
    'Concurrent non-mutating requests; 0 is unlimited.'),
  flag('max-mutating-requests-inflight', 'maxMutatingRequestsInflight', int(0, INT_MAX), 200,
    'Concurrent mutating requests; 0 is unlimited.'),
  flag('enable-priority-and-fairness', 'enablePriorityAndFairness', bool, true,
    'Use API priority and fairness instead of the plain in-flight limits.'),
  flag('request-timeout', 'requestTimeoutMs', duration, 60_000, 'Time limit of a non-long-running request.'),
  flag('min-request-timeout', 'minRequestTimeout', int(0, INT_MAX), 1800,
    'Seconds; a watch times out after a random time between this and twice this.'),
  flag('livez-grace-period', 'livezGracePeriodMs', duration, 0,
    'Time after start during which /livez reports healthy regardless.'),
  flag('shutdown-delay-duration', 'shutdownDelayDurationMs', duration, 0,
    'Keep serving for this long after SIGTERM while /readyz fails.'),
  flag('shutdown-watch-termination-grace-period', 'shutdownWatchTerminationGracePeriodMs', duration, 0,
    'At shutdown, how long ended watches may take to reach their clients before their streams are cut (0: the 10s drain timeout).'),
  flag('cors-allowed-origins', 'corsAllowedOrigins', list(), [],
    'Regular expressions of allowed CORS origins; empty disables CORS.'),
  flag('goaway-chance', 'goawayChance', float(0, 0.02), 0,
    'To prevent HTTP/2 clients from getting stuck on a single apiserver, randomly close a connection (GOAWAY). The client\'s other in-flight requests won\'t be affected, and the client will reconnect, likely landing on a different apiserver after going through the load balancer again. This argument sets the fraction of requests that will be sent a GOAWAY. Min is 0 (off), Max is .02 (1/50 requests); .001 (1/1000) is a recommended starting point.'),
  flag('profiling', 'profiling', bool, true, 'Serve profiling endpoints under /debug.'),
  flag('show-hidden-metrics-for-version', 'showHiddenMetricsForVersion', text, '',
    'The previous minor version (e.g. 1.31) whose hidden metrics /metrics shows again; only the previous minor version is accepted.',
    { check: showHiddenVersionProblem }),
  flag('v', 'v', int(0, 10), 0, 'Log verbosity (0-10).', { shorthand: 'v' }),
  flag('log-level', 'logLevel', oneOf(LOG_LEVELS), 'info', 'Lowest log level written.'),
  // --- B: etcd client ---
  flag('etcd-client', 'etcdClient', oneOf(ETCD_CLIENTS), 'lean',
    'The etcd client library: lean (written here: HTTP/2 and protobuf by hand, the least CPU per request) or etcd3 (the etcd3 npm package on grpc-js). Both run the same storage layer.'),
  // --- A: etcd client fail-over ---
  flag('etcd-keepalive-interval', 'etcdKeepaliveIntervalMs', duration, 1_000,
    'Interval of the liveness probe on an idle connection to etcd (a serializable Range with hasleader: etcd refuses HTTP/2 PINGs closer than 5 s); an unanswered one moves to the next --etcd-servers member. 0 disables it.'),
  flag('etcd-keepalive-timeout', 'etcdKeepaliveTimeoutMs', duration, 1_000,
    'How long the etcd liveness probe may go unanswered before the connection is dropped.',
    { check: (v) => (v > 0 ? undefined : 'must be greater than 0') }),
  flag('event-ttl', 'eventTtlMs', duration, 3_600_000,
    'Amount of time to retain events. Whole seconds; 0 keeps them until deleted.',
    { check: (v) => (v >= 0 ? undefined : 'must be greater than or equal to 0') }),
  flag('etcd-healthcheck-timeout', 'etcdHealthcheckTimeoutMs', duration, 2_000,
    'The timeout to use when checking etcd health (the etcd check of /healthz, /livez and /readyz). etcd is probed at most every half of it; checks in between give the newest probe\'s outcome.',
    { check: (v) => (v > 0 ? undefined : 'must be greater than 0') }),
  flag('etcd-readycheck-timeout', 'etcdReadycheckTimeoutMs', duration, 2_000,
    'The timeout to use when checking etcd readiness (the etcd-readiness check of /readyz), probed at most every half of it.',
    { check: (v) => (v > 0 ? undefined : 'must be greater than 0') }),
  // --- E: encryption at rest ---
  flag('encryption-provider-config', 'encryptionProviderConfig', text, '',
    'The file containing configuration for encryption providers to be used for storing secrets in etcd (EncryptionConfiguration, apiserver.config.orch.io/v1).'),
  flag('encryption-provider-config-automatic-reload', 'encryptionProviderConfigAutomaticReload', bool, false,
    'Determines if the file set by --encryption-provider-config should be automatically reloaded if the disk contents change.'),
  flag('encryption-provider-config-reload-interval', 'encryptionProviderConfigReloadIntervalMs', duration, 60_000,
    'How often the file of --encryption-provider-config is checked for changes with automatic reload.'),
  // --- C1: overload and listener limits ---
  flag('max-inflight-exempt-masters', 'maxInflightExemptMasters', bool, true,
    'Serve members of system:masters past --max-requests-inflight and --max-mutating-requests-inflight, as kube-apiserver does.'),
  flag('workers', 'workers', int(1, 64), 1,
    'Server processes, each with its own etcd client and watch caches. Above 1, the first runs the controllers and compaction and takes no connections, and the others share the listening port and the in-flight limits. Not a kube-apiserver flag.'),
  flag('http2-max-streams-per-connection', 'http2MaxStreamsPerConnection', int(0, INT_MAX), 0,
    'The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means 1000.'),
  flag('http2-server', 'http2Server', oneOf(HTTP2_SERVERS), 'own',
    'The HTTP/2 server side: node (node:http2) or own (written here on the etcd client\'s frame and HPACK code, less CPU per request). With node, HTTP/1.1 is node:http2\'s fallback (node:http) whatever --http1-server says. Not a kube-apiserver flag.'),
  flag('http1-server', 'http1Server', oneOf(HTTP1_SERVERS), 'own',
    'The HTTP/1.1 server side beside --http2-server=own: node (node:http) or own (lib/http1, less CPU per request). Not a kube-apiserver flag.'),
  // --- F: TLS ---
  flag('tls-min-version', 'tlsMinVersion', text, '',
    `Minimum TLS version supported. Possible values: ${TLS_VERSION_NAMES.join(', ')}`, { check: tlsVersionProblem }),
  flag('tls-cipher-suites', 'tlsCipherSuites', list(), [],
    'Comma-separated list of cipher suites (Go names) for TLS 1.0-1.2; TLS 1.3 suites are always enabled. If omitted, the default suites are used. '
    + `Values: ${Object.keys(GO_CIPHER_SUITES).join(', ')}.`, { check: cipherSuitesProblem }),
];

const BY_NAME = new Map(FLAGS.map((f) => [f.name, f]));
const BY_SHORTHAND = new Map(FLAGS.filter((f) => f.shorthand).map((f) => [f.shorthand!, f]));

// ---- parsing ----

function parseValue(f: FlagDef, raw: string, previous: unknown): unknown {
  const kind = f.kind as ValueKind<unknown>;
  let reason: string | undefined;
  let value: unknown;
  try {
    value = kind.parse(raw, previous);
    reason = f.check?.(value as never);
  } catch (err) {
    reason = (err as Error).message;
  }
  if (reason !== undefined) {
    throw new FlagError('InvalidValue', `invalid value ${JSON.stringify(raw)} for --${f.name}: ${reason}`, f.name);
  }
  return value;
}

function unexpected(arg: string): FlagError {
  return new FlagError('UnexpectedArgument',
    `unexpected argument ${JSON.stringify(arg)}: only flags are accepted (booleans take --flag=false)`);
}

/** Rules between flags, checked on the complete config. */
function checkCombinations(c: ServerConfig): void {
  const pair = (a: string, av: string, b: string, bv: string) => {
    if ((av === '') !== (bv === '')) {
      throw new FlagError('IncompatibleFlags', `--${a} and --${b} must be given together`, av === '' ? a : b);
    }
  };
  pair('tls-cert-file', c.tlsCertFile, 'tls-private-key-file', c.tlsPrivateKeyFile);
  pair('etcd-certfile', c.etcdCertfile, 'etcd-keyfile', c.etcdKeyfile);
  pair('oidc-issuer-url', c.oidcIssuerUrl, 'oidc-client-id', c.oidcClientId);
  pair('cluster-signing-cert-file', c.clusterSigningCertFile, 'cluster-signing-key-file', c.clusterSigningKeyFile);
  if (c.requestheaderClientCaFile !== '' && !c.requestheaderUsernameHeaders.length) {
    throw new FlagError('IncompatibleFlags', '--requestheader-client-ca-file needs --requestheader-username-headers', 'requestheader-username-headers');
  }
  if (c.requestheaderClientCaFile === '' && (c.requestheaderUsernameHeaders.length || c.requestheaderGroupHeaders.length
    || c.requestheaderExtraHeadersPrefix.length || c.requestheaderAllowedNames.length)) {
    throw new FlagError('IncompatibleFlags', '--requestheader-* headers are trusted only with --requestheader-client-ca-file', 'requestheader-client-ca-file');
  }
  // As kube-apiserver: a mode's file without the mode, or the mode without its file, is a mistake.
  const modeFile = (mode: AuthorizationMode, name: string, value: string) => {
    if (c.authorizationMode.includes(mode) && value === '') {
      throw new FlagError('IncompatibleFlags', `--authorization-mode ${mode} needs --${name}`, name);
    }
    if (!c.authorizationMode.includes(mode) && value !== '') {
      throw new FlagError('IncompatibleFlags', `--${name} needs ${mode} in --authorization-mode`, 'authorization-mode');
    }
  };
  modeFile('Webhook', 'authorization-webhook-config-file', c.authorizationWebhookConfigFile);
  modeFile('ABAC', 'authorization-policy-file', c.authorizationPolicyFile);
  const audit = auditBackendFlagsProblem(c);
  if (audit) throw new FlagError('InvalidValue', audit.message, audit.flag);
  const election = leaderElectionTimesProblem(c.leaderElectLeaseDurationMs, c.leaderElectRenewDeadlineMs, c.leaderElectRetryPeriodMs);
  if (c.leaderElect && election) throw new FlagError('IncompatibleFlags', `--leader-elect-*: ${election}`, 'leader-elect-lease-duration');
  const unknownPlugin = unknownPluginError(c.enableAdmissionPlugins, c.disableAdmissionPlugins);
  if (unknownPlugin) throw new FlagError('InvalidValue', unknownPlugin, unknownPlugin.startsWith('enable') ? 'enable-admission-plugins' : 'disable-admission-plugins');
  const both = c.enableAdmissionPlugins.filter((p) => c.disableAdmissionPlugins.includes(p));
  if (both.length) {
    // kube-apiserver's sentence, with Go's %v of the list.
    throw new FlagError('IncompatibleFlags',
      `[${both.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`,
      'enable-admission-plugins');
  }
}

/**
 * Parses `argv` (without node and the script) into a complete ServerConfig: every flag not
 * given gets its default. Throws FlagError with a one-line message on an unknown flag, a
 * missing or invalid value, a positional argument, or a broken rule between flags (those
 * rules are skipped when `--help` is given, so help always prints).
 */
export function parseFlags(argv: string[]): ServerConfig {
  const given = new Map<string, unknown>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      if (i + 1 < argv.length) throw unexpected(argv[i + 1]);
      break;
    }
    if (!arg.startsWith('-') || arg === '-') throw unexpected(arg);
    const long = arg.startsWith('--');
    const body = arg.slice(long ? 2 : 1);
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    const f = long ? BY_NAME.get(name) : BY_SHORTHAND.get(name);
    if (!f) {
      const shown = /^[\w.-]*$/.test(name) ? name : JSON.stringify(name); // keep the message on one line
      throw new FlagError('UnknownFlag', `unknown flag: ${long ? '--' : '-'}${shown}`, name);
    }
    let raw: string;
    if (eq >= 0) raw = body.slice(eq + 1);
    else if (f.kind.isBool) raw = 'true';
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) raw = argv[++i];
    else throw new FlagError('MissingValue', `flag needs an argument: --${f.name}`, f.name);
    given.set(f.key, parseValue(f, raw, given.get(f.key)));
  }
  const config: Record<string, unknown> = {};
  for (const f of FLAGS) config[f.key] = given.has(f.key) ? given.get(f.key) : structuredClone(f.default);
  const result = config as unknown as ServerConfig;
  if (!result.help) checkCombinations(result);
  return result;
}

/** Usage text: one line per flag with its type, meaning and (non-empty) default. */
export function helpText(): string {
  const left = FLAGS.map((f) => {
    const names = `${f.shorthand ? `-${f.shorthand}, ` : '    '}--${f.name}`;
    return f.kind.isBool ? names : `${names} ${f.kind.type}`;
  });
  const width = Math.max(...left.map((l) => l.length));
  const lines = FLAGS.map((f, i) => {
    const shown = (f.kind as ValueKind<unknown>).show(f.default);
    const zero = ['', 'false', '0', '0s'].includes(shown);
    const dflt = zero ? '' : ` (default ${f.kind.type === 'string' ? JSON.stringify(shown) : shown})`;
    // A multi-line help (runtime-config, feature-gates) continues under its first line, as pflag prints it.
    const help = f.help.replaceAll('\n', `\n${' '.repeat(width + 5)}`);
    return `  ${left[i].padEnd(width)}   ${help}${dflt}`;
  });
  return ['Usage: orch-apiserver [flags]', '', 'Flags:', ...lines, ''].join('\n');
}
