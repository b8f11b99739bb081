/**
 * Starting and stopping the whole server: PKI, etcd (embedded or external), stores, the
 * namespace bootstrap and controller, and the HTTPS listener (HTTP/2 by ALPN, HTTP/1.1 fallback).
 * main.ts calls this with parsed flags; tests call it directly.
 */
import http2 from 'node:http2';
import { createOwnH2Listener } from './own-listener';
import { listenInsecure } from './insecure-listener';
import { withTurnBudget } from './turn-budget';
import { routeUpgradeRequests } from './upgrade-requests';
import type { ListenerLimits } from '../http/limits';
import { applyListenerLimits, listenerLimits, listenerOptions } from './listener-options';
import { koaCallback } from './koa-callback';
import { turnQueueBound } from './max-inflight';
import { isHealthProbe, isLongRunning } from './long-running';
import { buildFlowControl } from '../flowcontrol/build';
import { drainServer, RequestTracker } from './graceful-shutdown';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AddressInfo } from 'node:net';
import type { ServerConfig } from '../config';
import { ensureCertDirPair, ensurePki, Pki, writeKubeconfig } from './pki';
import { startEmbeddedEtcd, EmbeddedEtcd } from './embedded-etcd';
import { EtcdClientOptions } from '../storage/etcd3/kv-client';
import { createEtcdKv } from '../storage/etcd3/kv-factory';
import { Etcd3Storage } from '../storage/etcd3/store';
import { EtcdHealthCheck } from '../storage/etcd-health';
import { startCompactor } from '../storage/etcd3/compactor';
import { KeyValue, Storage } from '../storage/interfaces';
import { decodeKv } from '../storage/storage-codec';
import { ApiObject } from '../scheme/types';
import { namingFor, Naming } from '../naming';
import { builtinResources } from '../registry/builtin';
import { withConnectSubresources } from '../registry/core/connect-subresources';
import { KubeletClient } from '../kubelet/client';
import { kubeletHandlers } from '../kubelet/handlers';
import { serviceNetworkOf } from '../registry/core/services/network';
import { ServiceAllocationRepair, storedServices } from '../registry/core/services/repair';
import { FeatureGates } from '../scheme/feature-gates';
import { applyRuntimeConfig } from './runtime-config';
import { emulatedMinor } from './kube-flags';
import { GenericStore } from '../registry/store';
import { Cacher } from '../storage/cacher/cacher';
import { Etcd3Probe } from '../storage/cacher/etcd3-probe';
import { cacheIndexOf } from '../registry/list';
import { buildAdmission } from '../admission/registry';
import { AdmissionChain } from '../admission/interfaces';
import { readAdmissionConfigFile } from '../admission/config-file';
import { AdmissionMetrics } from '../admission/metrics';
import { rbacEscalation } from '../admission/rbac-escalation';
import { HealthChecks } from '../api/health';
import { LogHealthCheck, winstonDrained } from '../api/log-health';
import { HealthcheckSlis, WorkerSlis } from '../api/metrics/sli-metrics';
import { buildApp } from './handler-chain';
import { storeKey, StoreIndex } from '../registry/store-index';
import { NamespaceController } from '../controllers/namespace-controller';
import { GarbageCollector } from '../controllers/garbage-collector/collector';
import { EphemeralVolumeController } from '../controllers/ephemeral-volume-controller';
import { PvcProtectionController } from '../controllers/pvc-protection-controller';
import { ResourceQuotaController } from '../controllers/resource-quota/controller';
import { PolicyStatusController } from '../controllers/validatingadmissionpolicy-status/controller';
import { PvProtectionController } from '../controllers/pv-protection-controller';
import { ClusterRoleAggregationController } from '../controllers/clusterrole-aggregation-controller';
import { ServiceAccountController } from '../controllers/service-account-controller';
import { TokenController } from '../controllers/token-controller';
import { RootCaPublisher, readRootCaFile } from '../controllers/root-ca-publisher';
import { ControllerManager } from '../controllers/manager';
import { TokenCleaner } from '../controllers/token-cleaner';
import { BootstrapSigner } from '../controllers/bootstrap-signer';
import { CsrCleaner } from '../controllers/csr-cleaner';
import { ServerUrlHolder } from '../controllers/server-url';
import { startKubernetesService } from '../controllers/kubernetes-service/start';
import { loadSigningAuthority, SigningController } from '../certificates/signing-controller';
import { ApprovingController } from '../certificates/approving-controller';
import { controllerManagerElector } from '../controllers/leader-election';
import { bootstrapNamespaces } from './bootstrap';
import { ensureBootstrapPolicy } from '../authz/rbac/bootstrap';
import { bootstrapSystemPriorityClasses } from './priority-class-bootstrap';
import { configureLogger, logger } from '../logger';
import { registerProtobufSerializer } from '../api/negotiation';
import { protobufSerializer } from '../api/protobuf-serializer';
import { CertificatePool } from '../authn/cert-pool';
import { ServingTls } from './tls-reload';
import { Authentication, authenticationConfigFromFlags, buildAuthentication } from '../authn/build';
import { ObjectLookup, storeLookup } from '../authn/object-lookup';
import { Authorization, buildAuthorization } from '../authz/build';
import { loadServiceAccountKeys, serviceAccountKeyInAdvance, ServiceAccountKeys } from '../serviceaccount/keys';
import { claimNames } from '../serviceaccount/claims';
import { TokenGenerator } from '../serviceaccount/token-generator';
import { loadRequestHeaderPool } from '../authn/request-header';
import { loadProxyClientIdentity } from './proxy-client';
import { setAllowPrivileged } from '../registry/core/pod-spec/capabilities';
import { TokenFileAuthenticator } from '../authn/token-file';
import { AuthenticationInfoController } from '../controllers/authentication-info-controller';
import { ApfConfigurationKeeper } from '../controllers/apf-configuration/keeper';
import { authenticationHandlers } from '../authn/api/handlers';
import { authorizationHandlers } from '../authz/api/handlers';
import { evictionHandler } from '../api/eviction/handler';
import { bindingHandler } from '../api/binding/handler';
import { customKey } from '../api/resource-handler';
import { componentStatusHandlers } from '../api/component-status/handler';
import { builtinScaleHandlers } from '../api/handlers/scale';
import { deploymentRollbackHandlers } from '../api/handlers/deployment-rollback';
import { issuerDiscoveryRoutes } from '../api/service-account-issuer';
import { MetricsRegistry } from '../metrics/registry';
import { buildAudit } from '../audit/build';
import { auditBackendsFromFlags } from '../audit/backends-from-flags';
import { collectProcessMetrics } from '../metrics/process-metrics';
import { EtcdMetrics, groupResourceString } from '../metrics/etcd-metrics';
import { WatchMetrics } from '../metrics/watch-metrics';
import { StorageObjectsMetric } from '../metrics/storage-metrics';
import { ResourceRegistry } from '../registry/resource-registry';
import { CrServingFactory } from '../apiextensions/serving/types';
import { buildCrServing } from '../apiextensions/serving/cr-resource-def';
import { CustomResourceServing, startCustomResourceServing } from './custom-resources';
import { encryptionAtRestFromFlags } from './encryption-config';
import { WorkerRole, workerServes, workerShare, writesKubeconfig } from './worker-role';
import { clusterMetricsRenderer } from './cluster-metrics';
import { Aggregation } from '../aggregation';
import { apiServicesStoreKey } from '../aggregation/api-service';
import { V2Forms } from '../api/openapi/v2-forms';
import { StartPhases } from './start-phases';

