/**
 * kube-apiserver 1.32's command line beyond what the areas of lib/ act on: the flags accepted
 * without effect here (each with why), the flags later releases removed (refused as pflag refuses
 * an unknown flag, unless --emulated-version names a release that still had them), --emulated-version
 * itself, and the sections `--help` groups the flags in, as kube-apiserver's named flag sets do.
 * test/data/kube-apiserver-1.32-flags.txt is the list this is checked against.
 */
import { bool, duration, flag, int, INT_MAX, list, stringArray, stringMap, text, type FlagDef, type ValueKind } from '../flag-definitions';

/** The release this server answers as, and the oldest one --emulated-version takes. */
export const BINARY_MINOR = 32;
export const OLDEST_EMULATED_MINOR = 20;

/** The end of the help of every flag accepted without effect; lib/server/flags.ts's warning quotes the rest. */
export const WITHOUT_EFFECT = 'Accepted so that kube-apiserver command lines start; giving it logs a warning.';

/**
 * A flag kept in ServerConfig.kubeFlagsWithoutEffect under its own name: every such flag shares that
 * one field, each parsed with the value kind kube-apiserver gives it, so a bad value is refused as
 * there. `shown` is the default --help prints.
 */
function kept(name: string, base: ValueKind<unknown>, shown: string): ValueKind<Record<string, unknown>> {
  return {
    type: base.type,
    isBool: base.isBool,
    parse(raw, previous) {
      return { ...(previous ?? {}), [name]: base.parse(raw, previous?.[name]) };
    },
    show: () => shown,
  };
}

/** One flag accepted without effect: its kube value kind and default, and why it has no effect here. */
function withoutEffect(name: string, base: ValueKind<unknown>, shown: string, why: string): FlagDef<'kubeFlagsWithoutEffect'> {
  return flag(name, 'kubeFlagsWithoutEffect', kept(name, base, shown), {}, `Without effect here: ${why} ${WITHOUT_EFFECT}`, { withoutEffect: true });
}

const anyInt = int(-INT_MAX, INT_MAX);
const count = int(0, INT_MAX);

