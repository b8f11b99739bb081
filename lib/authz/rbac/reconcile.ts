/**
 * Reconciling one role or binding with what the bootstrap policy expects (Kubernetes'
 * pkg/registry/rbac/reconciliation): a missing object is created; one annotated
 * `rbac.authorization.<domain>/autoupdate: "false"` is left as its owner made it; otherwise what
 * is missing is added and nothing is taken away: rules the existing ones do not cover (covers.ts),
 * labels, annotations, aggregation selectors, subjects. A binding to another role is deleted and made
 * anew (roleRef cannot change). The decisions are pure functions; reconcileInStore acts on them
 * through a GenericStore, re-deciding on every lost race.
 */
import { GenericStore } from '../../registry/store';
import { deleteObject } from '../../registry/delete';
import { ApiError } from '../../meta/api-errors';
import { ApiObject } from '../../scheme/types';
import { AggregationRule, BindingObject, LabelSelectorJson, PolicyRule, RoleObject, Subject } from '../../registry/rbac/types';
import { breakdownRule, ruleCovers } from './covers';

export type ReconcileOperation = 'create' | 'update' | 'recreate' | 'none';

export interface Reconciled<T extends ApiObject> {
  /** What to write: the expected object (create, recreate) or the existing one with additions (update). */
  object: T;
  operation: ReconcileOperation;
  /** The existing object opted out: nothing is written, whatever `operation` says would be needed. */
  protected: boolean;
  /** Expected rules (roles) or subjects (bindings) the existing object lacked. */
  missing: Array<PolicyRule | Subject>;
}

const clone = <T>(v: T): T => structuredClone(v);

/** The rules of `wanted` that `owned` together do not grant entirely (each whole, as the policy has it). */
export function missingRules(owned: readonly PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  return wanted.filter((w) => breakdownRule(w).some((atom) => !owned.some((o) => ruleCovers(o, atom))));
}

/** `existing` with every key of `expected` it lacks (the existing values win, as in Kubernetes). */
function mergeMap(expected: Record<string, string> | undefined, existing: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!expected && !existing) return undefined;
  return { ...(expected ?? {}), ...(existing ?? {}) };
}

function lacksAnyKey(existing: Record<string, string> | undefined, expected: Record<string, string> | undefined): boolean {
  return Object.keys(expected ?? {}).some((k) => !existing || !(k in existing));
}

/** Copy of `existing` with the expected labels and annotations it lacks; whether any were added. */
function mergeMetadata<T extends ApiObject>(existing: T, expected: T): { object: T; changed: boolean } {
  const object = clone(existing);
  const meta = (object.metadata ??= {});
  const want = expected.metadata ?? {};
  const changed = lacksAnyKey(meta.labels, want.labels) || lacksAnyKey(meta.annotations, want.annotations);
  const labels = mergeMap(want.labels, meta.labels);
  const annotations = mergeMap(want.annotations, meta.annotations);
  if (labels) meta.labels = labels;
  if (annotations) meta.annotations = annotations;
  return { object, changed };
}

const isProtected = (obj: ApiObject, autoupdateKey: string) => obj.metadata?.annotations?.[autoupdateKey] === 'false';

