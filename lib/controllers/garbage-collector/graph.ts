/**
 * The garbage collector's in-memory owner -> dependents graph, keyed by uid and fed by watch
 * events (Kubernetes' GraphBuilder). It does no I/O: each change returns the work it makes
 * necessary, which the collector queues. An owner that is referenced but not (yet) observed is
 * a virtual node; it holds its dependents until it is observed or they let go of it.
 */
import { ApiObject, OwnerReference } from '../../scheme/types';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from '../../registry/propagation';

/** Where an observed object lives: enough to read, update or delete it, and to match references. */
export interface ObjectCoordinates {
  /** Key of the object's resource for the collector (the store's collection prefix). */
  resource: string;
  group: string;
  kind: string;
  namespace?: string;
  name: string;
}

/**
 * The dependents of a node that has none: shared, never added to (link() gives a node its own set
 * first). Most nodes are nobody's owner, and an empty Set per object is memory for nothing.
 */
const NO_DEPENDENTS: ReadonlySet<GraphNode> = new Set<GraphNode>();

export interface GraphNode {
  uid: string;
  /** Absent while virtual (only known as someone's owner). */
  coordinates?: ObjectCoordinates;
  /** The node's own metadata.ownerReferences. */
  owners: OwnerReference[];
  /** NO_DEPENDENTS until the node is someone's owner. */
  dependents: ReadonlySet<GraphNode>;
  beingDeleted: boolean;
  /** Being deleted with the foregroundDeletion finalizer: waits for blocking dependents. */
  deletingDependents: boolean;
  /** Being deleted with the orphan finalizer. */
  orphaning: boolean;
}

/**
 * Work a change calls for, by node uid. `attemptToDelete`: look at the node as a dependent (or as
 * an owner deleting its dependents). `attemptToOrphan`: release the node's dependents.
 * `verifyOwners`: the node has owners that are not observed at the coordinates the reference
 * names; classify them with a live read.
 */
export interface GraphWork {
  attemptToDelete: string[];
  attemptToOrphan: string[];
  verifyOwners: string[];
}

const emptyWork = (): GraphWork => ({ attemptToDelete: [], attemptToOrphan: [], verifyOwners: [] });

/** The answer of a change that calls for nothing (read only by the collector). */
const NO_WORK: GraphWork = Object.freeze({
  attemptToDelete: Object.freeze([]) as unknown as string[],
  attemptToOrphan: Object.freeze([]) as unknown as string[],
  verifyOwners: Object.freeze([]) as unknown as string[],
});