/** kube-apiserver 1.32 flags nothing here acts on, in no particular order (--help sorts them into sections). */
export const KUBE_FLAGS_WITHOUT_EFFECT: readonly FlagDef[] = [
  // Generic
  withoutEffect('shutdown-send-retry-after', bool, 'false', 'the drain always answers new requests until the listener closes (no Retry-After 429 phase).'),
  withoutEffect('storage-initialization-timeout', duration, '1m0s', 'the storage is ready when etcd answers; there is no separate initialization wait.'),
  withoutEffect('strict-transport-security-directives', list(), '', 'no Strict-Transport-Security header is served.'),
  // Etcd
  withoutEffect('delete-collection-workers', count, '1', 'deletecollection deletes in one pass of its own.'),
  withoutEffect('enable-garbage-collector', bool, 'true', 'the garbage collector runs with the controllers (--controllers), not with this flag.'),
  withoutEffect('etcd-db-metric-poll-interval', duration, '30s', 'the etcd database size metric is not collected.'),
  withoutEffect('etcd-servers-overrides', list(), '', 'every resource is stored in the --etcd-servers cluster.'),
  withoutEffect('lease-reuse-duration-seconds', count, '60', 'the TTL writes share leases by their own window (see --event-ttl).'),
  withoutEffect('storage-backend', text, '', 'etcd3 is the only storage backend.'),
  withoutEffect('watch-cache-sizes', list(), '', 'the watch cache sizes itself per resource.'),
  // Secure serving
  withoutEffect('disable-http2-serving', bool, 'false', 'HTTP/2 is always offered by ALPN; see --http2-server.'),
  withoutEffect('permit-address-sharing', bool, 'false', 'the listener is opened by Node.js, which sets SO_REUSEADDR itself.'),
  withoutEffect('permit-port-sharing', bool, 'false', 'SO_REUSEPORT is not set; --workers shares the port between processes instead.'),
  withoutEffect('tls-sni-cert-key', stringArray, '[]', 'one serving pair is served for every server name.'),
  // Auditing
  withoutEffect('audit-log-truncate-enabled', bool, 'false', 'audit events are written whole.'),
  withoutEffect('audit-log-truncate-max-batch-size', count, '10485760', 'audit events are written whole.'),
  withoutEffect('audit-log-truncate-max-event-size', count, '102400', 'audit events are written whole.'),
  withoutEffect('audit-log-version', text, 'audit.k8s.io/v1', 'the log backend writes audit.k8s.io/v1 events.'),
  withoutEffect('audit-webhook-truncate-enabled', bool, 'false', 'audit events are sent whole.'),
  withoutEffect('audit-webhook-truncate-max-batch-size', count, '10485760', 'audit events are sent whole.'),
  withoutEffect('audit-webhook-truncate-max-event-size', count, '102400', 'audit events are sent whole.'),
  // Features
  withoutEffect('contention-profiling', bool, 'false', 'Go\'s block profiling does not exist in Node.js, and nothing is served under /debug.'),
  withoutEffect('debug-socket-path', text, '', 'nothing is served under /debug.'),
  // Authentication
  withoutEffect('requestheader-uid-headers', list(), '', 'the authenticating proxy\'s user is read from the username, group and extra headers only.'),
  withoutEffect('service-account-extend-token-expiration', bool, 'true', 'TokenRequest issues the lifetime asked for (capped by --service-account-max-token-expiration).'),
  // Egress selector, admission, metrics, traces
  withoutEffect('egress-selector-config-file', text, '', 'connections to kubelets, webhooks and etcd are dialled directly (no Konnectivity proxy).'),
  withoutEffect('admission-control', list(), '', 'kube-apiserver deprecated it for --enable-admission-plugins and --disable-admission-plugins, which are in effect here.'),
  withoutEffect('allow-metric-labels', stringMap, '[]', 'metric label values are not filtered.'),
  withoutEffect('allow-metric-labels-manifest', text, '', 'metric label values are not filtered.'),
  withoutEffect('disabled-metrics', list(), '', 'every metric is registered.'),
  withoutEffect('tracing-config-file', text, '', 'no OpenTelemetry traces are exported.'),
  // Logs: the logger is lib/logger.ts (winston): --log-level, -v and --logging-format are honoured.
  withoutEffect('log-flush-frequency', duration, '5s', 'log lines are written as they come.'),
  withoutEffect('log-json-info-buffer-size', text, '0', 'log lines are written as they come.'),
  withoutEffect('log-json-split-stream', bool, 'false', 'every log line goes to one stream.'),
  withoutEffect('log-text-info-buffer-size', text, '0', 'log lines are written as they come.'),
  withoutEffect('log-text-split-stream', bool, 'false', 'every log line goes to one stream.'),
  withoutEffect('vmodule', text, '', 'verbosity is not set per file: -v sets it for the whole process.'),
  // Misc
  withoutEffect('apiserver-count', count, '1', 'the kubernetes Service\'s endpoints follow --endpoint-reconciler-type (lease), not a count.'),
  withoutEffect('enable-logs-handler', bool, 'true', 'nothing is served under /logs.'),
  withoutEffect('kubernetes-service-node-port', count, '0', 'the kubernetes Service is always of type ClusterIP.'),
  withoutEffect('max-connection-bytes-per-sec', anyInt, '0', 'connections are not throttled by bytes.'),
  withoutEffect('peer-advertise-ip', text, '', 'there is no mixed-version proxy between API servers.'),
  withoutEffect('peer-advertise-port', text, '', 'there is no mixed-version proxy between API servers.'),
  withoutEffect('peer-ca-file', text, '', 'there is no mixed-version proxy between API servers.'),
  withoutEffect('service-account-signing-endpoint', text, '', 'service-account tokens are signed with --service-account-signing-key-file (no external signer).'),
  withoutEffect('kubelet-port', count, '10250', 'kube-apiserver deprecated it: kubelet ports come from each Node\'s status.'),
  withoutEffect('kubelet-read-only-port', count, '10255', 'kube-apiserver deprecated it: kubelet ports come from each Node\'s status.'),
  // Cloud provider: no cloud is integrated here (kube-apiserver 1.32 takes only "external" or nothing).
  withoutEffect('cloud-config', text, '', 'no cloud provider is integrated here.'),
  withoutEffect('cloud-provider', text, '', 'no cloud provider is integrated here.'),
];

