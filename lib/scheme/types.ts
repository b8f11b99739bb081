/**
 * The kind registry's vocabulary: what a resource is (group, version, kind, plural, scope),
 * what it supports (verbs, subresources), and the strategy hooks the generic store calls.
 */
import type { AuditLevel } from '../meta/audit-annotations';
import { FieldError } from '../meta/field-errors';
import { TableColumns } from '../meta/table';
import { Schema } from './schema';
import { UserInfo } from '../meta/user';

/** Any API object as JSON. Objects stay plain JSON from decode to storage. */
export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [key: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string; kind: string; name: string; uid: string;
  controller?: boolean; blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

/** Context handed to strategies: who is asking, in which namespace. */
export interface StrategyContext {
  namespace?: string;
  /**
   * The request's user (after impersonation): what admission's `userInfo` is. Absent for the
   * server's own in-process writes (controllers), which act as the loopback identity.
   */
  user?: UserInfo;
  /** Adds a `Warning` header to the response (admission plugins and webhooks). */
  warn?(message: string): void;
  /**
   * Records an audit annotation of the request; `level` (default Metadata) is the least audit
   * level whose events carry it (a webhook's patch: Request).
   */
  annotate?(key: string, value: string, level?: AuditLevel): void;
}

/**
 * Per-kind behaviour for the generic store. Every hook is optional; all are synchronous and
 * must not touch storage. Validation hooks return field errors (empty = valid); metadata is
 * validated by the store itself, so these look at the kind's own fields.
 */
export interface Strategy {
  /**
   * Kubernetes' SetDefaults for the kind, alone (no other preparation): applied again to an
   * object a mutating webhook patched, as kube-apiserver defaults what it decodes. The kind's
   * prepareForCreate/prepareForUpdate call it too.
   */
  default?(obj: ApiObject): void;
  /** Clear fields a client may not set on create (e.g. status) and fill defaults. */
  prepareForCreate?(obj: ApiObject, ctx: StrategyContext): void;
  /** Carry over fields an update may not change (e.g. status from `old`). */
  prepareForUpdate?(obj: ApiObject, old: ApiObject, ctx: StrategyContext): void;
  validate?(obj: ApiObject, ctx: StrategyContext): FieldError[];
  validateUpdate?(obj: ApiObject, old: ApiObject, ctx: StrategyContext): FieldError[];
  /** Normalise after validation, before storing (e.g. Secret stringData -> data). */
  canonicalize?(obj: ApiObject): void;
  /** Shape an object for output (e.g. drop write-only fields). Must not mutate its input. */
  decorate?(obj: ApiObject): ApiObject;
  /** Whether a change from `old` to `obj` is a spec change that bumps metadata.generation. */
  specChanged?(obj: ApiObject, old: ApiObject): boolean;
  /** PUT on a missing object creates it. */
  allowCreateOnUpdate?: boolean;
  /** PUT without metadata.resourceVersion is an unconditional update. */
  allowUnconditionalUpdate?: boolean;
  /** Extra fields for field selectors, beyond metadata.name and metadata.namespace. */
  fieldSet?(obj: ApiObject): Record<string, string>;
  /** Field-selector fields this kind supports beyond metadata.name / metadata.namespace. */
  selectableFields?: string[];
  /**
   * A field of fieldSet the watch cache indexes (Kubernetes' indexed trigger): lists and watches
   * whose field selector demands one value of it read and are dispatched through the index.
   */
  indexedField?: string;
  /**
   * Refuses a DELETE of one object by name whatever its state (Kubernetes' REST Delete overrides:
   * the system PriorityClasses): the reason, answered 403 Forbidden. deletecollection does not
   * consult it, as Kubernetes' does not.
   */
  deleteRefusal?(name: string): string | undefined;
  /**
   * Graceful deletion (Kubernetes' CheckGracefulDelete): the grace period in seconds a first
   * delete gives the object, from the one the request names (undefined: none). Above 0 the object
   * stays, Terminating, with deletionTimestamp that far ahead, until a later delete with grace 0
   * (e.g. the Pod's kubelet). Absent: a delete removes the object at once (finalizers aside).
   */
  gracePeriod?(obj: ApiObject, requested: number | undefined): number;
  /** Mark a first delete request on the object (e.g. Namespace phase Terminating). */
  onDeleteRequested?(obj: ApiObject): void;
  /** Besides metadata.finalizers, something else keeps the object (e.g. Namespace spec.finalizers). */
  blocksRemoval?(obj: ApiObject): boolean;
  /** Propagation when a delete names none (Kubernetes' DefaultGarbageCollectionPolicy); absent: DeleteDependents (Background). */
  defaultGarbageCollectionPolicy?: 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';
  /**
   * Type checks that Kubernetes does while decoding (a wrong JSON type, bad base64): returns the
   * reason when the body cannot be handled as this kind (answered 400).
   */
  checkDecode?(obj: ApiObject): string | undefined;
}

export interface SubresourceDef {
  /** e.g. `status`, `finalize`. */
  name: string;
  /** Kind accepted and returned (usually the parent's kind). */
  kind: string;
  /** The group and version of `kind` when not the parent's (serviceaccounts/token: authentication/v1 TokenRequest). */
  group?: string;
  version?: string;
  verbs: string[];
  /**
   * For writes through the subresource: the object to store, built from the incoming object and
   * the current one, taking over only what this subresource may change (e.g. `status`).
   */
  applyUpdate?(incoming: ApiObject, current: ApiObject): ApiObject;
  /**
   * For writes through the subresource: its own update validation, in place of the strategy's
   * validateUpdate (Kubernetes' per-subresource strategy, e.g. pods/ephemeralcontainers). Absent:
   * the strategy's.
   */
  validateUpdate?(obj: ApiObject, old: ApiObject, ctx: StrategyContext): FieldError[];
  /**
   * For a `scale` subresource (kind Scale, group autoscaling, version v1): how the kind's
   * object reads and writes as an autoscaling/v1 Scale. The handler (lib/api/handlers/scale.ts)
   * is the same for every kind that has one.
   */
  scale?: ScaleMapping;
  /**
   * A connect subresource (pods/log, exec, attach, portforward, proxy; nodes/proxy, services/proxy):
   * answered by a handler that reaches the kubelet or the pod (lib/kubelet), not by the store.
   * Discovery lists it; OpenAPI does not describe it (its `kind` is an options kind, not a body).
   */
  connect?: boolean;
}

/** How an object with a `/scale` subresource maps to an autoscaling/v1 Scale. */
export interface ScaleMapping {
  /** The Scale's spec.replicas: the object's desired replicas (after defaults). */
  specReplicas(obj: ApiObject): number;
  /** The Scale's status.replicas: the object's observed replicas (0 when it has no status yet). */
  statusReplicas(obj: ApiObject): number;
  /** The Scale's status.selector: the object's pod selector as a label selector string ('' when none). */
  selector(obj: ApiObject): string;
  /** A copy of the object with its desired replicas set to `replicas`. */
  withReplicas(obj: ApiObject, replicas: number): ApiObject;
}

export interface ResourceDef {
  /** '' for the core group. */
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** Plural, lower-case: the URL segment and the storage key segment. */
  resource: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  subresources: SubresourceDef[];
  strategy: Strategy;
  /** DELETE answers a Status (ConfigMap, Secret) rather than the object. */
  deleteReturnsStatus: boolean;
  /** Objects expire this many seconds after their last write (Event: `--event-ttl`); absent: never. */
  ttlSeconds?: number;
  /** Name validation: DNS subdomain (default), DNS label, or path segment. */
  nameValidation: 'dns-subdomain' | 'dns-label' | 'dns-1035-label' | 'path-segment';
  /** The kind's structural schema (patch strategies, list/map types, OpenAPI). */
  schema: Schema;
  /** The kind's Table columns (kubectl's printed columns); without them the default Name / Created At table. */
  table?: TableColumns;
  /**
   * Not stored: no etcd keys, store or watch cache; its verbs (create) are answered by a handler
   * registered at start (TokenReview, SelfSubjectReview, the access reviews).
   */
  virtual?: boolean;
  /**
   * Set when this def serves a version other than the one its objects are stored at: the
   * storage version's def shares the etcd keys and the watch cache; the store writes objects
   * labelled with the storage version and reads them relabelled with this one (the shapes are
   * the same; lib/registry/served-version.ts builds such a def). Absent: stored as served.
   */
  storageVersion?: string;
  /**
   * Set with `storageVersion` when this def serves, in another group, the objects of a kind
   * stored in `storageGroup` (events.k8s.io/v1 Event over the core/v1 Events: Kubernetes'
   * cohabitating resources). The resource name, and so the etcd keys and watch cache, are the
   * other kind's; the def's `versioning` converts between the two shapes. The storage (and its
   * encryption rules and metrics) is that of `storageGroup`'s resource. Absent: this def's group.
   */
  storageGroup?: string;
  /**
   * `false`: not served unless `--runtime-config` switches its group version (or resource) on, as
   * a version Kubernetes no longer serves (policy/v1beta1). Absent: the level's default (GA and
   * beta on, alpha off).
   */
  servedByDefault?: boolean;
  /**
   * The Kubernetes release that first served this group-version-resource by default, when later
   * than 1.20 (`--emulated-version=1.N` below it leaves it off by default). A version Kubernetes
   * removed gives its removal in `deprecation.removedIn`: under `--emulated-version` it is served
   * by default for the releases before that, whatever `servedByDefault` says of 1.32.
   */
  introducedIn?: [major: number, minor: number];
  /** Set when this version is deprecated: requests to it are warned, annotated and counted (lib/api/deprecation.ts). */
  deprecation?: ApiDeprecation;
  /**
   * `false`: strategic merge patch is refused (415) whatever the schema says, as Kubernetes
   * refuses it for custom resources (no Go types to take patch strategies from). Absent: offered
   * when the schema supports it.
   */
  strategicMerge?: boolean;
  /**
   * Set when reading or writing this version takes more than a relabelling (custom resources:
   * conversion webhooks, read-time defaults): the store, list, get and watch paths await it
   * instead of using `storageVersion` and `strategy.decorate`. Absent: those paths are unchanged.
   */
  versioning?: ObjectVersioning;
  /**
   * Work on storage beyond the object's own key that a write needs (Kubernetes' BeginCreate,
   * BeginUpdate and AfterDelete: the Service allocators). Absent for almost every kind.
   */
  storageHooks?: StorageHooks;
}

/**
 * What the store hands a kind's storage hooks: its etcd storage (lib/storage's Storage, opaque at
 * this floor) and key prefix (`--etcd-prefix`).
 */
export interface StoreEnvironment { readonly storage: object; readonly prefix: string }

/** Called by the store when a write ends: `success` says whether the object was written. */
export type WriteFinisher = (success: boolean) => Promise<void>;

/**
 * Asynchronous hooks around the store's etcd transaction (lib/registry/README.md): begin* run
 * after mutating admission and before validation (they may fill fields validation then checks,
 * and throw an ApiError to refuse), and return the finisher the store calls once the object is
 * written or the write failed; afterDelete runs once the object is removed from etcd.
 * Status writes (`subresource`) do not call them.
 */
export interface StorageHooks {
  beginCreate?(obj: ApiObject, env: StoreEnvironment, dryRun: boolean): Promise<WriteFinisher>;
  beginUpdate?(obj: ApiObject, old: ApiObject, env: StoreEnvironment, dryRun: boolean): Promise<WriteFinisher>;
  afterDelete?(obj: ApiObject, env: StoreEnvironment): Promise<void>;
}

/** How a def's objects are converted between this version and the versions they are stored at. */
export interface ObjectVersioning {
  /**
   * Stored objects (decoded, each at the version it was stored at) as this version serves them,
   * in order; one batch is one conversion (`list`: the items of one list page). An object that
   * needs nothing comes back as itself; the others are new objects. Rejects with an ApiError (500).
   */
  fromStorage(objects: ApiObject[], opts?: { list?: boolean }): Promise<ApiObject[]>;
  /** An object of this version as it is to be stored (the storage version). */
  toStorage(object: ApiObject): Promise<ApiObject>;
  /** Whether stored bytes are served as they are (stored at this version, nothing to default): no parse. */
  servesStored(value: Buffer): boolean;
}

/**
 * A served version's deprecation, as Kubernetes' API lifecycle describes it. `deprecatedIn`
 * absent: deprecated regardless of the release (a custom resource version marked deprecated);
 * present, it applies from that release on. `warning` replaces the generated warning text.
 */
export interface ApiDeprecation {
  deprecatedIn?: [major: number, minor: number];
  removedIn?: [major: number, minor: number];
  replacement?: { group: string; version: string; kind: string };
  warning?: string;
}

export interface GroupVersion { group: string; version: string }

export function apiVersionOf(gv: GroupVersion): string {
  return gv.group ? `${gv.group}/${gv.version}` : gv.version;
}
