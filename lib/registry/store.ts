/**
 * The generic store: one per resource, configured by the kind's strategy, never subclassed.
 * Every write is validated and admitted first and then done as one etcd transaction that
 * compares mod_revision (create: the key must be absent). See list.ts and delete.ts for the
 * read-many and delete pipelines.
 */
import { ApiObject, ObjectMeta, ResourceDef, StoreEnvironment, StrategyContext, SubresourceDef, apiVersionOf } from '../scheme/types';
import { Storage, KeyValue, PutOptions } from '../storage/interfaces';
import { decodeKv, encodeForStorage, withStoredForm } from '../storage/storage-codec';
import { GroupResource, errors } from '../meta/api-errors';
import { FieldError, fieldErrors } from '../meta/field-errors';
import { validateObjectMeta, validateObjectMetaUpdate } from '../meta/validation';
import type { Admission, AdmissionAttributes } from './admission-attributes';
import { Cacher } from '../storage/cacher/cacher';
import { planGet } from './read-plan';
import { readOne } from './read-source';
import { RequestReads } from './request-reads';
import { UpdateOptions, WriteOptions } from './options';
import { ManagedFieldsEntry, setManagedFields, updateManagedFields } from '../fieldmanager/managed-fields';
import { carryOverUpdateFields, clone, fillCreateFields, generateNameFrom, now, omitEmptyMetadata } from './system-fields';

export interface StoreDeps {
  storage: Storage;
  /** etcd key prefix, e.g. `/registry` (no trailing slash). */
  prefix: string;
  /** The key segment under `prefix` when not the resource name: `<group>/<plural>` for custom resources. */
  keyPrefix?: string;
  admission: Admission;
  /** The resource's watch cache, when --watch-cache is on. */
  cache?: Cacher;
  /** Lifetime of continue tokens (ms). */
  continueTtlMs: number;
  /** --storage-media-type: the encoding objects are written in (read in either). Absent: JSON. */
  storageMediaType?: string;
}

/** How many times a server-side read-modify-write retries a lost compare-and-swap. */
const MAX_CAS_RETRIES = 16;

/** How long a write with a resourceVersion precondition waits for the watch cache to reach it. */
const PRECONDITION_WAIT_MS = 50;

export class GenericStore {
  readonly gr: GroupResource;
  /** How this kind's keys are written: with a lease when its objects expire (Event). */
  private readonly putOptions: PutOptions | undefined;

  constructor(readonly def: ResourceDef, readonly deps: StoreDeps) {
    this.gr = { group: def.group, resource: def.resource };
    this.putOptions = def.ttlSeconds ? { ttlSeconds: def.ttlSeconds } : undefined;
  }

  /** `<prefix>/<resource>/[<namespace>/]<name>` */
  key(namespace: string | undefined, name: string): string {
    return this.def.namespaced ? `${this.collectionPrefix(namespace)}${name}` : `${this.collectionPrefix()}${name}`;
  }

  /** The prefix of all objects of this resource, or of one namespace of it. Ends in '/'. */
  collectionPrefix(namespace?: string): string {
    const base = `${this.deps.prefix}/${this.deps.keyPrefix ?? this.def.resource}/`;
    return this.def.namespaced && namespace ? `${base}${namespace}/` : base;
  }

  get storage(): Storage {
    return this.deps.storage;
  }

  get apiVersion(): string {
    return apiVersionOf(this.def);
  }

  /** A stored object as this version serves it (relabelled when stored at another version). */
  decodeCurrent(kv: KeyValue): ApiObject {
    const obj = decodeKv(kv);
    if (this.def.storageVersion) obj.apiVersion = this.apiVersion;
    return obj;
  }

  /** A stored object as this version serves it, converted when the def has `versioning`. */
  async currentOf(kv: KeyValue): Promise<ApiObject> {
    const v = this.def.versioning;
    return v ? (await v.fromStorage([decodeKv(kv)]))[0] : this.decodeCurrent(kv);
  }