// ---- --emulated-version ----

/**
 * Reads --emulated-version: `1.N` or `kube=1.N` (kube-apiserver's `component=version` list, where
 * only the kube component exists here), N from 20 to 32. Returns the minor, or throws Error(reason).
 */
export function parseEmulatedVersion(items: readonly string[]): number | undefined {
  let minor: number | undefined;
  for (const item of items) {
    const eq = item.indexOf('=');
    const component = eq < 0 ? 'kube' : item.slice(0, eq).trim();
    const version = (eq < 0 ? item : item.slice(eq + 1)).trim();
    if (component !== 'kube') throw new Error(`component not registered: ${component}`);
    const m = /^v?1\.(\d+)(?:\.0)?$/.exec(version);
    if (!m) throw new Error(`could not parse "${version}" as version (expected major.minor, e.g. 1.31)`);
    const n = Number(m[1]);
    if (n < OLDEST_EMULATED_MINOR || n > BINARY_MINOR) {
      throw new Error(`emulation version 1.${n} is not between [1.${OLDEST_EMULATED_MINOR}, 1.${BINARY_MINOR}]`);
    }
    minor = n;
  }
  return minor;
}

/** --emulated-version's row: the minor is kept in ServerConfig.emulatedVersion ('' when not given: 1.32). */
export const EMULATED_VERSION_FLAG: FlagDef<'emulatedVersion'> = flag('emulated-version', 'emulatedVersion', {
  type: 'strings',
  parse(raw) {
    const items = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
    const minor = parseEmulatedVersion(items);
    return minor === undefined ? '' : `1.${minor}`;
  },
  show: (v) => v,
}, '',
'The versions different components emulate their capabilities (APIs, features, ...) of. If set, the component emulates the '
+ 'behavior of this version instead of the underlying binary version. Version format is major.minor, e.g. \'--emulated-version=kube=1.31\'. '
+ `Options are: kube=1.${OLDEST_EMULATED_MINOR}..1.${BINARY_MINOR} (default=1.${BINARY_MINOR}) (kube-apiserver 1.${BINARY_MINOR} takes 1.31..1.32). `
+ 'If the component is not specified, defaults to "kube". The API versions served by default (those a later release removed included), '
+ '/version and deprecation warnings are the emulated release\'s (docs/emulated-version.md); flags a later release removed are accepted, '
+ 'with a warning, when the emulated release had them.');

/** The minor release the command line asks to be (--emulated-version, else 1.32). */
export function emulatedMinor(emulatedVersion: string): number {
  return emulatedVersion === '' ? BINARY_MINOR : Number(emulatedVersion.slice(2));
}

// ---- flags removed before 1.32 ----

/**
 * Flags that releases from 1.20 on had and later ones removed: the last minor that had each, and
 * whether it is a boolean (a bare `--flag` takes no value). 1.32 refuses them as unknown flags;
 * under --emulated-version=1.N with N at most that minor they are accepted without effect.
 */
