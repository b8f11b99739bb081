/**
 * The CRD cleanup controller (Kubernetes' CRDFinalizer, apiextensions-apiserver
 * pkg/controller/finalizer/crd_finalizer.go): a CRD deleted while it holds the cleanup finalizer
 * gets Terminating "InstanceDeletionInProgress", then every custom resource of it is deleted
 * through its served store (one deletecollection per namespace, so admission, finalizers and
 * the garbage collector apply), the controller waits until none is left, and finally records
 * the outcome in the Terminating condition and drops the finalizer through `/status`, which lets
 * the store remove the CRD.
 *
 * Runs in every replica, not under leader election, as every kube-apiserver runs it: every
 * write is compared on the resourceVersion it was decided from, deleting what another replica
 * already deleted is a no-op, so replicas racing on one CRD only cost a conflict.
 */
import { GenericStore } from '../../registry/store';
import { deleteCollection } from '../../registry/delete';
import { list } from '../../registry/list';
import { ApiObject, ObjectMeta } from '../../scheme/types';
import { ConditionStatus, isTrue, removeCondition, setCondition } from '../../registry/apiextensions/custom-resource-definitions/conditions';
import { crdNames, crdSpec, crdStatus, semanticEqual } from '../../registry/apiextensions/custom-resource-definitions/view';
import { logger } from '../../logger';
import { CrdStatusController } from './crd-status-writer';

type Terminating = { type: 'Terminating'; status: ConditionStatus; reason: string; message: string };

/** Where the controller finds a CRD's objects: the store serving them, if any. */
export type CustomResourceStoreLookup = (crd: ApiObject) => GenericStore | undefined;

export interface CrdCleanupOptions {
  /** Between two counts of the remaining objects; default 1 s (Kubernetes: 5 s). */
  pollMs?: number;
  /** How long to wait for the objects to go before reporting InstanceDeletionCheck; default 1 min. */
  timeoutMs?: number;
}

const finalizersOf = (crd: ApiObject): string[] => (crd.metadata?.finalizers as string[] | undefined) ?? [];
const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** utilerrors.NewAggregate(errs).Error(): one error alone, several in brackets. */
function aggregate(errs: unknown[]): string {
  const texts = errs.map(errorText);
  return texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
}

/** A copy of `crd` with `cond` as its Terminating condition. */
function withTerminating(crd: ApiObject, cond: Terminating): ApiObject {
  const next: ApiObject = { ...crd, metadata: { ...crd.metadata } as ObjectMeta, status: { ...crdStatus(crd), conditions: (crdStatus(crd).conditions ?? []).map((c) => ({ ...c })) } };
  setCondition(next, cond);
  return next;
}

/** The CRD with its Terminating condition and bookkeeping left out: what a change must touch to matter. */
function withoutTerminating(crd: ApiObject): ApiObject {
  const copy = structuredClone(crd);
  removeCondition(copy, 'Terminating');
  const meta = copy.metadata as ObjectMeta;
  delete meta.resourceVersion;
  delete meta.managedFields;
  return copy;
}

/** Failed with the condition already decided. */
class CleanupError extends Error {
  constructor(readonly condition: Terminating, cause: string) { super(cause); }
}

export class CrdCleanupController extends CrdStatusController {
  private readonly pollMs: number;
  private readonly timeoutMs: number;
  private stopping = false;
  private readonly sleepers = new Set<() => void>();