/** A selector in a form that compares equal whatever order its maps and lists came in. */
function selectorKey(s: LabelSelectorJson): string {
  const labels = Object.entries(s.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const exprs = (s.matchExpressions ?? []).map((e) => [e.key, e.operator, [...(e.values ?? [])].sort()]);
  return JSON.stringify([labels, exprs]);
}

function missingSelectors(existing: AggregationRule | null | undefined, expected: AggregationRule | null | undefined): LabelSelectorJson[] {
  const have = new Set((existing?.clusterRoleSelectors ?? []).map(selectorKey));
  return (expected?.clusterRoleSelectors ?? []).filter((s) => !have.has(selectorKey(s)));
}

/**
 * The reconciliation of a Role or ClusterRole. An aggregated role (with an aggregationRule) gets
 * its missing selectors; its rules are the aggregation controller's and are left as they are.
 */
export function reconcileRole(existing: RoleObject | undefined, expected: RoleObject, autoupdateKey: string): Reconciled<RoleObject> {
  if (!existing) return { object: clone(expected), operation: 'create', protected: false, missing: [...(expected.rules ?? [])] };
  const { object, changed } = mergeMetadata(existing, expected);
  let operation: ReconcileOperation = changed ? 'update' : 'none';
  const missing = missingRules(existing.rules ?? [], expected.rules ?? []);
  if (missing.length) {
    object.rules = [...(existing.rules ?? []), ...clone(missing)];
    operation = 'update';
  }
  if (!expected.aggregationRule && existing.aggregationRule) {
    // Not an aggregated role in this policy: the selectors go, its rules stay.
    delete object.aggregationRule;
    operation = 'update';
  } else {
    const selectors = missingSelectors(existing.aggregationRule, expected.aggregationRule);
    if (selectors.length) {
      object.aggregationRule = { clusterRoleSelectors: [...(existing.aggregationRule?.clusterRoleSelectors ?? []), ...clone(selectors)] };
      operation = 'update';
    }
  }
  return { object, operation, protected: isProtected(existing, autoupdateKey), missing };
}

const sameSubject = (a: Subject, b: Subject) =>
  a.kind === b.kind && (a.apiGroup ?? '') === (b.apiGroup ?? '') && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');

const sameRoleRef = (a: BindingObject, b: BindingObject) =>
  a.roleRef?.apiGroup === b.roleRef?.apiGroup && a.roleRef?.kind === b.roleRef?.kind && a.roleRef?.name === b.roleRef?.name;

/** The reconciliation of a RoleBinding or ClusterRoleBinding; subjects someone added stay. */
export function reconcileBinding(existing: BindingObject | undefined, expected: BindingObject, autoupdateKey: string): Reconciled<BindingObject> {
  if (!existing) return { object: clone(expected), operation: 'create', protected: false, missing: [...(expected.subjects ?? [])] };
  const prot = isProtected(existing, autoupdateKey);
  // roleRef is immutable: another role means another binding, made from the policy alone.
  if (!sameRoleRef(existing, expected)) return { object: clone(expected), operation: 'recreate', protected: prot, missing: [...(expected.subjects ?? [])] };
  const { object, changed } = mergeMetadata(existing, expected);
  const have = existing.subjects ?? [];
  const missing: Subject[] = [];
  for (const s of expected.subjects ?? []) if (!have.some((h) => sameSubject(h, s)) && !missing.some((m) => sameSubject(m, s))) missing.push(s);
  if (missing.length) object.subjects = [...have, ...clone(missing)];
  return { object, operation: missing.length || changed ? 'update' : 'none', protected: prot, missing };
}

/** How reconcileInStore reaches and reports one kind. */
export interface ReconcileTarget {
  store: GenericStore;
  /** As Kubernetes' log lines name the kind: `clusterrole.rbac.authorization.orch.io`. */
  describe: string;
  autoupdateKey: string;
  /** The manager recorded in managedFields (`kube-apiserver` / `orch-apiserver`). */
  fieldManager: string;
  log: { info(msg: string, meta?: object): void; warn(msg: string, meta?: object): void };
}

/** Attempts at one object when it keeps changing under us (Kubernetes: a few, then an error). */
const MAX_ATTEMPTS = 5;

const isReason = (err: unknown, reason: string) => err instanceof ApiError && err.reason === reason;

async function readCurrent<T extends ApiObject>(store: GenericStore, namespace: string | undefined, name: string): Promise<T | undefined> {
  try {
    return await store.get(namespace, name) as T;
  } catch (err) {
    if (isReason(err, 'NotFound')) return undefined;
    throw err;
  }
}

/**
 * Reads the object, decides with `decide`, and writes what it decided: create, update (on the
 * version it read), or delete and create. A race lost to another writer (AlreadyExists,
 * Conflict, NotFound) is decided again on a fresh read. Logs one line per object written.
 */
export async function reconcileInStore<T extends RoleObject | BindingObject>(target: ReconcileTarget, expected: T,
  decide: (existing: T | undefined, expected: T, autoupdateKey: string) => Reconciled<T>): Promise<Reconciled<T>> {
  const { store, log } = target;
  const name = expected.metadata?.name ?? '';
  const namespace = store.def.namespaced ? expected.metadata?.namespace : undefined;
  const ctx = { namespace };
  const opts = { dryRun: false, fieldManager: target.fieldManager };
  const id = `${target.describe}/${name}`;
  const where = namespace ? { namespace } : {};
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const existing = await readCurrent<T>(store, namespace, name);
    const result = decide(existing, expected, target.autoupdateKey);
    if (result.protected) {
      if (result.operation !== 'none') log.warn(`skipped reconcile-protected ${id}`, { ...where, missing: result.missing });
      return result;
    }
    try {
      switch (result.operation) {
        case 'none':
          return result;
        case 'update':
          await store.updateWith(ctx, name, result.object, { ...opts, precondition: existing?.metadata?.resourceVersion });
          log.info(`updated ${id}`, { ...where, added: result.missing });
          return result;
        case 'recreate':
          await deleteObject(store, ctx, name, { preconditions: { uid: existing?.metadata?.uid } }, opts).catch((err) => {
            if (!isReason(err, 'NotFound')) throw err;
          });
          await store.create(ctx, result.object, opts);
          log.info(`recreated ${id}`, where);
          return result;
        case 'create':
          await store.create(ctx, result.object, opts);
          log.info(`created ${id}`, where);
          return result;
      }
    } catch (err) {
      if (isReason(err, 'AlreadyExists') || isReason(err, 'Conflict') || isReason(err, 'NotFound')) continue;
      throw err;
    }
  }
  throw new Error(`unable to reconcile ${id}: it kept changing (${MAX_ATTEMPTS} attempts)`);
}