export interface RemovedFlag { lastMinor: number; isBool: boolean }
export const REMOVED_FLAGS: ReadonlyMap<string, RemovedFlag> = new Map<string, RemovedFlag>([
  // The insecure port (removed in 1.24).
  ['insecure-port', { lastMinor: 23, isBool: false }],
  ['insecure-bind-address', { lastMinor: 23, isBool: false }],
  ['port', { lastMinor: 23, isBool: false }],
  ['address', { lastMinor: 23, isBool: false }],
  ['target-ram-mb', { lastMinor: 23, isBool: false }],
  ['service-account-api-audiences', { lastMinor: 24, isBool: false }],
  // klog's flags (removed in 1.26).
  ...['log-dir', 'log-file', 'log-file-max-size', 'log-backtrace-at', 'stderrthreshold'].map((n): [string, RemovedFlag] => [n, { lastMinor: 25, isBool: false }]),
  ...['logtostderr', 'alsologtostderr', 'add-dir-header', 'one-output', 'skip-headers', 'skip-log-headers'].map((n): [string, RemovedFlag] => [n, { lastMinor: 25, isBool: true }]),
  ['master-service-namespace', { lastMinor: 26, isBool: false }],
  ['azure-container-registry-config', { lastMinor: 29, isBool: false }],
  ['cloud-provider-gce-lb-src-cidrs', { lastMinor: 30, isBool: false }],
  ['cloud-provider-gce-l7lb-src-cidrs', { lastMinor: 30, isBool: false }],
]);

// ---- --help's sections ----

/**
 * kube-apiserver 1.32's named flag sets, in the order --help prints them, with their flags. Flags
 * of this server that kube-apiserver does not have are printed after them, under "orch-apiserver flags".
 */