  /**
   * @param storeFor the served store of a CRD's objects
   * @param isBuiltin whether group/resource is a built-in resource (its objects are not the CRD's)
   * @param finalizer the cleanup finalizer (naming.crdCleanupFinalizer)
   */
  constructor(store: GenericStore, private readonly storeFor: CustomResourceStoreLookup,
    private readonly isBuiltin: (group: string, resource: string) => boolean,
    private readonly finalizer: string, fieldManager: string, opts: CrdCleanupOptions = {}) {
    super(store, 'crd cleanup controller', fieldManager, 2);
    this.pollMs = opts.pollMs ?? 1000;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const wake of this.sleepers) wake();
    await super.stop();
  }

  /** Deleted CRDs still holding the finalizer; a change of only the Terminating condition (our own writes) is no news. */
  protected wants(crd: ApiObject, previous: ApiObject | undefined): boolean {
    if (!this.pending(crd)) return false;
    if (!previous || previous.metadata?.uid !== crd.metadata?.uid) return true;
    return !semanticEqual(withoutTerminating(previous), withoutTerminating(crd));
  }

  protected async sync(name: string): Promise<void> {
    const cached = this.crds.get(name);
    if (!cached || !this.pending(cached)) return;
    const crd = await this.writeStatus(cached, withTerminating(cached, {
      type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress',
    }));
    if (!crd) return this.changedMeanwhile(name);
    const spec = crdSpec(crd);
    const plural = crdStatus(crd).acceptedNames?.plural || crdNames(spec).plural || '';
    let outcome: Terminating;
    if (this.isBuiltin(spec.group ?? '', plural)) {
      outcome = { type: 'Terminating', status: 'False', reason: 'OverlappingBuiltInResource', message: 'instances overlap with built-in resources in storage' };
    } else if (isTrue(crd, 'Established')) {
      try {
        outcome = await this.deleteInstances(crd, `${plural}.${spec.group ?? ''}`);
      } catch (err) {
        if (err instanceof CleanupError) {
          await this.writeStatus(crd, withTerminating(crd, err.condition)).catch((e) => logger.warn('crd cleanup: cannot record failure', { crd: name, error: errorText(e) }));
        }
        throw err;
      }
    } else {
      outcome = { type: 'Terminating', status: 'False', reason: 'NeverEstablished', message: 'resource was never established' };
    }
    // Kubernetes writes the outcome and drops the finalizer in one update, which its store writes
    // before removing the CRD; ours removes it in place of that write, so the outcome goes first
    // for watchers to see it (in the last MODIFIED and in the DELETED event).
    const recorded = await this.writeStatus(crd, withTerminating(crd, outcome));
    if (!recorded) return this.changedMeanwhile(name);
    if (!await this.writeFinal(recorded, finalizersOf(recorded).filter((f) => f !== this.finalizer))) this.changedMeanwhile(name);
  }

  /**
   * A write lost to another writer (another replica, most likely, which then carries on). Gone:
   * done. Else retried after a back-off from what the watch brought, as the watch does not
   * requeue a change of the Terminating condition alone and that replica may not finish.
   */
  private changedMeanwhile(name: string): void {
    if (!this.crds.has(name)) return;
    throw new Error('the custom resource definition changed meanwhile');
  }

  private pending(crd: ApiObject): boolean {
    return !!crd.metadata?.deletionTimestamp && finalizersOf(crd).includes(this.finalizer);
  }

  /** Deletes every object, one deletecollection per namespace that has some, and waits for them to go. */
  private async deleteInstances(crd: ApiObject, groupResource: string): Promise<Terminating> {
    const failed = (reason: string, message: string) => new CleanupError({ type: 'Terminating', status: 'True', reason, message }, message);
    const store = this.storeFor(crd);
    if (!store) {
      throw failed('InstanceDeletionFailed', `could not list instances: unable to find a custom resource client for ${groupResource}: not served yet`);
    }
    let items: ApiObject[];
    try {
      items = (await list(store, undefined, { hasSelector: false })).items;
    } catch (err) {
      throw failed('InstanceDeletionFailed', `could not list instances: ${errorText(err)}`);
    }
    const namespaces = new Set(items.map((o) => o.metadata?.namespace ?? ''));
    const errs: unknown[] = [];
    for (const namespace of namespaces) {
      try {
        await deleteCollection(store, { namespace: namespace || undefined }, { hasSelector: false }, { propagationPolicy: 'Background' }, { dryRun: false });
      } catch (err) {
        errs.push(err);
      }
    }
    if (errs.length) throw failed('InstanceDeletionFailed', `could not issue all deletes: ${aggregate(errs)}`);
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      let remaining: number;
      try {
        remaining = (await store.storage.range(store.collectionPrefix(), { countOnly: true })).count;
      } catch (err) {
        throw failed('InstanceDeletionCheck', `could not confirm zero CustomResources remaining: ${errorText(err)}`);
      }
      if (remaining === 0) break;
      // Shutting down is no outcome to record: another replica, or the next start, goes on.
      if (this.stopping) throw new Error('crd cleanup controller stopped');
      // Go's wait.PollUntilContextTimeout ends with the context's error.
      if (Date.now() + this.pollMs > deadline) throw failed('InstanceDeletionCheck', 'could not confirm zero CustomResources remaining: context deadline exceeded');
      await this.sleep(this.pollMs);
    }
    return { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' };
  }

  /** The last write: the finalizers without ours, through /status, compared on `from`'s resourceVersion; false if lost. */
  private async writeFinal(from: ApiObject, finalizers: string[]): Promise<boolean> {
    const name = from.metadata?.name as string;
    try {
      const { object } = await this.store.updateWith({}, name, (current) => ({ ...current, metadata: { ...current.metadata, finalizers } as ObjectMeta }), {
        dryRun: false, subresource: 'status', fieldManager: this.fieldManager, precondition: String(from.metadata?.resourceVersion ?? ''),
      });
      this.crds.set(name, object);
      return true;
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code !== 404 && code !== 409) throw err;
      return false;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => { clearTimeout(timer); this.sleepers.delete(wake); resolve(); };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }
}
