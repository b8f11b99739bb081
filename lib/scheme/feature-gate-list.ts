/**
 * The feature gates kube-apiserver 1.32 knows, with their stage, default and lock at 1.32 (the
 * versioned specs of k8s.io/apiserver, apiextensions-apiserver, component-base and client-go
 * v0.32, and the k8s.io/kubernetes gates this server acts on). Facts only: FeatureGates
 * (feature-gates.ts) applies them.
 */

/** A gate's stage, as component-base names it. */
export type GateStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

/** One gate at 1.32: `locked` gates cannot be set to the other value. */
export interface GateSpec {
  stage: GateStage;
  default: boolean;
  locked?: boolean;
}

/** Every known gate by name (AllAlpha and AllBeta apart: they switch the others). */
export const FEATURE_GATE_LIST: Readonly<Record<string, GateSpec>> = {
  APIListChunking: { stage: 'GA', default: true, locked: true },
  APIResponseCompression: { stage: 'BETA', default: true },
  APIServerIdentity: { stage: 'BETA', default: true },
  APIServerTracing: { stage: 'BETA', default: true },
  APIServingWithRoutine: { stage: 'ALPHA', default: false },
  AdmissionWebhookMatchConditions: { stage: 'GA', default: true, locked: true },
  AggregatedDiscoveryEndpoint: { stage: 'GA', default: true, locked: true },
  AllowUnsafeMalformedObjectDeletion: { stage: 'ALPHA', default: false },
  AnonymousAuthConfigurableEndpoints: { stage: 'BETA', default: true },
  AnyVolumeDataSource: { stage: 'BETA', default: true },
  AuthorizeWithSelectors: { stage: 'BETA', default: true },
  BtreeWatchCache: { stage: 'BETA', default: true },
  CBORServingAndStorage: { stage: 'ALPHA', default: false },
  CRDValidationRatcheting: { stage: 'BETA', default: true },
  ClientsAllowCBOR: { stage: 'ALPHA', default: false },
  ClientsPreferCBOR: { stage: 'ALPHA', default: false },
  ComponentFlagz: { stage: 'ALPHA', default: false },
  ComponentSLIs: { stage: 'GA', default: true, locked: true },
  ComponentStatusz: { stage: 'ALPHA', default: false },
  ConcurrentWatchObjectDecode: { stage: 'BETA', default: false },
  ConsistentListFromCache: { stage: 'BETA', default: true },
  ContextualLogging: { stage: 'BETA', default: true },
  CoordinatedLeaderElection: { stage: 'ALPHA', default: false },
  CustomResourceFieldSelectors: { stage: 'GA', default: true, locked: true },
  EfficientWatchResumption: { stage: 'GA', default: true, locked: true },
  InformerResourceVersion: { stage: 'ALPHA', default: false },
  KMSv1: { stage: 'DEPRECATED', default: false },
  LoggingAlphaOptions: { stage: 'ALPHA', default: false },
  LoggingBetaOptions: { stage: 'BETA', default: true },
  MaxUnavailableStatefulSet: { stage: 'ALPHA', default: false },
  MutatingAdmissionPolicy: { stage: 'ALPHA', default: false },
  OpenAPIEnums: { stage: 'BETA', default: true },
  RecoverVolumeExpansionFailure: { stage: 'BETA', default: true },
  RemainingItemCount: { stage: 'GA', default: true, locked: true },
  RemoteRequestHeaderUID: { stage: 'ALPHA', default: false },
  ResilientWatchCacheInitialization: { stage: 'BETA', default: true },
  RetryGenerateName: { stage: 'GA', default: true, locked: true },
  SeparateCacheWatchRPC: { stage: 'BETA', default: true },
  StorageVersionAPI: { stage: 'ALPHA', default: false },
  StorageVersionHash: { stage: 'BETA', default: true },
  StrictCostEnforcementForVAP: { stage: 'GA', default: true, locked: true },
  StrictCostEnforcementForWebhooks: { stage: 'GA', default: true, locked: true },
  StructuredAuthenticationConfiguration: { stage: 'BETA', default: true },
  StructuredAuthorizationConfiguration: { stage: 'GA', default: true, locked: true },
  UnauthenticatedHTTP2DOSMitigation: { stage: 'BETA', default: true },
  WatchBookmark: { stage: 'GA', default: true, locked: true },
  WatchCacheInitializationPostStartHook: { stage: 'BETA', default: false },
  WatchFromStorageWithoutResourceVersion: { stage: 'BETA', default: false },
  WatchList: { stage: 'BETA', default: true },
  WatchListClient: { stage: 'BETA', default: false },
};

/**
 * Gates removed before 1.32 (GA, then dropped) that kinds of this server still ask: always on,
 * and, as in Kubernetes, unrecognized when set.
 */
export const REMOVED_GA_GATES: readonly string[] = ['ExpandCSIVolumes', 'ReadWriteOncePod'];

/**
 * Gates with an effect in this server: asked by kinds (FeatureGates.enabled), or GA facts its
 * behaviour has (chunked lists, bookmarks, aggregated discovery, remaining item count...).
 */
export const GATES_WITH_EFFECT: readonly string[] = [
  'AnyVolumeDataSource', 'RecoverVolumeExpansionFailure',
  'APIListChunking', 'WatchBookmark', 'AggregatedDiscoveryEndpoint', 'RemainingItemCount', 'EfficientWatchResumption',
  'AdmissionWebhookMatchConditions', 'RetryGenerateName', 'ConsistentListFromCache',
];