  /** Stored objects as served (kind, apiVersion, output shaping); `list`: one page, one conversion. */
  async outputKvs(kvs: readonly KeyValue[], list = false): Promise<ApiObject[]> {
    const v = this.def.versioning;
    if (!v) return kvs.map((kv) => this.output(decodeKv(kv)));
    return (await v.fromStorage(kvs.map(decodeKv), { list })).map((o) => this.output(o));
  }

  /**
   * The object to store and its bytes: with `versioning`, converted to the storage version
   * (a failed conversion throws before anything is written).
   */
  async storedForm(obj: ApiObject): Promise<{ stored: ApiObject; value: Buffer }> {
    const v = this.def.versioning;
    if (!v) return { stored: obj, value: this.encode(obj) };
    const stored = await v.toStorage({ ...obj, apiVersion: this.apiVersion, kind: this.def.kind });
    return { stored, value: encodeForStorage(stored, this.deps.storageMediaType) };
  }

  /**
   * The response to a write: the object as stored, converted back to this version (Kubernetes
   * answers what a read would), or without `versioning` outputStored() of the object written.
   */
  async outputWritten(obj: ApiObject, stored: ApiObject, value: Buffer, revision: number): Promise<ApiObject> {
    const v = this.def.versioning;
    if (!v) return this.outputStored(obj, value, revision);
    const withRv = { ...stored, metadata: { ...stored.metadata, resourceVersion: String(revision) } };
    const [back] = await v.fromStorage([withRv]);
    const out = this.output(back);
    return back === withRv && v.servesStored(value) ? withStoredForm(out, value, revision) : out;
  }

  /** The bytes to store: labelled with the storage version. */
  encode(obj: ApiObject): Buffer {
    const stored = this.def.storageVersion ? { ...obj, apiVersion: apiVersionOf({ group: this.def.storageGroup ?? this.def.group, version: this.def.storageVersion }) } : obj;
    return encodeForStorage(stored, this.deps.storageMediaType);
  }

  /**
   * The object with its kind and apiVersion, or NotFound. `resourceVersion` per the spec's get
   * table: unset is a consistent read (from etcd), "0" any version, N a version not older than N.
   * `reads`: the request's current reads, which a consistent read joins (RequestReads).
   */
  async get(namespace: string | undefined, name: string, resourceVersion?: string, reads?: RequestReads): Promise<ApiObject> {
    return (await this.outputKvs([await this.getStored(namespace, name, resourceVersion, reads)]))[0];
  }

  /** As get, but the stored key and value (shared with the cache: not to be mutated). */
  async getStored(namespace: string | undefined, name: string, resourceVersion?: string, reads?: RequestReads): Promise<KeyValue> {
    const kv = await readOne(this.storage, this.deps.cache, planGet(resourceVersion), this.key(namespace, name), reads);
    if (!kv) throw errors.notFound(this.gr, name);
    return kv;
  }

  /**
   * output() of an object just stored as `value` at `revision`: without output shaping the
   * response can be the stored bytes (withStoredForm).
   */
  outputStored(obj: ApiObject, value: Buffer, revision: number): ApiObject {
    const out = this.output(obj);
    const v = this.def.versioning;
    return this.def.strategy.decorate || (v && !v.servesStored(value)) ? out : withStoredForm(out, value, revision);
  }

  /** Sets kind/apiVersion and applies the strategy's output shaping. */
  output(obj: ApiObject): ApiObject {
    const shaped = this.def.strategy.decorate ? this.def.strategy.decorate(obj) : obj;
    return { apiVersion: this.apiVersion, kind: this.def.kind, ...shaped };
  }