/** The group of an ownerReference's apiVersion ('' for the core group). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

const blocks = (ref: OwnerReference | undefined): boolean => ref?.blockOwnerDeletion === true;

export class DependencyGraph {
  private readonly nodes = new Map<string, GraphNode>();

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  /** Number of nodes, virtual ones included. */
  get size(): number {
    return this.nodes.size;
  }

  /**
   * An object was observed (initial state, created or changed). Returns the work this calls for:
   * owners it no longer blocks, a foreground or orphan deletion that starts, owners to verify.
   */
  observe(obj: ApiObject, coordinates: ObjectCoordinates): GraphWork {
    const meta = obj.metadata ?? {};
    const uid = meta.uid;
    if (!uid) return NO_WORK;
    // Most changes are of objects with no owners, not being deleted, that had none before
    // either (every create of such an object): nothing to link, unlink or look at.
    const existing = this.nodes.get(uid);
    const noOwners = !Array.isArray(meta.ownerReferences) || meta.ownerReferences.length === 0;
    if (noOwners && !meta.deletionTimestamp
      && (!existing || (existing.owners.length === 0 && !existing.beingDeleted && !existing.deletingDependents && !existing.orphaning))) {
      if (existing) existing.coordinates = coordinates;
      else this.nodes.set(uid, { uid, coordinates, owners: [], dependents: NO_DEPENDENTS, beingDeleted: false, deletingDependents: false, orphaning: false });
      return NO_WORK;
    }
    const work = emptyWork();
    const owners = Array.isArray(meta.ownerReferences) ? meta.ownerReferences.filter((r) => r && typeof r.uid === 'string') : [];
    const finalizers = meta.finalizers ?? [];
    const beingDeleted = !!meta.deletionTimestamp;

    let node = existing;
    const wasObserved = !!node?.coordinates;
    const before = node ? { deletingDependents: node.deletingDependents, orphaning: node.orphaning } : undefined;
    if (!node) {
      node = { uid, owners: [], dependents: NO_DEPENDENTS, beingDeleted: false, deletingDependents: false, orphaning: false };
      this.nodes.set(uid, node);
    }
    node.coordinates = coordinates;

    const oldByUid = new Map(node.owners.map((r) => [r.uid, r]));
    const newByUid = new Map(owners.map((r) => [r.uid, r]));
    for (const [ownerUid, oldRef] of oldByUid) {
      const newRef = newByUid.get(ownerUid);
      if (newRef) {
        // A reference that stops blocking may let a foreground deletion finish.
        if (blocks(oldRef) && !blocks(newRef)) this.unblocked(ownerUid, work);
        continue;
      }
      this.unlink(node, ownerUid);
      if (blocks(oldRef)) this.unblocked(ownerUid, work);
    }
    const added: OwnerReference[] = [];
    for (const [ownerUid, ref] of newByUid) {
      if (oldByUid.has(ownerUid)) continue;
      this.link(node, ownerUid);
      added.push(ref);
      // A new dependent of an owner already deleting its dependents goes too.
      if (this.nodes.get(ownerUid)?.deletingDependents) work.attemptToDelete.push(uid);
    }
    node.owners = owners;

    // A new node's references, and references added later, are checked against what is observed.
    const toCheck = wasObserved ? added : owners;
    if (toCheck.some((ref) => !this.resolvesTo(ref, coordinates))) work.verifyOwners.push(uid);

    node.beingDeleted = beingDeleted;
    node.deletingDependents = beingDeleted && finalizers.includes(FINALIZER_FOREGROUND);
    node.orphaning = beingDeleted && finalizers.includes(FINALIZER_ORPHAN);
    if (node.orphaning && !before?.orphaning) work.attemptToOrphan.push(uid);
    if (node.deletingDependents && !before?.deletingDependents) {
      for (const dep of node.dependents) work.attemptToDelete.push(dep.uid);
      work.attemptToDelete.push(uid);
    }
    return work;
  }

  /** An object was removed: its dependents are looked at, and owners waiting for it are told. */
  remove(uid: string): GraphWork {
    const work = emptyWork();
    const node = this.nodes.get(uid);
    if (!node) return work;
    if (!node.coordinates) {
      // Never observed: its dependents keep the virtual node, and are looked at.
      for (const dep of node.dependents) work.attemptToDelete.push(dep.uid);
      return work;
    }
    for (const ref of node.owners) {
      this.unlink(node, ref.uid);
      const owner = this.nodes.get(ref.uid);
      if (owner?.deletingDependents) work.attemptToDelete.push(owner.uid);
    }
    node.owners = [];
    for (const dep of node.dependents) work.attemptToDelete.push(dep.uid);
    this.nodes.delete(uid);
    return work;
  }

  /** Dependents whose reference to `owner` has blockOwnerDeletion=true. */
  blockingDependents(owner: GraphNode): GraphNode[] {
    return [...owner.dependents].filter((dep) => blocks(dep.owners.find((r) => r.uid === owner.uid)));
  }

  /**
   * Whether `ref` (held by an object at `dependent`) names an observed node at the coordinates
   * the reference implies: same uid, group, kind and name, and for a namespaced owner the
   * dependent's namespace.
   */
  private resolvesTo(ref: OwnerReference, dependent: ObjectCoordinates): boolean {
    const c = this.nodes.get(ref.uid)?.coordinates;
    if (!c) return false;
    return c.group === groupOf(ref.apiVersion) && c.kind === ref.kind && c.name === ref.name
      && (c.namespace === undefined || c.namespace === dependent.namespace);
  }

  private unblocked(ownerUid: string, work: GraphWork): void {
    if (this.nodes.get(ownerUid)?.deletingDependents) work.attemptToDelete.push(ownerUid);
  }

  private link(dependent: GraphNode, ownerUid: string): void {
    let owner = this.nodes.get(ownerUid);
    if (!owner) {
      owner = { uid: ownerUid, owners: [], dependents: NO_DEPENDENTS, beingDeleted: false, deletingDependents: false, orphaning: false };
      this.nodes.set(ownerUid, owner);
    }
    if (owner.dependents === NO_DEPENDENTS) owner.dependents = new Set([dependent]);
    else (owner.dependents as Set<GraphNode>).add(dependent);
  }

  private unlink(dependent: GraphNode, ownerUid: string): void {
    const owner = this.nodes.get(ownerUid);
    if (!owner) return;
    if (owner.dependents !== NO_DEPENDENTS) (owner.dependents as Set<GraphNode>).delete(dependent);
    // A virtual node exists only for its dependents.
    if (!owner.coordinates && !owner.dependents.size) this.nodes.delete(ownerUid);
  }
}
