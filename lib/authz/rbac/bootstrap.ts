/**
 * The bootstrap policy, reconciled at every start (Kubernetes' post-start hook
 * `rbac/bootstrap-roles`): every default ClusterRole, ClusterRoleBinding, Role and RoleBinding is
 * created when missing and given what it lacks otherwise (reconcile.ts), so an upgrade brings new
 * permissions and a deleted default comes back, while objects annotated autoupdate=false stay as
 * their owners left them. Failures are retried for a while (etcd may still be coming up); a
 * policy that cannot be written stops the start. Resolves once the watch caches hold the result,
 * so that the policy index started next has it all.
 */
import { Naming } from '../../naming';
import { HealthChecks } from '../../api/health';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { GenericStore } from '../../registry/store';
import { BindingObject, RoleObject } from '../../registry/rbac/types';
import { autoupdateAnnotation, withBootstrapMetadata } from './bootstrap-policy';
import { clusterRoles } from './bootstrap-cluster-roles';
import { controllerRoles } from './bootstrap-controller-roles';
import { clusterRoleBindings } from './bootstrap-bindings';
import { namespaceRoles } from './bootstrap-namespace-roles';
import { ReconcileTarget, reconcileBinding, reconcileInStore, reconcileRole } from './reconcile';

export interface BootstrapPolicy {
  clusterRoles: RoleObject[];
  clusterRoleBindings: BindingObject[];
  /** Namespaced, in the system and public namespaces. */
  roles: RoleObject[];
  roleBindings: BindingObject[];
}

/** The whole default policy of the flavor, each object with the bootstrap label and autoupdate annotation. */
export function bootstrapPolicy(naming: Naming): BootstrapPolicy {
  const controllers = controllerRoles(naming);
  const namespaced = namespaceRoles(naming);
  const mark = <T extends RoleObject | BindingObject>(list: T[]) => list.map((o) => withBootstrapMetadata(naming, o));
  return {
    clusterRoles: mark([...clusterRoles(naming), ...controllers.roles]),
    clusterRoleBindings: mark([...clusterRoleBindings(naming), ...controllers.bindings]),
    roles: mark(namespaced.roles),
    roleBindings: mark(namespaced.bindings),
  };
}

export interface BootstrapDeps {
  stores: StoreIndex;
  naming: Naming;
  log: ReconcileTarget['log'];
  /** Gets the check `poststarthook/rbac/bootstrap-roles`, failing until the policy is in place. */
  health?: HealthChecks;
  /** How long failures are retried before the start is given up (Kubernetes: 30 s). */
  timeoutMs?: number;
  retryIntervalMs?: number;
  /** How long to wait for the watch caches to show the written policy. */
  cacheWaitMs?: number;
}

const RESOURCES = ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'] as const;

/**
 * Reconciles the bootstrap policy through the RBAC kinds' stores. Answers false (and does
 * nothing) when the server has no RBAC kinds.
 */
export async function ensureBootstrapPolicy(deps: BootstrapDeps): Promise<boolean> {
  const { stores, naming, log } = deps;
  const group = naming.group('rbac.authorization');
  const found = RESOURCES.map((r) => stores.get(storeKey(group, 'v1', r)) as GenericStore | undefined);
  if (found.some((s) => !s)) return false;
  const [clusterRoleStore, clusterBindingStore, roleStore, bindingStore] = found as GenericStore[];
  let done = false;
  deps.health?.add('poststarthook/rbac/bootstrap-roles', async () => {
    if (!done) throw new Error('not finished');
  });
  const target = (store: GenericStore, singular: string): ReconcileTarget => ({
    store, describe: `${singular}.${group}`, autoupdateKey: autoupdateAnnotation(naming), log,
    fieldManager: naming.flavor === 'kubernetes' ? 'kube-apiserver' : 'orch-apiserver',
  });
  const policy = bootstrapPolicy(naming);
  // Roles before bindings, as Kubernetes orders them: a binding never points at a role not yet made.
  const steps: Array<Array<() => Promise<unknown>>> = [
    [
      ...policy.clusterRoles.map((o) => () => reconcileInStore(target(clusterRoleStore, 'clusterrole'), o, reconcileRole)),
      ...policy.roles.map((o) => () => reconcileInStore(target(roleStore, 'role'), o, reconcileRole)),
    ],
    [
      ...policy.clusterRoleBindings.map((o) => () => reconcileInStore(target(clusterBindingStore, 'clusterrolebinding'), o, reconcileBinding)),
      ...policy.roleBindings.map((o) => () => reconcileInStore(target(bindingStore, 'rolebinding'), o, reconcileBinding)),
    ],
  ];
  const deadline = Date.now() + (deps.timeoutMs ?? 30_000);
  for (const step of steps) {
    let pending = step;
    for (;;) {
      const results = await Promise.allSettled(pending.map((run) => run()));
      const failed = pending.filter((_, i) => results[i].status === 'rejected');
      if (!failed.length) break;
      const reasons = results.flatMap((r) => (r.status === 'rejected' ? [String((r.reason as Error)?.message ?? r.reason)] : []));
      if (Date.now() >= deadline) throw new Error(`unable to initialize roles: ${reasons[0]} (and ${reasons.length - 1} more)`);
      log.warn('unable to reconcile part of the bootstrap RBAC policy; retrying', { failed: failed.length, reason: reasons[0] });
      await new Promise((r) => setTimeout(r, deps.retryIntervalMs ?? 1000));
      pending = failed;
    }
  }
  await cachesCaughtUp(found as GenericStore[], deps.cacheWaitMs ?? 10_000);
  done = true;
  return true;
}

/** Waits until each store's watch cache (when there is one) has applied everything written so far. */
async function cachesCaughtUp(stores: GenericStore[], timeoutMs: number): Promise<void> {
  const revision = await stores[0].storage.currentRevision();
  await Promise.all(stores.map(async (s) => {
    const cache = s.deps.cache;
    if (cache && !(await cache.waitForRevision(revision, timeoutMs))) {
      throw new Error(`the watch cache of ${s.def.resource} did not reach revision ${revision} in ${timeoutMs} ms`);
    }
  }));
}