  async create(ctx: StrategyContext, input: ApiObject, opts: WriteOptions): Promise<ApiObject> {
    let obj = clone(input);
    omitEmptyMetadata(obj);
    let meta = (obj.metadata ??= {}) as ObjectMeta;
    if (meta.resourceVersion) throw errors.badRequest('resourceVersion should not be set on objects to be created');
    if (this.def.namespaced) meta.namespace = ctx.namespace;
    else delete meta.namespace;
    const s = this.def.strategy;
    fillCreateFields(obj, !!s.specChanged);
    s.prepareForCreate?.(obj, ctx);
    const generated = !meta.name && !!meta.generateName;
    if (generated) meta.name = generateNameFrom(String(meta.generateName));
    if (opts.trackFields !== false) meta.managedFields = this.trackUpdate(undefined, obj, opts, input.metadata?.managedFields);
    const attrs = { operation: 'CREATE' as const, resource: this.def, namespace: ctx.namespace, name: meta.name ?? '', object: obj, dryRun: opts.dryRun, fieldManager: opts.fieldManager, ctx, afterWrite: [] as Array<() => void> };
    await this.deps.admission.admit(attrs);
    // Mutating admission may have replaced the object (a webhook's patch).
    obj = attrs.object;
    meta = (obj.metadata ??= {}) as ObjectMeta;
    // Storage work of the kind (the Service allocators), undone below when the write fails.
    const finish = this.def.storageHooks?.beginCreate ? await this.def.storageHooks.beginCreate(obj, this.hookEnv(), opts.dryRun) : undefined;
    try {
      const created = await this.validateAndCreate(ctx, obj, meta, attrs, opts, generated);
      await finish?.(true);
      return created;
    } catch (err) {
      await finish?.(false);
      throw err;
    } finally {
      for (const f of attrs.afterWrite) f();
    }
  }

  /** What the kind's storage hooks receive: the etcd storage and key prefix. */
  hookEnv(): StoreEnvironment {
    return { storage: this.deps.storage, prefix: this.deps.prefix };
  }

  private async validateAndCreate(ctx: StrategyContext, obj: ApiObject, meta: ObjectMeta, attrs: AdmissionAttributes,
    opts: WriteOptions, generated: boolean): Promise<ApiObject> {
    const s = this.def.strategy;
    this.validateOrThrow(obj, [
      ...validateObjectMeta(obj.metadata, { namespaced: this.def.namespaced, nameValidation: this.def.nameValidation }),
      ...(s.validate?.(obj, ctx) ?? []),
    ]);
    await this.deps.admission.validate(attrs);
    s.canonicalize?.(obj);
    if (opts.dryRun) return this.output(obj);

    for (let attempt = 0; ; attempt++) {
      const key = this.key(ctx.namespace, meta.name as string);
      const { stored, value } = await this.storedForm(obj);
      const res = await this.storage.create(key, value, this.putOptions);
      if (res.ok) {
        meta.resourceVersion = String(res.revision);
        return this.outputWritten(obj, stored, value, res.revision);
      }
      // A generated name that collides is drawn again, as Kubernetes does since 1.30.
      if (!generated || attempt >= 7) throw errors.alreadyExists(this.gr, meta.name as string);
      meta.name = generateNameFrom(String(meta.generateName));
    }
  }

  /**
   * PUT: replace the object. A stale resourceVersion is a Conflict; without one the update is
   * unconditional where the strategy allows it (retried server-side on a lost race).
   * `subresource` limits what changes to what that subresource owns.
   */
  async update(ctx: StrategyContext, name: string, input: ApiObject, opts: UpdateOptions):
    Promise<{ object: ApiObject; created: boolean }> {
    const s = this.def.strategy;
    const wantedRv = input.metadata?.resourceVersion;
    // An update of an existing object names the version it replaces unless the kind allows an
    // unconditional one; a PUT that creates (allowCreateOnUpdate) has nothing to name. Checked on
    // the object read, as Kubernetes does: a missing object is NotFound, not this Invalid.
    const requireVersion = !wantedRv && !s.allowUnconditionalUpdate && !opts.subresource;
    const mustName = () => errors.invalid(this.def.kind, this.def.group, name,
      [fieldErrors.invalid('metadata.resourceVersion', 0, 'must be specified for an update')]);
    const onMissing = s.allowCreateOnUpdate && !opts.subresource
      ? () => { const { resourceVersion: _ignored, ...meta } = input.metadata ?? {}; return { ...input, metadata: meta }; }
      : undefined;
    return this.updateWith(ctx, name, input, {
      ...opts, precondition: wantedRv, onMissing, incomingManagedFields: input.metadata?.managedFields, requestBody: input,
      onExisting: requireVersion ? () => { throw mustName(); } : undefined,
    });
  }

