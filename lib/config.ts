/**
 * The server's configuration as its flags make it (lib/server/flags.ts parses them): one typed
 * object that every floor may read, so it lives on the ground floor. The value lists of the flags
 * that take one of a few words are here too, with the types they make.
 */
import type { Flavor } from './naming';

export const HTTP2_SERVERS = ['node', 'own'] as const;
export type Http2ServerKind = typeof HTTP2_SERVERS[number];
export const HTTP1_SERVERS = ['node', 'own'] as const;
export type Http1ServerKind = typeof HTTP1_SERVERS[number];

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = typeof LOG_LEVELS[number];
/** --logging-format: kube-apiserver's two; '' (not given) is text on a terminal, JSON otherwise. */
export const LOGGING_FORMATS = ['text', 'json'] as const;
export type LoggingFormat = typeof LOGGING_FORMATS[number] | '';
export const STORAGE_MEDIA_TYPES =
  ['application/json', 'application/vnd.kubernetes.protobuf', 'application/vnd.orch.protobuf'] as const;
export type StorageMediaType = typeof STORAGE_MEDIA_TYPES[number];
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'RBAC', 'Node', 'Webhook', 'ABAC'] as const;
export type AuthorizationMode = typeof AUTHORIZATION_MODES[number];
export const ETCD_CLIENTS = ['lean', 'etcd3'] as const;
export type EtcdClientKind = typeof ETCD_CLIENTS[number];

/**
 * Field names are the camelCase flag names; durations carry an `Ms` suffix and hold milliseconds.
 * An empty string means "not set" for optional paths and addresses, as with kube-apiserver.
 */