/** The turn queue in front of priority and fairness: this many times the seats, at least the minimum (see listen()). */
const APF_TURN_QUEUE_FACTOR = 4;
const APF_TURN_QUEUE_MIN = 2_400;

export interface RunningServer {
  /** e.g. `https://127.0.0.1:6443` */
  url: string;
  port: number;
  pki: Pki;
  kubeconfigPath: string;
  naming: Naming;
  storage: Storage;
  health: HealthChecks;
  stores: StoreIndex;
  /** What is served: built-in and custom resources (custom ones come and go). */
  registry: ResourceRegistry;
  /** The custom resources' serving (tests wait on `serving.ready(crdName)`). */
  customResources: CustomResourceServing;
  authentication: Authentication;
  authorization: Authorization;
  /** The admission chain and its counts (webhook rejections). */
  admission: AdmissionChain;
  admissionMetrics: AdmissionMetrics;
  /** The aggregation layer (absent when --runtime-config switched APIServices off). */
  aggregation?: Aggregation;
  /** The protobuf and gzip forms of `/openapi/v2` (`encodes` counts the protobuf encodes: a debug hook). */
  openApiV2: V2Forms;
  /** The in-process controllers (--controllers). */
  controllers: ControllerManager;
  /** Every metric of this server (/metrics renders it; lib/metrics). */
  metrics: MetricsRegistry;
  /** Signs service-account tokens (TokenRequest, the token controller). */
  tokenGenerator: TokenGenerator;
  serviceAccountKeys: ServiceAccountKeys;
  /** Graceful stop: readyz fails, the listener stays for the shutdown delay, then drains and closes etcd. */
  stop(): Promise<void>;
  /** In a worker of --workers that serves no connections: the URL the others serve at. */
  adoptUrl(url: string): void;
}

const DRAIN_TIMEOUT_MS = 10_000;
/** Requests started per event-loop turn; the rest of a burst in the next turns (turn-budget.ts). */
const REQUESTS_PER_TURN = 16;

/** Not flags: `metrics: false` runs without recording any metric (the overhead benchmark's baseline). */
export interface StartOptions {
  metrics?: boolean;
  /** Builds the serving bundle of each CRD (default: the schemaless basic factory). */
  crServingFactory?: CrServingFactory;
  /** Shorter listener timeouts for tests (listener-options.ts; not flags, as in kube-apiserver). */
  listener?: Partial<ListenerLimits>;
  /** Set in a worker process of --workers (workers.ts); absent when the server is one process. */
  worker?: WorkerRole;
}

/** The names the serving certificate covers: loopback, and the addresses and host name the flags give. */
export function servingHosts(config: ServerConfig): string[] {
  return ['localhost', '127.0.0.1', '::1', config.bindAddress, config.advertiseAddress, config.externalHostname]
    .filter((h) => h && h !== '0.0.0.0' && h !== '::');
}

