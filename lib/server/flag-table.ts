/**
 * Every flag the server accepts, in the order --help prints them: the server's own (serving, TLS,
 * limits, shutdown, logging, the API switches) written here, each area's (etcd and storage,
 * authentication, authorization, admission, service accounts, the CAs, the controllers, audit)
 * taken from its folder. A flag is defined in exactly one row; lib/server/flags.ts parses them.
 */
import { isIP } from 'node:net';
import type { Flavor } from '../naming';
import { HTTP1_SERVERS, HTTP2_SERVERS, LOG_LEVELS, LOGGING_FORMATS } from '../config';
import { bool, boolMap, duration, flag, float, int, INT_MAX, list, notEmpty, oneOf, text, type FlagDef } from '../flag-definitions';
import { STORAGE_FLAGS, ETCD_CLIENT_FLAGS } from '../storage/flags';
import { AUTHENTICATION_FLAGS } from '../authn/flags';
import { AUTHORIZATION_FLAGS } from '../authz/flags';
import { ADMISSION_FLAGS } from '../admission/flags';
import { SERVICE_ACCOUNT_FLAGS } from '../serviceaccount/flags';
import { CERTIFICATE_FLAGS } from '../certificates/flags';
import { KUBELET_FLAGS } from '../kubelet/flags';
import { AGGREGATOR_FLAGS } from '../aggregation/flags';
import { CONTROLLER_FLAGS } from '../controllers/flags';
import { FLOWCONTROL_FLAGS } from '../flowcontrol/flags';
import { KUBERNETES_SERVICE_FLAGS } from '../controllers/kubernetes-service/flags';
import { SERVICE_FLAGS } from '../registry/core/services/flags';
import { AUDIT_FLAGS } from '../audit/flags';
import { showHiddenVersionProblem } from '../metrics/registry';
import { featureGatesHelp } from '../scheme/feature-gates';
import { EMULATED_VERSION_FLAG, KUBE_FLAGS_WITHOUT_EFFECT, VERSION_FLAG, WITHOUT_EFFECT } from './kube-flags';
import { GO_CIPHER_SUITES, TLS_VERSION_NAMES, cipherSuitesProblem, tlsVersionProblem } from './tls-options';

const requiredIp = (v: string) => (isIP(v) ? undefined : 'must be an IP address');
const loopbackIp = (v: string) => ((isIP(v) === 4 && v.startsWith('127.')) || v === '::1' ? undefined : 'must be a loopback IP address (127.0.0.0/8 or ::1)');
/** Empty passes: the flag is optional. */
const mustBeIp = (v: string) => (v === '' ? undefined : requiredIp(v));