export interface ServerConfig {
  /** `-h`/`--help` was given: print helpText() and exit; cross-flag rules were not checked. */
  help: boolean;
  dataDir: string;
  flavor: Flavor;
  /** Empty: start an embedded etcd (`etcdBinary`) under `<dataDir>/etcd`. */
  etcdServers: string[];
  etcdPrefix: string;
  etcdCafile: string; etcdCertfile: string; etcdKeyfile: string;
  etcdBinary: string;
  etcdCompactionIntervalMs: number;
  /** --etcd-count-metric-poll-period: how often apiserver_storage_objects is counted in etcd without the watch cache (0: never). */
  etcdCountMetricPollPeriodMs: number;
  /** Lifetime of list continue tokens (not a kube-apiserver flag). */
  continueTokenTtlMs: number;
  storageMediaType: StorageMediaType;
  watchCache: boolean;
  /** 0: listen on a free port chosen by the OS. */
  securePort: number;
  bindAddress: string; advertiseAddress: string; externalHostname: string;
  /**
   * --insecure-http-port (0: off) and --insecure-http-bind-address (a loopback address): plain
   * HTTP where every request is the insecure superuser, for clients of kube-apiserver's insecure
   * port up to release 1.19 (controller-runtime's envtest up to v0.8; deploy/envtest/kube-apiserver).
   */
  insecureHttpPort: number;
  insecureHttpBindAddress: string;
  /** How the default/kubernetes Service's endpoints are kept (lib/controllers/kubernetes-service/). */
  endpointReconcilerType: 'lease' | 'none';
  tlsCertFile: string; tlsPrivateKeyFile: string;
  /**
   * --allow-privileged: whether pods (and pod templates) may run privileged containers; false
   * refuses them in validation as kube-apiserver does (lib/registry/core/pod-spec/capabilities.ts).
   */
  allowPrivileged: boolean;
  /**
   * --proxy-client-cert-file / --proxy-client-key-file: the front-proxy client identity the server
   * presents to extension API servers (the aggregation layer, issue 43); checked at start to load
   * as a matching pair (lib/server/proxy-client.ts), kept here for the aggregator to read.
   */
  proxyClientCertFile: string; proxyClientKeyFile: string;
  /** The aggregation layer's routing and redirect handling (lib/aggregation/flags.ts). */
  enableAggregatorRouting: boolean; aggregatorRejectForwardingRedirect: boolean;
  clientCaFile: string; tokenAuthFile: string;
  anonymousAuth: boolean; enableBootstrapTokenAuth: boolean;
  /** Authenticating proxy: headers trusted only from certificates of requestheaderClientCaFile. */
  requestheaderUsernameHeaders: string[]; requestheaderGroupHeaders: string[];
  requestheaderExtraHeadersPrefix: string[]; requestheaderClientCaFile: string; requestheaderAllowedNames: string[];
  /** --authentication-config: an AuthenticationConfiguration file (lib/authn/config/), '' when unset. */
  authenticationConfig: string;
  oidcIssuerUrl: string; oidcClientId: string; oidcUsernameClaim: string;
  /** Unset (undefined) differs from empty: unset means the issuer URL + '#' unless the claim is email. */
  oidcUsernamePrefix: string | undefined;
  oidcGroupsClaim: string; oidcGroupsPrefix: string;
  oidcRequiredClaim: Record<string, string>; oidcCaFile: string; oidcSigningAlgs: string[];
  authenticationTokenWebhookConfigFile: string;
  authenticationTokenWebhookVersion: 'v1' | 'v1beta1';
  authenticationTokenWebhookCacheTtlMs: number;
  authorizationMode: AuthorizationMode[];
  /** Webhook mode: kubeconfig-format file of the SubjectAccessReview service. */
  authorizationWebhookConfigFile: string;
  authorizationWebhookVersion: 'v1' | 'v1beta1';
  authorizationWebhookCacheAuthorizedTtlMs: number; authorizationWebhookCacheUnauthorizedTtlMs: number;
  /** ABAC mode: one JSON policy per line. */
  authorizationPolicyFile: string;
  /** --authorization-config: an AuthorizationConfiguration file (instead of --authorization-mode and the webhook flags). */
  authorizationConfigFile: string;
  /** How often that file is checked for changes. */
  authorizationConfigReloadIntervalMs: number;
  enableAdmissionPlugins: string[]; disableAdmissionPlugins: string[];
  /** AdmissionConfiguration file: each plugin's configuration (path or inline). */
  admissionControlConfigFile: string;
  /** DefaultTolerationSeconds: tolerationSeconds of the not-ready and unreachable tolerations. */
  defaultNotReadyTolerationSeconds: number; defaultUnreachableTolerationSeconds: number;
  /** The first signs new tokens; all are accepted. Empty: the flavor's default issuer. */
  serviceAccountIssuer: string[];
  serviceAccountKeyFile: string[]; serviceAccountSigningKeyFile: string;
  serviceAccountJwksUri: string;
  /** 0: no maximum. */
  serviceAccountMaxTokenExpirationMs: number;
  serviceAccountLookup: boolean;
  /** Empty: the service-account issuers. */
  apiAudiences: string[];
  /** The CA published to every namespace (root-CA ConfigMap, token Secrets); empty: the generated CA. */
  rootCaFile: string;
  /** The CA of the built-in CSR signers (both or neither; empty: the server's CA). */
  clusterSigningCertFile: string; clusterSigningKeyFile: string; clusterSigningDurationMs: number;
  /** The server's connections to kubelets (lib/kubelet/flags.ts): client pair, CA (empty: not verified), address types in order, timeout. */
  kubeletClientCertificate: string; kubeletClientKey: string; kubeletCertificateAuthority: string;
  kubeletPreferredAddressTypes: string[]; kubeletTimeoutMs: number;
  /** --kubelet-https (true): false dials kubelets in plain HTTP (kube-apiserver until 1.21; hollow kubelets). */
  kubeletHttps: boolean;
  /** Which in-process controllers run: `*`, `name`, `-name` (lib/controllers/enabled.ts). */
  controllers: string[];
  /** --resource-quota-sync-period: how often the resourcequota controller recalculates every quota (lib/controllers/resource-quota/). */
  resourceQuotaSyncPeriodMs: number;
  /** Controllers run only in the replica holding the controller-manager Lease (lib/controllers/leader-election.ts). */
  leaderElect: boolean;
  leaderElectLeaseDurationMs: number; leaderElectRenewDeadlineMs: number; leaderElectRetryPeriodMs: number;
  /** `key[=bool]` entries, e.g. `{ 'api/all': true, 'batch/v1beta1': false }`. */
  runtimeConfig: Record<string, boolean>;
  featureGates: Record<string, boolean>;
  auditLogPath: string; auditPolicyFile: string;
  /** The log's rotation: days, backups and megabytes (0: no limit / no rotation). */
  auditLogMaxage: number; auditLogMaxbackup: number; auditLogMaxsize: number;
  auditLogFormat: 'json' | 'legacy'; auditLogMode: 'blocking' | 'blocking-strict' | 'batch'; auditLogCompress: boolean;
  /** --audit-log-batch-*: the log's buffer in --audit-log-mode=batch (lib/audit/batch-options.ts checks them). */
  auditLogBatchBufferSize: number; auditLogBatchMaxSize: number; auditLogBatchMaxWaitMs: number;
  auditLogBatchThrottleEnable: boolean; auditLogBatchThrottleQps: number; auditLogBatchThrottleBurst: number;
  /** The audit webhook: kubeconfig file, mode (batch|blocking|blocking-strict, checked with kube's message), batch and retry. */
  auditWebhookConfigFile: string; auditWebhookMode: string; auditWebhookVersion: string; auditWebhookInitialBackoffMs: number;
  auditWebhookBatchBufferSize: number; auditWebhookBatchMaxSize: number; auditWebhookBatchMaxWaitMs: number;
  auditWebhookBatchThrottleEnable: boolean; auditWebhookBatchThrottleQps: number; auditWebhookBatchThrottleBurst: number;
  /** 0: unlimited. */
  maxRequestsInflight: number; maxMutatingRequestsInflight: number;
  enablePriorityAndFairness: boolean;
  requestTimeoutMs: number;
  /** Seconds, as kube-apiserver: the lower bound of a watch's randomised timeout. */
  minRequestTimeout: number;
  livezGracePeriodMs: number; shutdownDelayDurationMs: number; shutdownWatchTerminationGracePeriodMs: number;
  corsAllowedOrigins: string[];
  goawayChance: number;
  /** `--show-hidden-metrics-for-version`: '' or the previous minor release (lib/metrics/registry.ts). */
  showHiddenMetricsForVersion: string;
  profiling: boolean;
  /** Log verbosity 0-10 (`-v`/`--v`). */
  v: number;
  logLevel: LogLevel;
  loggingFormat: LoggingFormat;
  /**
   * --cert-dir: where the serving pair apiserver.crt / apiserver.key is read from when --tls-cert-file
   * is not given, issued there (by the server's CA) when missing, as kube-apiserver; '' keeps it under <data-dir>/pki.
   */
  certDir: string;
  /** --emulated-version: '' (release 1.32) or `1.N`, N from 20 to 32 (lib/server/kube-flags.ts). */
  emulatedVersion: string;
  /** --version: '' (not given), 'true' (print the version and exit) or 'raw' (print the version information). */
  version: string;
  /**
   * The kube-apiserver flags accepted without effect here (lib/server/kube-flags.ts), by name, with
   * their parsed values; and the removed flags --emulated-version let through, by name, raw.
   */
  kubeFlagsWithoutEffect: Record<string, unknown>;
  // --- B: etcd client ---
  /** --etcd-client: the lean client written here (default) or the etcd3 npm package. */
  etcdClient: EtcdClientKind;
  // --- A: etcd client fail-over ---
  /** --etcd-keepalive-interval / --etcd-keepalive-timeout: the liveness probe of an idle etcd connection (0 interval: none). */
  etcdKeepaliveIntervalMs: number; etcdKeepaliveTimeoutMs: number;
  /** --event-ttl: how long events are kept after their last write (an etcd lease); 0: until deleted. */
  eventTtlMs: number;
  /** --service-cluster-ip-range: one CIDR, or two of different families (dual stack), checked as kube-apiserver does. */
  serviceClusterIpRange: string;
  /** --service-node-port-range: `30000-32767`, `30000+2767` or one port. */
  serviceNodePortRange: string;
  /** --etcd-healthcheck-timeout / --etcd-readycheck-timeout: the etcd checks' timeouts (each probes etcd at most every half of it). */
  etcdHealthcheckTimeoutMs: number; etcdReadycheckTimeoutMs: number;
  // --- E: encryption at rest ---
  /** EncryptionConfiguration file (lib/server/encryption-config.ts); empty: values stored as they are. */
  encryptionProviderConfig: string;
  encryptionProviderConfigAutomaticReload: boolean;
  /** How often the file is polled with automatic reload (not a kube-apiserver flag; kube polls every minute). */
  encryptionProviderConfigReloadIntervalMs: number;
  // --- C1: overload and listener limits ---
  /** system:masters is served past the in-flight limits (kube-apiserver's behaviour; not a kube flag). */
  maxInflightExemptMasters: boolean;
  /** Server processes sharing the listening socket (lib/server/workers.ts); 1 serves in this process. */
  workers: number;
  /** HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS; 0: 1000 (kube's recommended value). */
  http2MaxStreamsPerConnection: number;
  /** Whose HTTP/2 server side serves clients: node (node:http2) or own (lib/http2). */
  http2Server: Http2ServerKind;
  /** Whose HTTP/1.1 server side serves clients with --http2-server=own: node (node:http) or own (lib/http1). */
  http1Server: Http1ServerKind;
  // --- F: TLS ---
  /** '' (TLS 1.2) or VersionTLS10..VersionTLS13 (lib/server/tls-options.ts). */
  tlsMinVersion: string;
  /** Go cipher suite names for TLS 1.0-1.2; empty: the defaults (TLS 1.3 suites are always on). */
  tlsCipherSuites: string[];
}