export async function startServer(config: ServerConfig, opts: StartOptions = {}): Promise<RunningServer> {
  configureLogger({ level: config.logLevel, verbosity: config.v, format: config.loggingFormat });
  const phases = new StartPhases();
  const naming = namingFor(config.flavor);
  const gates = new FeatureGates(config.featureGates);
  // Before anything starts: a bad --runtime-config key stops the start with nothing to clean up.
  const serviceNetwork = serviceNetworkOf(config.serviceClusterIpRange, config.serviceNodePortRange);
  // Pods, Nodes and Services with their connect subresources (log, exec, ..., proxy), answered by lib/kubelet.
  const runtime = applyRuntimeConfig(withConnectSubresources(builtinResources(naming, gates, { eventTtlSeconds: Math.floor(config.eventTtlMs / 1000), serviceNetwork })), config, naming);
  // The kubelet client's files are read now: a bad path stops the start.
  const kubeletClient = KubeletClient.fromConfig(config);
  phases.mark('kinds');
  // --emulated-version: the release whose APIs are served by default, /version and deprecations.
  const release = config.emulatedVersion ? [1, emulatedMinor(config.emulatedVersion)] as const : undefined;
  if (release) logger.info(`--emulated-version: emulating Kubernetes 1.${release[1]}`, { emulatedVersion: config.emulatedVersion });
  if (runtime.disabledGroupVersions.length || runtime.disabledResources.length) {
    logger.info('--runtime-config: not served', { groupVersions: runtime.disabledGroupVersions, resources: runtime.disabledResources });
  }
  // First: every part below defines its metrics on it as it is built.
  const metrics = new MetricsRegistry({
    warn: (m) => logger.warn(m), showHiddenForVersion: config.showHiddenMetricsForVersion, enabled: opts.metrics ?? true,
  });
  collectProcessMetrics(metrics);
  if (opts.worker && metrics.enabled) metrics.renderThrough(clusterMetricsRenderer(metrics.registry));
  for (const w of gates.warnings) logger.warn(w);
  // Protobuf responses are offered; proto/ is parsed at the first protobuf body (JSON clients never
  // pay for it; test/unit/scheme/protobuf.test.ts parses every file).
  registerProtobufSerializer(protobufSerializer);
  const dataDir = path.resolve(config.dataDir);
  const hosts = servingHosts(config);
  // At a first start the service-account key is made while the PKI's keys are (each RSA, on Node's thread pool).
  const serviceAccountKeyMade = serviceAccountKeyInAdvance({ signingKeyFile: config.serviceAccountSigningKeyFile, pkiDir: path.join(dataDir, 'pki') });
  const pki = await ensurePki(path.join(dataDir, 'pki'), { serverHosts: hosts, log: (m) => logger.info(m), servingLater: true });
  // --cert-dir (kube-apiserver's, which envtest gives): its apiserver.crt/.key serve unless --tls-cert-file is given.
  const certDirPair = !config.tlsCertFile && config.certDir
    ? await ensureCertDirPair(path.resolve(config.certDir), pki, hosts, (m) => logger.info(m))
    : undefined;
  phases.mark('pki');

  // Read before anything starts: a bad file stops the start with nothing to clean up.
  const requestheaderCa = config.requestheaderClientCaFile ? loadRequestHeaderPool(config.requestheaderClientCaFile) : undefined;
  const rootCaPem = config.rootCaFile ? readRootCaFile(config.rootCaFile) : pki.caCertPem;
  // --proxy-client-*: the front-proxy identity for the aggregation layer (issue 43), checked now.
  const proxyClient = loadProxyClientIdentity(config.proxyClientCertFile, config.proxyClientKeyFile);
  if (proxyClient) logger.info('--proxy-client-cert-file: front-proxy client identity loaded', { subject: proxyClient.subject });
  // --allow-privileged: read by every pod and pod template validation (as kube's capabilities.Setup).
  setAllowPrivileged(config.allowPrivileged);
  const clientCa = config.clientCaFile ? CertificatePool.fromFile(config.clientCaFile, '--client-ca-file') : CertificatePool.fromPem(pki.caCertPem, pki.caCertFile);
  // The serving pair and the client CA, reloaded from disk when they change (lib/server/tls-reload.ts).
  const certFile = config.tlsCertFile || certDirPair?.certFile;
  const newServingTls = () => new ServingTls({
    certFile: certFile || pki.serverCertFile,
    keyFile: config.tlsPrivateKeyFile || certDirPair?.keyFile || pki.serverKeyFile,
    clientCaFile: config.clientCaFile || undefined, clientCa, requestheaderCa, flags: config, log: logger,
  });
  // A pair of the flags or --cert-dir is read now (a bad one stops the start here); a self-made
  // one still being made (its RSA key, on the thread pool) is read once the storage has started.
  const servingTlsNow = certFile || !pki.serving ? newServingTls() : undefined;
  const tokenFile = config.tokenAuthFile ? TokenFileAuthenticator.fromFile(config.tokenAuthFile, (m) => logger.warn(m)) : undefined;
  // --authentication-config: a missing or invalid file stops the start here; JWT issuers may not claim the service-account issuers.
  const authenticationConfig = config.authenticationConfig ? authenticationConfigFromFlags(config, {
    issuers: config.serviceAccountIssuer.length ? config.serviceAccountIssuer : [naming.defaultServiceAccountIssuer],
    warn: (m) => logger.warn(m), info: (m) => logger.info(m), metrics,
  }) : undefined;
  const admissionConfigs = readAdmissionConfigFile(config.admissionControlConfigFile);
  // Encryption at rest (--encryption-provider-config): a bad file stops the start here.
  const encryption = encryptionAtRestFromFlags(config, metrics, logger);
  // The audit policy and log (lib/audit): a bad policy file or an unwritable log stops the start here.
  const audit = await buildAudit({ config, naming, log: logger, ...auditBackendsFromFlags(config, metrics, logger), worker: opts.worker !== undefined });
  const signingAuthority = config.clusterSigningCertFile
    ? loadSigningAuthority(config.clusterSigningCertFile, config.clusterSigningKeyFile) : loadSigningAuthority(pki.caCertFile, pki.caKeyFile);

  // Admission is built before etcd is reached: a plugin that cannot start stops the start with
  // nothing to clean up (the stores it reads are filled below, before its start()).
  const registry = new ResourceRegistry();
  const stores: StoreIndex = registry.stores;
  const nsStoreHolder: { store?: GenericStore } = {};
  // Set once authorization is built (before anything is served): escalation checks read its policy.
  const escalationHolder: { authorization?: Authorization } = {};
  const admissionMetrics = new AdmissionMetrics(metrics);
  const { chain: admission } = await buildAdmission({
    naming, config, stores, served: registry, log: logger, authorization: escalationHolder, metrics: admissionMetrics,
    configFile: config.admissionControlConfigFile, caPem: pki.caCertPem,
    // As Kubernetes' plugin reads its informer: the watch cache first (any version), and only
    // a namespace missing there (it may have just been created) or asked live is read consistently.
    namespaces: {
      get: async (name, live) => {
        const store = nsStoreHolder.store!;
        const missing = (e: { code?: number }) => { if (e.code === 404) return undefined; throw e; };
        if (!live) {
          // The cache's entry of a namespace is replaced, never changed, when the namespace
          // changes: its decoded form is kept with it, for every namespaced create to read. A
          // ready cache is read directly (what getStored at resourceVersion 0 reads, without its
          // read plan and promises on every namespaced create).
          const cache = store.deps.cache;
          const kv = cache?.ready ? cache.get(store.key(undefined, name)).kv : await store.getStored(undefined, name, '0').catch(missing);
          if (kv) return decodedOnce(kv);
        }
        return store.get(undefined, name).catch(missing);
      },
    },
  }, admissionConfigs, [rbacEscalation(naming.group('rbac.authorization'), escalationHolder, stores)]);
  phases.mark('files, audit, admission');
  let etcd: EmbeddedEtcd | undefined;
  let endpoints = config.etcdServers;
  if (!endpoints.length) {
    etcd = await startEmbeddedEtcd({ dataDir: path.join(dataDir, 'etcd'), etcdBinary: config.etcdBinary, logger });
    endpoints = [etcd.clientUrl];
    logger.info('embedded etcd started', { clientUrl: etcd.clientUrl });
  }
  const etcdOptions: EtcdClientOptions = {
    endpoints, caFile: config.etcdCafile || undefined, certFile: config.etcdCertfile || undefined, keyFile: config.etcdKeyfile || undefined,
    keepaliveIntervalMs: config.etcdKeepaliveIntervalMs, keepaliveTimeoutMs: config.etcdKeepaliveTimeoutMs,
  };
  // One client for reads, writes and watches (--etcd-client; the lean default loads no grpc-js); storage.close() closes it.
  const kvClient = createEtcdKv(config.etcdClient, etcdOptions);
  const storage = new Etcd3Storage(kvClient);
  // Each resource's stores and watch cache reach etcd through a wrapper that records its requests.
  const etcdMetrics = new EtcdMetrics(metrics, new WatchMetrics(metrics));
  // A resource's storage: measured, and below that encrypted when a rule covers it (the watch cache above holds plaintext).
  const storageForResource = (resource: string) => etcdMetrics.storageFor(encryption ? encryption.storageFor(resource, storage) : storage, resource);
  const storageObjects = new StorageObjectsMetric(metrics);
  // Worker 0 (or the only process) owns what is done once per server: compaction, the
  // controllers and the extension-apiserver-authentication ConfigMap.
  const primaryDuties = (opts.worker?.index ?? 0) === 0;
  // With several workers, worker 0 takes no connections: its core goes to the controllers.
  const serves = workerServes(opts.worker);
  const compactor = startCompactor(kvClient, primaryDuties ? config.etcdCompactionIntervalMs : 0, logger);
  phases.mark('etcd client');

  const { resources } = runtime;
  for (const def of resources) {
    if (def.virtual) continue;
    stores.set(storeKey(def.group, def.version, def.resource), new GenericStore(def, { storage: storageForResource(groupResourceString(def.storageGroup ?? def.group, def.resource)), prefix: config.etcdPrefix.replace(/\/+$/, ''), admission, continueTtlMs: config.continueTokenTtlMs, storageMediaType: config.storageMediaType }));
  }
  // One watch cache per resource: one etcd watch feeds every list, get and watch of it. The
  // versions of one resource (served-version.ts) share their keys, so they share its cache.
  const cachers: Cacher[] = [];
  const probe = config.watchCache ? new Etcd3Probe(kvClient) : undefined;
  if (config.watchCache) {
    const byPrefix = new Map<string, Promise<Cacher>>();
    await Promise.all([...stores.values()].map(async (store) => {
      const prefix = store.collectionPrefix();
      let started = byPrefix.get(prefix);
      if (!started) {
        const cacher = new Cacher(store.storage, prefix, { probe, log: logger, index: cacheIndexOf(store) });
        cachers.push(cacher);
        byPrefix.set(prefix, started = cacher.start().then(() => cacher));
      }
      store.deps.cache = await started;
    }));
  }
  // apiserver_storage_objects: read from the watch cache at each scrape, else counted in etcd every --etcd-count-metric-poll-period.
  const counted = new Set<string>();
  for (const store of stores.values()) {
    const resource = groupResourceString(store.def.group, store.def.resource);
    if (counted.has(resource)) continue;
    counted.add(resource);
    if (store.deps.cache) storageObjects.fromCache(resource, store.deps.cache);
    else storageObjects.poll(resource, async () => (await store.storage.range(store.collectionPrefix(), { countOnly: true })).count, config.etcdCountMetricPollPeriodMs);
  }
  registry.addBuiltins(resources.map((def) => ({ def, store: stores.get(storeKey(def.group, def.version, def.resource)) })));
  const namespaces = stores.get(storeKey('', 'v1', 'namespaces')) as GenericStore;
  nsStoreHolder.store = namespaces;
  phases.mark('stores, watch caches');

  // The checks' indicators on /metrics/slis; with --workers the primary keeps them for all workers.
  const slis = opts.worker ? new WorkerSlis() : new HealthcheckSlis({ enabled: metrics.enabled });
  const health = new HealthChecks({
    livezGracePeriodMs: config.livezGracePeriodMs, log: (m) => logger.warn(m), observe: (n, e, ok) => slis.observe(n, e, ok),
  });
  // kube-apiserver's `log` check, listed after `ping` on all three endpoints (log-health.ts).
  const logCheck = new LogHealthCheck({ drained: winstonDrained(logger) });
  health.add('log', () => logCheck.check());
  // kube-apiserver's etcd checks: etcd probed at most every half timeout, and not at all while Txns are being answered (etcd-health.ts).
  const etcdCheck = (timeoutMs: number) => {
    const c = new EtcdHealthCheck({ timeoutMs, probe: () => storage.currentRevision(), evidence: () => kvClient.quorumHealth?.() });
    return () => c.check();
  };
  health.add('etcd', etcdCheck(config.etcdHealthcheckTimeoutMs));
  health.add('etcd-readiness', etcdCheck(config.etcdReadycheckTimeoutMs), { readyz: true });
  let bootstrapped = false;
  health.add('poststarthook/bootstrap-namespaces', async () => {
    if (!bootstrapped) throw new Error('system namespaces not yet created');
  }, { healthz: true, readyz: true, livez: true });

  await bootstrapNamespaces(namespaces, naming);
  bootstrapped = true;
  phases.mark('namespaces');
  // The --controllers of this server, started together below (controllers/manager.ts).
  const controllers = new ControllerManager(config.controllers, (m) => logger.warn(m));
  controllers.add('namespace', () => new NamespaceController(namespaces, () => namespacedContents(stores), naming.namespaceFinalizer));
  // Driven by watches on every resource (the watch caches), custom resources as they come and go.
  controllers.add('garbagecollector', () => new GarbageCollector(stores.values(), registry));
  // Only once the server has both Pod and PersistentVolumeClaim.
  controllers.add('ephemeral-volume', () => EphemeralVolumeController.forStores(stores.values()));
  // Remove the storage protection finalizers once nothing uses the claim or volume.
  controllers.add('pvc-protection', () => PvcProtectionController.forStores(stores.values(), naming));
  controllers.add('pv-protection', () => PvProtectionController.forStores(stores.values(), naming));
  controllers.add('clusterrole-aggregation', () => ClusterRoleAggregationController.forStores(stores, naming.group('rbac.authorization')));
  // Every ResourceQuota's status: usage recalculated on change, on deletes and every --resource-quota-sync-period.
  controllers.add('resourcequota', () => ResourceQuotaController.forStores(stores, naming, registry, { resyncMs: config.resourceQuotaSyncPeriodMs }));
  controllers.add('validatingadmissionpolicy-status-controller', () => PolicyStatusController.forStores(stores, naming));

  // The Service allocators' repair loop (services/repair.ts): every replica runs it, as every
  // kube-apiserver does; its first run ends before the server serves.
  const serviceStore = stores.get(storeKey('', 'v1', 'services')) as GenericStore | undefined;
  const serviceRepair = serviceStore && primaryDuties ? new ServiceAllocationRepair({
    storage: serviceStore.storage, prefix: serviceStore.deps.prefix, network: serviceNetwork,
    listServices: () => storedServices(serviceStore.storage, serviceStore.collectionPrefix(), (kv) => serviceStore.decodeCurrent(kv)),
  }) : undefined;
  // API priority and fairness' bootstrap configuration, kept on every replica (Kubernetes'
  // priority-and-fairness-config-producer post-start hook runs whatever
  // --enable-priority-and-fairness says), and FlowSchema conditions while that flag is on.
  const apfConfiguration = primaryDuties
    ? ApfConfigurationKeeper.forStores(stores, naming, { log: logger, health, writeConditions: config.enablePriorityAndFairness })
    : undefined;
  // Four bootstraps that need only the namespaces, run together (a restart, which finds their
  // objects in place, waits for etcd's answers once instead of four times): the default RBAC policy,
  // reconciled before the policy index starts (and so before serving); the two system
  // PriorityClasses (kube's scheduling/bootstrap-system-priority-classes hook); the Service
  // allocators' first repair; APF's configuration. The start fails with the first that fails,
  // once all have ended.
  await allSettledOrThrow([
    ensureBootstrapPolicy({ stores, naming, log: logger, health }),
    bootstrapSystemPriorityClasses({ stores, group: naming.group('scheduling'), log: logger, health }),
    serviceRepair?.start(),
    apfConfiguration?.start(),
  ]);
  phases.mark('rbac policy, priority classes, service repair, apf configuration');

  const authenticationInfo = AuthenticationInfoController.forFlags(stores.get(storeKey('', 'v1', 'configmaps')) as GenericStore, naming, config, clientCa.pem, requestheaderCa?.pem);
  await pki.serving;
  const servingTls = servingTlsNow ?? newServingTls();
  phases.mark('serving pair');
  if (primaryDuties) {
    await authenticationInfo.start();
    servingTls.onClientCaChange((pem) => authenticationInfo.updateClientCa(pem));
  }
  phases.mark('authentication info');
  const issuers = config.serviceAccountIssuer.length ? config.serviceAccountIssuer : [naming.defaultServiceAccountIssuer];
  const apiAudiences = config.apiAudiences.length ? config.apiAudiences : issuers;
  const serviceAccountKeys = await loadServiceAccountKeys({
    signingKeyFile: config.serviceAccountSigningKeyFile, keyFiles: config.serviceAccountKeyFile, pkiDir: path.join(dataDir, 'pki'), log: (m) => logger.info(m),
    made: serviceAccountKeyMade,
  });
  phases.mark('service-account keys');
  const names = claimNames(naming);
  const tokenGenerator = new TokenGenerator(serviceAccountKeys.signing, issuers[0], names);
  // Each namespace's default account and root CA ConfigMap, and token Secrets.
  controllers.add('serviceaccount', () => ServiceAccountController.forStores(stores.values(), naming));
  controllers.add('serviceaccount-token', () => TokenController.forStores(stores.values(), naming, tokenGenerator, rootCaPem));
  controllers.add('root-ca-cert-publisher', () => RootCaPublisher.forStores(stores.values(), naming, rootCaPem));
  // The built-in CSR signers and the node client auto-approver (asks the authorizer once built).
  controllers.add('csrsigning', () => SigningController.forStores(stores.values(), naming, signingAuthority, config.clusterSigningDurationMs));
  controllers.add('csrapproving', () => ApprovingController.forStores(stores.values(), naming, () => escalationHolder.authorization?.chain));
  controllers.add('csrcleaner', () => CsrCleaner.forStores(stores.values(), naming));
  // Bootstrap tokens: expired ones deleted; cluster-info signed (its URL is filled once listening).
  const serverUrl = new ServerUrlHolder();
  controllers.add('tokencleaner', () => TokenCleaner.forStores(stores.values(), naming));
  controllers.add('bootstrapsigner', () => BootstrapSigner.forStores(stores.values(), naming, rootCaPem, serverUrl));
  // With --leader-elect, only the replica holding the Lease runs them; a lone one takes it now.
  if (primaryDuties) await controllers.run(config.leaderElect
    ? controllerManagerElector(controllers, stores.get(storeKey(naming.group('coordination'), 'v1', 'leases')) as GenericStore, naming, config)
    : undefined);
  phases.mark('controllers');
  const lookup = (resource: string): ObjectLookup => {
    const store = stores.get(storeKey('', 'v1', resource));
    return store ? storeLookup(store) : { get: () => undefined };
  };
  const authentication = await buildAuthentication({
    config, naming, clientCa: servingTls.clientCaPool, requestheaderCa, tokenFile, authenticationConfig, issuers, apiAudiences, verificationKeys: serviceAccountKeys.verification, claimNames: names,
    lookups: { secrets: lookup('secrets'), serviceAccounts: lookup('serviceaccounts'), pods: lookup('pods') },
    warn: (m) => logger.warn(m), info: (m) => logger.info(m), metrics,
  });

  // Before serving: the first request is decided on the complete policy.
  const authorization = buildAuthorization({ config, naming, stores, warn: (m) => logger.warn(m), metrics });
  await authorization.start();
  phases.mark('authorization');
  escalationHolder.authorization = authorization;
  // Plugins that read the watch caches (webhook configurations, storage classes) start now.
  await admission.start();
  phases.mark('admission start');

  const customHandlers = new Map([...authenticationHandlers({
    naming, stores, authentication, generator: tokenGenerator,
    maxExpirationSeconds: Math.floor(config.serviceAccountMaxTokenExpirationMs / 1000),
  }), ...authorizationHandlers({ naming, chain: authorization.chain }), ...builtinScaleHandlers(resources), ...deploymentRollbackHandlers(resources),
  [customKey('', 'v1', 'pods', 'eviction', 'create'), evictionHandler({ stores })],
  [customKey('', 'v1', 'pods', 'binding', 'create'), bindingHandler({ stores }, true)],
  [customKey('', 'v1', 'bindings', undefined, 'create'), bindingHandler({ stores }, false)],
  ...componentStatusHandlers({ etcdCheck: () => storage.currentRevision(), timeoutMs: config.etcdHealthcheckTimeoutMs }),
  ...kubeletHandlers({ stores, client: kubeletClient })]);
  // Custom resources: every CRD with accepted names served before the first request.
  const customResources = await startCustomResourceServing({
    config, naming, registry, storage, etcdMetrics, storageObjects, admission, customHandlers, probe, storageForResource,
    factory: opts.crServingFactory ?? buildCrServing,
  });
  phases.mark('custom resources');
  let url = '';
  const discoveryRoutes = await issuerDiscoveryRoutes({
    issuer: issuers[0], jwksUri: config.serviceAccountJwksUri, serverUrl: () => url, keys: serviceAccountKeys.verification,
  });
  // The flags limit the server: each serving worker of --workers gets its share.
  const readOnlyLimit = workerShare(config.maxRequestsInflight, opts.worker);
  const mutatingLimit = workerShare(config.maxMutatingRequestsInflight, opts.worker);
  // API priority and fairness in place of the in-flight limits (kube needs a positive server limit).
  const flowControl = config.enablePriorityAndFairness && readOnlyLimit + mutatingLimit > 0
    ? buildFlowControl({ stores, naming, metrics, serverConcurrencyLimit: readOnlyLimit + mutatingLimit, requestTimeoutMs: config.requestTimeoutMs, isLongRunning, isHealthProbe })
    : undefined;
  await flowControl?.start();
  phases.mark('flow control');
  // The aggregation layer (lib/aggregation): unless --runtime-config switched APIServices off.
  const aggregation = stores.get(apiServicesStoreKey(naming)) ? new Aggregation({
    naming, config, stores, registry, metrics, proxyClient, selfUrl: () => url, selfCaPem: pki.caCertPem, primaryDuties, log: logger, health,
  }) : undefined;
  // The protobuf form of /openapi/v2 is encoded again ahead of requests when what it documents changes.
  const openApiV2 = new V2Forms();
  registry.onChange(() => openApiV2.changed());
  aggregation?.openapi.onChange(() => openApiV2.changed());
  const app = buildApp({
    naming, resources: () => registry.resources(), documentedResources: () => registry.documentedResources(), builtins: resources, stores, health, authentication: authentication.chain, authorizer: authorization.chain,
    customHandlers, routes: [discoveryRoutes], minRequestTimeoutSeconds: config.minRequestTimeout, metrics, slis, audit: audit.filter,
    inflight: { readOnlyLimit, mutatingLimit, exemptMasters: config.maxInflightExemptMasters }, flowControl,
    requestTimeoutMs: config.requestTimeoutMs, goawayChance: config.goawayChance, aggregationProxy: aggregation?.proxy,
    remoteDiscovery: aggregation?.discovery, remoteOpenApi: aggregation?.openapi, openApiV2Forms: openApiV2, release,
  });
  phases.mark('handler chain');
  const kubeconfigPath = path.join(dataDir, 'admin.kubeconfig');
  const listener = serves ? await listen() : undefined;
  async function listen() {
    const limits = listenerLimits(config, opts.listener);
    const handler = withTurnBudget(koaCallback(app), REQUESTS_PER_TURN,
      // Priority and fairness bounds its own queues (queue-full) after classification; the turn queue
      // in front of it is still bounded (memory under a flood; health probes skip it), but wider (four
      // times the seats, at least 2,400 requests: a few turns' worth), so that what is refused there,
      // unclassified, is only a flood no level's queues would have taken.
      turnQueueBound(readOnlyLimit, mutatingLimit,
        flowControl ? Math.max(APF_TURN_QUEUE_FACTOR * (readOnlyLimit + mutatingLimit), APF_TURN_QUEUE_MIN) : undefined));
    // Certificate, key, client CAs, --tls-min-version and --tls-cipher-suites (TLS 1.3 with
    // AES-128-GCM first, as Go's crypto/tls prefers on AES hardware: ~15% cheaper per byte than
    // OpenSSL's default AES-256-GCM, which big lists feel).
    const tlsOptions = { ...servingTls.contextOptions(), requestCert: true, rejectUnauthorized: false };
    let server: import('node:tls').Server;
    let sessions: Set<{ close(): void; destroy(): void }>;
    if (config.http2Server === 'own') {
      // HTTP/2 on lib/http2, HTTP/1.1 on lib/http1 or node:http (--http2-server=own, --http1-server).
      const own = createOwnH2Listener(tlsOptions, limits, config.http1Server);
      server = own.server;
      sessions = own.sessions;
      server.on('sessionError', (err: Error) => logger.error('a connection failed on a fault of this server (cut; the server goes on)', { err: err.message }));
      server.on('sessionWarning', (message: string) => logger.warn(message));
      server.on('request', handler);
    } else {
      const h2 = http2.createSecureServer({
        ...tlsOptions, allowHTTP1: true,
        ...listenerOptions(limits),
        // Nagle off on every accepted socket (net.Server option; a tls.Server defaults it to false and
        // only an HTTP/2 session turns it off itself). Without it an HTTP/1.1 response written while
        // the TLS 1.3 session tickets are still unacknowledged waits ~40 ms for the client's delayed ACK.
        noDelay: true,
      }, handler);
      h2.setTimeout(0);
      applyListenerLimits(h2, limits);
      // HTTP/1.1 upgrade requests (exec, attach, port-forward, proxies): offered for a tunnel.
      routeUpgradeRequests(h2, h2);
      const nodeSessions = new Set<http2.ServerHttp2Session>();
      h2.on('session', (s) => { nodeSessions.add(s); s.on('close', () => nodeSessions.delete(s)); });
      server = h2;
      sessions = nodeSessions;
    }
    // One set of TLS session ticket keys for all workers: a client resumes its session on any of them.
    if (opts.worker?.ticketKeys) server.setTicketKeys(opts.worker.ticketKeys);
    const sockets = new Set<import('node:net').Socket>();
    server.on('secureConnection', (sock) => { sockets.add(sock); sock.on('close', () => sockets.delete(sock)); });

    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.securePort, config.bindAddress, () => { server.off('error', reject); resolve(); });
    });
    servingTls.watch(server);
    const port = (server.address() as AddressInfo).port;
    const host = config.bindAddress === '0.0.0.0' || config.bindAddress === '::' ? '127.0.0.1' : config.bindAddress;
    url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
    serverUrl.set(url);
    if (writesKubeconfig(opts.worker)) await writeKubeconfig(kubeconfigPath, {
      server: url, caCertPem: pki.caCertPem,
      clientCertPem: readFileSync(pki.adminCertFile, 'utf8'), clientKeyPem: readFileSync(pki.adminKeyFile, 'utf8'),
    });
    // --insecure-http-port: the same chain over plain HTTP, its requests the insecure superuser's.
    const insecure = config.insecureHttpPort ? await listenInsecure(handler, config.insecureHttpPort, config.insecureHttpBindAddress, limits) : undefined;
    if (insecure) logger.warn('--insecure-http-port: serving plain HTTP without authentication (every request is system:unsecured in system:masters)', { url: insecure.url });
    return { server, sessions, sockets, tracker: new RequestTracker(server), port, insecure };
  }
  const port = listener?.port ?? 0;
  phases.mark('listen');
  // After listening, together: the aggregation layer (the loopback APIServices reach this server
  // at its URL), and the default/kubernetes Service and its endpoints, kept by every replica
  // (--endpoint-reconciler-type).
  const [, kubernetesService] = await allSettledOrThrow([
    aggregation?.start(),
    primaryDuties
      ? startKubernetesService({ config, naming, stores, storage, securePort: port || config.securePort, serviceClusterIp: serviceNetwork.ipRanges[0]?.addressAt(0) })
      : undefined,
  ] as const);
  phases.mark('aggregation, kubernetes service');
  health.markStarted();
  phases.log();
  logger.info(serves ? 'serving' : 'running the controllers (serves no connections)', { url, flavor: naming.flavor, etcd: endpoints.join(','), worker: opts.worker?.index });

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      health.startShutdown();
      // First this replica leaves the kubernetes Service's endpoints, so that clients stop being sent here.
      await kubernetesService?.stop();
      if (config.shutdownDelayDurationMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDelayDurationMs));
      // Stop accepting, end the watches cleanly, let requests in flight finish (graceful-shutdown.ts).
      if (listener) {
        await Promise.all([listener, listener.insecure].map((l) => l && drainServer({ ...l, app }, config.shutdownWatchTerminationGracePeriodMs, DRAIN_TIMEOUT_MS)));
      }
      servingTls.close();
      // After the last response (watches end with their ResponseComplete): flush the audit backends.
      await audit.shutdown();
      authentication.close();
      await authorization.stop();
      await admission.stop();
      await flowControl?.stop();
      await aggregation?.stop();
      await controllers.shutdown();
      await customResources.stop();
      await authenticationInfo.stop();
      await serviceRepair?.stop();
      await apfConfiguration?.stop();
      compactor.stop();
      logCheck.stop();
      encryption?.stop();
      storageObjects.stop();
      await Promise.all(cachers.map((c) => c.stop()));
      await storage.close();
      if (etcd) await etcd.stop();
    })();
    return stopping;
  };
  // A worker that serves no connections hears the server's URL from the primary (the bootstrap signer publishes it).
  const adoptUrl = (served: string) => {
    url = served;
    serverUrl.set(served);
  };
  return { url, port, pki, kubeconfigPath, naming, storage, health, stores, registry, customResources, authentication, authorization, admission, admissionMetrics, aggregation, openApiV2, controllers, metrics, tokenGenerator, serviceAccountKeys, stop, adoptUrl };
}

/** The namespaced stores, one per key prefix: versions of one resource share their objects. */
/**
 * Awaits every promise (an undefined entry is a step this server does not take); throws the first
 * rejection once all have settled, so that no step still runs when the start gives up.
 */
async function allSettledOrThrow<T extends readonly unknown[]>(steps: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const results = await Promise.allSettled(steps);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}

function namespacedContents(stores: StoreIndex): GenericStore[] {
  const byPrefix = new Map<string, GenericStore>();
  for (const s of stores.values()) {
    if (s.def.namespaced && !byPrefix.has(s.collectionPrefix())) byPrefix.set(s.collectionPrefix(), s);
  }
  return [...byPrefix.values()];
}

/** Decoded forms of cached namespaces, by the cache's entry: shared, so frozen (admission only reads them). */
const decodedNamespaces = new WeakMap<KeyValue, ApiObject>();

function decodedOnce(kv: KeyValue): ApiObject {
  let obj = decodedNamespaces.get(kv);
  if (!obj) decodedNamespaces.set(kv, (obj = deepFreeze(decodeKv(kv))));
  return obj;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}