/** Every flag, in help order: name, config field, kind, default, help[, extra]. */
export const FLAGS: readonly FlagDef[] = [
  flag('help', 'help', bool, false, 'Print the flags and exit.', { shorthand: 'h' }),
  flag('data-dir', 'dataDir', text, './.data',
    'Directory for the PKI, admin.kubeconfig and the embedded etcd.', { check: notEmpty }),
  flag('flavor', 'flavor', oneOf<Flavor>(['orch', 'kubernetes']), 'orch',
    'Vendor names to serve: orch (orch.io groups) or kubernetes (k8s.io groups, for stock tools).'),
  ...STORAGE_FLAGS,
  flag('secure-port', 'securePort', int(0, 65535), 6443, 'HTTPS port; 0 picks a free port.'),
  flag('bind-address', 'bindAddress', text, '127.0.0.1',
    'IP address to listen on (0.0.0.0 or :: for all interfaces).', { check: requiredIp }),
  // Their help never spells kube-apiserver's removed flag: envtest from v0.9 looks for it in --help
  // to tell a server that still has an insecure port.
  flag('insecure-http-port', 'insecureHttpPort', int(0, 65535), 0,
    'Plain-HTTP port on --insecure-http-bind-address where every request is user system:unsecured in group system:masters, '
    + 'without credentials, as on kube-apiserver\'s insecure port up to release 1.19 (for controller-runtime\'s envtest up to v0.8: '
    + 'deploy/envtest/kube-apiserver gives it the insecure port envtest asks for). 0: not served.'),
  flag('insecure-http-bind-address', 'insecureHttpBindAddress', text, '127.0.0.1',
    'Loopback IP address --insecure-http-port listens on (no other: what is served there needs no credential).', { check: loopbackIp }),
  flag('advertise-address', 'advertiseAddress', text, '',
    'IP address advertised to clients; empty uses --bind-address.', { check: mustBeIp }),
  ...KUBERNETES_SERVICE_FLAGS,
  flag('external-hostname', 'externalHostname', text, '',
    'Host name used in generated URLs and the serving certificate.'),
  flag('tls-cert-file', 'tlsCertFile', text, '',
    'Serving certificate (PEM); empty generates one under <data-dir>/pki.'),
  flag('tls-private-key-file', 'tlsPrivateKeyFile', text, '', 'Key of --tls-cert-file (PEM).'),
  flag('cert-dir', 'certDir', text, '',
    'The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored. '
    + 'Its apiserver.crt and apiserver.key are served when present, else issued there by the server\'s CA. '
    + 'Empty keeps the serving pair under <data-dir>/pki (kube-apiserver\'s default is /var/run/kubernetes).'),
  flag('allow-privileged', 'allowPrivileged', bool, true,
    'If true, allow privileged containers; false refuses pods and pod templates with a privileged container '
    + '(spec.containers[i].securityContext.privileged: Forbidden: disallowed by cluster policy). '
    + 'kube-apiserver\'s default is false; true here, as this server always admitted them.'),
  flag('proxy-client-cert-file', 'proxyClientCertFile', text, '',
    'Client certificate (PEM) that proves the identity of the server when it calls out during a request: the front-proxy identity '
    + 'it will present to extension API servers when the aggregation layer proxies to them (issue 43; nothing uses it before). '
    + 'It should be signed by the CA of --requestheader-client-ca-file, which kube-system/extension-apiserver-authentication publishes. '
    + 'Checked at start to load with --proxy-client-key-file as a matching pair.'),
  flag('proxy-client-key-file', 'proxyClientKeyFile', text, '',
    'Private key (PEM) of --proxy-client-cert-file.'),
  ...AUTHENTICATION_FLAGS,
  ...AUTHORIZATION_FLAGS,
  ...ADMISSION_FLAGS,
  ...SERVICE_ACCOUNT_FLAGS,
  ...CERTIFICATE_FLAGS,
  ...KUBELET_FLAGS,
  ...AGGREGATOR_FLAGS,
  ...CONTROLLER_FLAGS,
  ...SERVICE_FLAGS,
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
  EMULATED_VERSION_FLAG,
  ...AUDIT_FLAGS,
  flag('max-requests-inflight', 'maxRequestsInflight', int(0, INT_MAX), 400,
    'Concurrent non-mutating requests; 0 is unlimited.'),
  flag('max-mutating-requests-inflight', 'maxMutatingRequestsInflight', int(0, INT_MAX), 200,
    'Concurrent mutating requests; 0 is unlimited.'),
  ...FLOWCONTROL_FLAGS,
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
    `Without effect here: no CORS headers are served, whatever the origin. ${WITHOUT_EFFECT}`, { withoutEffect: true }),
  flag('goaway-chance', 'goawayChance', float(0, 0.02), 0,
    'To prevent HTTP/2 clients from getting stuck on a single apiserver, randomly close a connection (GOAWAY). The client\'s other in-flight requests won\'t be affected, and the client will reconnect, likely landing on a different apiserver after going through the load balancer again. This argument sets the fraction of requests that will be sent a GOAWAY. Min is 0 (off), Max is .02 (1/50 requests); .001 (1/1000) is a recommended starting point.'),
  flag('profiling', 'profiling', bool, true,
    `Without effect here: nothing is served under /debug (kube-apiserver serves pprof there). ${WITHOUT_EFFECT}`, { withoutEffect: true }),
  flag('show-hidden-metrics-for-version', 'showHiddenMetricsForVersion', text, '',
    'The previous minor version (e.g. 1.31) whose hidden metrics /metrics shows again; only the previous minor version is accepted.',
    { check: showHiddenVersionProblem }),
  flag('v', 'v', int(0, 10), 0, 'number for the log level verbosity: what kube-apiserver logs at klog\'s V(n) is logged from -v=n on (request lines from 3; from 4 the debug level too).',
    { shorthand: 'v' }),
  flag('log-level', 'logLevel', oneOf(LOG_LEVELS), 'info', 'Lowest log level written (debug: every verbosity).'),
  flag('logging-format', 'loggingFormat', oneOf(LOGGING_FORMATS), '',
    'Sets the log format. Permitted formats: "json", "text" (klog\'s header and key=value pairs). Default: text when stderr is a terminal, json otherwise.'),
  ...ETCD_CLIENT_FLAGS,
  flag('encryption-provider-config', 'encryptionProviderConfig', text, '',
    'The file containing configuration for encryption providers to be used for storing secrets in etcd (EncryptionConfiguration, apiserver.config.orch.io/v1).'),
  flag('encryption-provider-config-automatic-reload', 'encryptionProviderConfigAutomaticReload', bool, false,
    'Determines if the file set by --encryption-provider-config should be automatically reloaded if the disk contents change.'),
  flag('encryption-provider-config-reload-interval', 'encryptionProviderConfigReloadIntervalMs', duration, 60_000,
    'How often the file of --encryption-provider-config is checked for changes with automatic reload.'),
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
  flag('tls-min-version', 'tlsMinVersion', text, '',
    `Minimum TLS version supported. Possible values: ${TLS_VERSION_NAMES.join(', ')}`, { check: tlsVersionProblem }),
  flag('tls-cipher-suites', 'tlsCipherSuites', list(), [],
    'Comma-separated list of cipher suites (Go names) for TLS 1.0-1.2; TLS 1.3 suites are always enabled. If omitted, the default suites are used. '
    + `Values: ${Object.keys(GO_CIPHER_SUITES).join(', ')}.`, { check: cipherSuitesProblem }),
  VERSION_FLAG,
  ...KUBE_FLAGS_WITHOUT_EFFECT,
];