export const KUBE_SECTIONS: readonly (readonly [string, readonly string[]])[] = [
  ['Generic', ['advertise-address', 'cors-allowed-origins', 'default-not-ready-toleration-seconds', 'default-unreachable-toleration-seconds',
    'emulated-version', 'enable-priority-and-fairness', 'external-hostname', 'feature-gates', 'goaway-chance', 'livez-grace-period',
    'max-mutating-requests-inflight', 'max-requests-inflight', 'min-request-timeout', 'request-timeout', 'shutdown-delay-duration',
    'shutdown-send-retry-after', 'shutdown-watch-termination-grace-period', 'storage-initialization-timeout', 'strict-transport-security-directives']],
  ['Etcd', ['delete-collection-workers', 'enable-garbage-collector', 'encryption-provider-config', 'encryption-provider-config-automatic-reload',
    'etcd-cafile', 'etcd-certfile', 'etcd-compaction-interval', 'etcd-count-metric-poll-period', 'etcd-db-metric-poll-interval',
    'etcd-healthcheck-timeout', 'etcd-keyfile', 'etcd-prefix', 'etcd-readycheck-timeout', 'etcd-servers', 'etcd-servers-overrides',
    'lease-reuse-duration-seconds', 'storage-backend', 'storage-media-type', 'watch-cache', 'watch-cache-sizes']],
  ['Secure serving', ['bind-address', 'cert-dir', 'disable-http2-serving', 'http2-max-streams-per-connection', 'permit-address-sharing',
    'permit-port-sharing', 'secure-port', 'tls-cert-file', 'tls-cipher-suites', 'tls-min-version', 'tls-private-key-file', 'tls-sni-cert-key']],
  ['Auditing', ['audit-log-batch-buffer-size', 'audit-log-batch-max-size', 'audit-log-batch-max-wait', 'audit-log-batch-throttle-burst',
    'audit-log-batch-throttle-enable', 'audit-log-batch-throttle-qps', 'audit-log-compress', 'audit-log-format', 'audit-log-maxage',
    'audit-log-maxbackup', 'audit-log-maxsize', 'audit-log-mode', 'audit-log-path', 'audit-log-truncate-enabled',
    'audit-log-truncate-max-batch-size', 'audit-log-truncate-max-event-size', 'audit-log-version', 'audit-policy-file',
    'audit-webhook-batch-buffer-size', 'audit-webhook-batch-max-size', 'audit-webhook-batch-max-wait', 'audit-webhook-batch-throttle-burst',
    'audit-webhook-batch-throttle-enable', 'audit-webhook-batch-throttle-qps', 'audit-webhook-config-file', 'audit-webhook-initial-backoff',
    'audit-webhook-mode', 'audit-webhook-truncate-enabled', 'audit-webhook-truncate-max-batch-size', 'audit-webhook-truncate-max-event-size',
    'audit-webhook-version']],
  ['Features', ['contention-profiling', 'debug-socket-path', 'profiling']],
  ['Authentication', ['anonymous-auth', 'api-audiences', 'authentication-config', 'authentication-token-webhook-cache-ttl',
    'authentication-token-webhook-config-file', 'authentication-token-webhook-version', 'client-ca-file', 'enable-bootstrap-token-auth',
    'oidc-ca-file', 'oidc-client-id', 'oidc-groups-claim', 'oidc-groups-prefix', 'oidc-issuer-url', 'oidc-required-claim',
    'oidc-signing-algs', 'oidc-username-claim', 'oidc-username-prefix', 'requestheader-allowed-names', 'requestheader-client-ca-file',
    'requestheader-extra-headers-prefix', 'requestheader-group-headers', 'requestheader-uid-headers', 'requestheader-username-headers',
    'service-account-extend-token-expiration', 'service-account-issuer', 'service-account-jwks-uri', 'service-account-key-file',
    'service-account-lookup', 'service-account-max-token-expiration', 'token-auth-file']],
  ['Authorization', ['authorization-config', 'authorization-mode', 'authorization-policy-file', 'authorization-webhook-cache-authorized-ttl',
    'authorization-webhook-cache-unauthorized-ttl', 'authorization-webhook-config-file', 'authorization-webhook-version']],
  ['API enablement', ['runtime-config']],
  ['Egress selector', ['egress-selector-config-file']],
  ['Admission', ['admission-control', 'admission-control-config-file', 'disable-admission-plugins', 'enable-admission-plugins']],
  ['Metrics', ['allow-metric-labels', 'allow-metric-labels-manifest', 'disabled-metrics', 'show-hidden-metrics-for-version']],
  ['Logs', ['log-flush-frequency', 'log-json-info-buffer-size', 'log-json-split-stream', 'log-text-info-buffer-size', 'log-text-split-stream',
    'logging-format', 'v', 'vmodule']],
  ['Traces', ['tracing-config-file']],
  ['Misc', ['aggregator-reject-forwarding-redirect', 'allow-privileged', 'apiserver-count', 'enable-aggregator-routing', 'enable-logs-handler',
    'endpoint-reconciler-type', 'event-ttl', 'kubelet-certificate-authority', 'kubelet-client-certificate', 'kubelet-client-key',
    'kubelet-port', 'kubelet-preferred-address-types', 'kubelet-read-only-port', 'kubelet-timeout', 'kubernetes-service-node-port',
    'max-connection-bytes-per-sec', 'peer-advertise-ip', 'peer-advertise-port', 'peer-ca-file', 'proxy-client-cert-file',
    'proxy-client-key-file', 'service-account-signing-endpoint', 'service-account-signing-key-file', 'service-cluster-ip-range',
    'service-node-port-range']],
  ['Cloud provider', ['cloud-config', 'cloud-provider']],
  ['Global', ['help', 'version']],
];

/** The section a kube-apiserver flag is printed in, by name; undefined for this server's own flags. */
export const KUBE_SECTION_OF: ReadonlyMap<string, string> = new Map(KUBE_SECTIONS.flatMap(([s, names]) => names.map((n) => [n, s] as const)));

/** --version: `--version` or `--version=true` prints the version, `raw` the whole version info (pflag's version[=true]). */
export const VERSION_FLAG: FlagDef<'version'> = flag('version', 'version', {
  type: 'version[=true]',
  isBool: true,
  parse(raw) {
    if (raw === 'raw') return 'raw';
    if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(raw)) return 'true';
    if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(raw)) return '';
    throw new Error('must be true, false or raw');
  },
  show: (v) => v,
}, '', 'Print version information and quit; --version=raw prints the version information as kube-apiserver\'s structure.');