  /**
   * The update pipeline shared by PUT, PATCH and apply: read, compute the new object from a copy
   * of the current one (or take `compute` as it), prepare, validate, admit, and write with a
   * compare on mod_revision. A lost race is retried with a fresh read unless the client named a resourceVersion (`precondition`).
   * `onMissing` supplies an object to create when the key does not exist (else NotFound).
   */
  async updateWith(ctx: StrategyContext, name: string, compute: ((current: ApiObject) => ApiObject) | ApiObject,
    opts: UpdateOptions & { precondition?: string; onMissing?: () => ApiObject; onExisting?: () => void; incomingManagedFields?: unknown; requestBody?: unknown }):
    Promise<{ object: ApiObject; created: boolean }> {
    const s = this.def.strategy;
    const sub = opts.subresource ? this.def.subresources.find((r) => r.name === opts.subresource) : undefined;
    const key = this.key(ctx.namespace, name);
    for (let attempt = 0; attempt < MAX_CAS_RETRIES; attempt++) {
      const { kv, cached } = await this.currentForWrite(key, attempt, opts.precondition);
      try {
        if (!kv) {
          if (opts.onMissing) return { object: await this.create(ctx, opts.onMissing(), opts), created: true };
          throw errors.notFound(this.gr, name);
        }
        opts.onExisting?.();
        if (opts.precondition && opts.precondition !== String(kv.modRevision)) throw errors.modified(this.gr, name);
        const current = await this.currentOf(kv);
        // A replacement (PUT) ignores the current object: no copy of it to compute from.
        const input = typeof compute === 'function' ? compute(clone(current)) : compute;
        const uid = input.metadata?.uid;
        if (uid && uid !== current.metadata?.uid) {
          throw errors.conflict(this.gr, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata?.uid}`);
        }
        const obj = sub?.applyUpdate ? sub.applyUpdate(clone(input), clone(current)) : clone(input);
        omitEmptyMetadata(obj);
        obj.metadata ??= {};
        // Apply computed the entries itself (trackFields false); a subresource's copy must keep them.
        if (sub?.applyUpdate && opts.trackFields === false) setManagedFields(obj, (input.metadata?.managedFields ?? []) as ManagedFieldsEntry[]);
        obj.metadata.name = name;
        if (this.def.namespaced) obj.metadata.namespace = ctx.namespace;
        carryOverUpdateFields(obj, current);
        if (!sub) s.prepareForUpdate?.(obj, current, ctx);
        if (s.specChanged?.(obj, current)) obj.metadata.generation = (current.metadata?.generation ?? 0) + 1;
        if (opts.trackFields !== false) {
          obj.metadata.managedFields = this.trackUpdate(current, obj, opts, opts.incomingManagedFields, sub?.name, opts.requestBody);
        }
        const result = await this.writeUpdate(ctx, kv, current, obj, opts, !!opts.precondition, cached, sub?.name);
        if (result) return { object: result, created: false };
      } catch (err) {
        // A failure computed from the cache's copy may come from staleness: confirm it against
        // etcd, redoing the work (admission webhooks included) only when the copy was stale.
        if (cached && kv && !(await this.stillCurrent(kv))) continue;
        throw err;
      }
    }
    throw errors.conflict(this.gr, name, 'the object is being changed too often; please retry');
  }

  /**
   * The stored key a write starts from. The first attempt takes it from the watch cache when the
   * cache has it (and, given a resourceVersion precondition, at that version): the write's
   * compare on mod_revision catches a stale copy, and the retry then reads etcd; so does any
   * failure computed from a cached copy (e.g. an apply conflict). Missing from the cache is never
   * trusted: etcd decides NotFound.
   */
  async currentForWrite(key: string, attempt: number, precondition?: string): Promise<{ kv?: KeyValue; cached: boolean }> {
    const cache = this.deps.cache;
    if (attempt === 0 && cache?.ready) {
      let kv = cache.get(key).kv;
      // A client writing right after its previous write names a version the cache may not have
      // applied yet: waiting a moment for the watch is cheaper than a read from etcd.
      const wanted = precondition ? Number(precondition) : NaN;
      if (wanted > 0 && Number.isSafeInteger(wanted) && (!kv || kv.modRevision < wanted)
        && await cache.waitForWatch(wanted, PRECONDITION_WAIT_MS)) {
        kv = cache.get(key).kv;
      }
      if (kv && (!precondition || String(kv.modRevision) === precondition)) return { kv, cached: true };
    }
    return { kv: (await this.storage.get(key)).kv, cached: false };
  }

  /** Whether etcd still holds `kv` at its mod_revision (a read failure counts as no). */
  async stillCurrent(kv: KeyValue): Promise<boolean> {
    try {
      return (await this.storage.get(kv.key)).kv?.modRevision === kv.modRevision;
    } catch {
      return false;
    }
  }

  /** managedFields after a non-apply write by `opts.fieldManager` (Update operation). */
  trackUpdate(live: ApiObject | undefined, next: ApiObject, opts: WriteOptions, incoming: unknown, subresource?: string, requestBody?: unknown): ManagedFieldsEntry[] | undefined {
    const entries = updateManagedFields({
      schema: this.def.schema, live, next, incomingManagedFields: incoming, requestBody,
      manager: opts.fieldManager ?? 'unknown', apiVersion: this.apiVersion, now: now(), subresource,
    });
    return entries.length ? entries : undefined;
  }

  /**
   * Validates, admits and writes `obj` over `current` with one compare on kv.modRevision.
   * Returns undefined when the compare lost and `retry` allows trying again.
   * An object that is being deleted and has no finalizers left is removed instead.
   */
  async writeUpdate(ctx: StrategyContext, kv: KeyValue, current: ApiObject, input: ApiObject, opts: WriteOptions,
    conflictIsFinal: boolean, cached: boolean, subresource?: string): Promise<ApiObject | undefined> {
    const name = current.metadata?.name as string;
    const attrs = { operation: 'UPDATE' as const, resource: this.def, subresource, namespace: ctx.namespace, name, object: input, oldObject: current, dryRun: opts.dryRun, fieldManager: opts.fieldManager, ctx, afterWrite: [] as Array<() => void> };
    await this.deps.admission.admit(attrs);
    // Mutating admission may have replaced the object (a webhook's patch).
    const obj = attrs.object;
    obj.metadata ??= {};
    // Storage work of the kind (not for subresource writes), finished once the write is decided.
    const hooks = subresource ? undefined : this.def.storageHooks;
    const finish = hooks?.beginUpdate ? await hooks.beginUpdate(obj, current, this.hookEnv(), opts.dryRun) : undefined;
    let result: ApiObject | undefined;
    try {
      result = await this.validateAndWrite(ctx, kv, current, obj, attrs, opts, conflictIsFinal, cached);
    } catch (err) {
      await finish?.(false);
      throw err;
    } finally {
      for (const f of attrs.afterWrite) f();
    }
    await finish?.(result !== undefined);
    return result;
  }

  private async validateAndWrite(ctx: StrategyContext, kv: KeyValue, current: ApiObject, obj: ApiObject,
    attrs: AdmissionAttributes, opts: WriteOptions, conflictIsFinal: boolean, cached: boolean): Promise<ApiObject | undefined> {
    const s = this.def.strategy;
    const name = current.metadata?.name as string;
    this.validateOrThrow(obj, [
      ...validateObjectMeta(obj.metadata, { namespaced: this.def.namespaced, nameValidation: this.def.nameValidation }),
      ...validateObjectMetaUpdate(obj.metadata, current.metadata),
      ...(this.subresourceValidation(attrs.subresource)?.(obj, current, ctx) ?? s.validateUpdate?.(obj, current, ctx) ?? s.validate?.(obj, ctx) ?? []),
    ]);
    await this.deps.admission.validate(attrs);
    s.canonicalize?.(obj);
    const removing = this.readyForRemoval(obj);
    if (opts.dryRun) return this.output({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(kv.modRevision) } });
    const written = removing ? undefined : await this.storedForm(obj);
    const value = written?.value;
    if (written && !this.storage.transformsValues && written.value.equals(kv.value)) {
      // Nothing changed (managedFields keep their times when a write takes no field): as
      // Kubernetes' GuaranteedUpdate, no write, no new resourceVersion, no watch event. No
      // compare ever meets etcd on this path, so a cached copy is confirmed first: a stale one
      // (the cache behind a write just made) means trying again from etcd.
      if (cached && !(await this.stillCurrent(kv))) return undefined;
      obj.metadata = { ...obj.metadata, resourceVersion: String(kv.modRevision) };
      return this.outputWritten(obj, written.stored, written.value, kv.modRevision);
    }
    const res = value === undefined
      ? await this.storage.delete(kv.key, kv.modRevision)
      : await this.storage.update(kv.key, value, kv.modRevision, this.putOptions);
    if (!res.ok) {
      if (!res.current) throw errors.notFound(this.gr, name);
      if (conflictIsFinal) throw errors.modified(this.gr, name);
      return undefined;
    }
    if (removing) await this.afterRemoval(current);
    obj.metadata = { ...obj.metadata, resourceVersion: String(removing ? kv.modRevision : res.revision) };
    return written === undefined ? this.output(obj) : this.outputWritten(obj, written.stored, written.value, res.revision);
  }

  /** The update validation of a subresource that has its own (SubresourceDef.validateUpdate). */
  private subresourceValidation(subresource: string | undefined): SubresourceDef['validateUpdate'] {
    return subresource ? this.def.subresources.find((r) => r.name === subresource)?.validateUpdate : undefined;
  }

  /** After an object left etcd: the kind's afterDelete hook (a failure there is the hook's to log). */
  async afterRemoval(removed: ApiObject): Promise<void> {
    await this.def.storageHooks?.afterDelete?.(removed, this.hookEnv());
  }

  /**
   * Deleted, with nothing left that keeps it: no finalizer, and no grace period still running
   * (a Terminating Pod that loses its last finalizer waits for its kubelet's final delete).
   */
  readyForRemoval(obj: ApiObject): boolean {
    const meta = obj.metadata as ObjectMeta;
    return !!meta.deletionTimestamp && !meta.deletionGracePeriodSeconds && !(meta.finalizers?.length) && !this.def.strategy.blocksRemoval?.(obj);
  }

  /**
   * A server-side read-modify-write (Kubernetes' GuaranteedUpdate): `mutate` receives a copy of
   * the current object and returns the new one (or undefined to leave it). Lost races are
   * retried with a fresh read. Used by controllers and by delete.
   */
  async guaranteedUpdate(ctx: StrategyContext, name: string,
    mutate: (current: ApiObject) => ApiObject | undefined, opts: WriteOptions = { dryRun: false }): Promise<ApiObject> {
    const key = this.key(ctx.namespace, name);
    for (let attempt = 0; attempt < MAX_CAS_RETRIES; attempt++) {
      const { kv, cached } = await this.currentForWrite(key, attempt);
      if (!kv) throw errors.notFound(this.gr, name);
      const current = await this.currentOf(kv);
      const next = mutate(clone(current));
      if (!next) {
        // Nothing to change, as a cached copy has it: confirmed against etcd as writeUpdate does.
        if (cached && !(await this.stillCurrent(kv))) continue;
        return this.output(current);
      }
      const result = await this.writeUpdate(ctx, kv, current, next, opts, false, cached);
      if (result) return result;
    }
    throw errors.conflict(this.gr, name, 'the object is being changed too often; please retry');
  }

  validateOrThrow(obj: ApiObject, errs: FieldError[]): void {
    if (errs.length) {
      throw errors.invalid(this.def.kind, this.def.group, String(obj.metadata?.name ?? obj.metadata?.generateName ?? ''), errs);
    }
  }
}
