/**
 * `POST /api/v1/namespaces/<ns>/pods/<name>/eviction` (authorized as `create` on
 * `pods/eviction`), as kube-apiserver 1.32's EvictionREST answers it. The body is a policy/v1 or
 * policy/v1beta1 Eviction naming the pod, with optional DeleteOptions for its deletion:
 * - a terminal (Succeeded, Failed), Pending or already terminating pod is deleted without
 *   looking at budgets;
 * - otherwise the budgets selecting the pod are found: more than one answers a 500 Status
 *   Failure (Kubernetes does not support it); none, and the pod is deleted;
 * - with one: a pod that is not Ready is deleted without taking a disruption when the budget's
 *   unhealthyPodEvictionPolicy is AlwaysAllow, or (IfHealthyBudget, the default) when the budget
 *   has its desired healthy pods; the deletion is then conditional on the pod's resourceVersion
 *   (a pod that changed meanwhile answers 429);
 * - else one disruption is taken from the budget (budget.ts), recorded in its status before the
 *   pod is deleted; an exhausted or stale budget answers 429 TooManyRequests.
 * Before a deletion the pod gets the DisruptionTarget condition (EvictionByEvictionAPI), as
 * Kubernetes adds it. A dry run (query or deleteOptions) changes neither budget nor pod.
 * Admission (webhooks included) sees the request as a CREATE of `pods/eviction` with the Eviction.
 * Success: 201 with a Status Success.
 */
import { CustomScope } from '../resource-handler';
import { readBodyAs, requestStrategyContext, writeOptionsOf } from '../handlers/scope';
import { writeObject } from '../response-writer';
import { parseDeleteOptions } from '../query';
import { ApiError, errors } from '../../meta/api-errors';
import { fieldErrors } from '../../meta/field-errors';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { GenericStore } from '../../registry/store';
import { deleteObject } from '../../registry/delete';
import { list } from '../../registry/list';
import { DeleteOptions } from '../../registry/options';
import { now } from '../../registry/system-fields';
import { evictionKind } from '../../registry/policy/evictions/definition';
import { ApiObject, StrategyContext } from '../../scheme/types';
import { EVICTION_RETRY_STEPS, asBudget, budgetsSelecting, stillBeingProcessed, takeDisruption } from './budget';

interface PodView {
  metadata?: { name?: string; labels?: Record<string, string>; resourceVersion?: string; uid?: string; deletionTimestamp?: string };
  status?: { phase?: string; conditions?: Array<{ type?: string; status?: string; [k: string]: unknown }> };
}
const view = (pod: ApiObject): PodView => pod as PodView;

/** canIgnorePDB: the pod is terminal, Pending or already being deleted. */
function canIgnoreBudgets(pod: PodView): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata?.deletionTimestamp;
}

/** shouldEnforceResourceVersion: every pod but terminal or terminating ones. */
function shouldEnforceResourceVersion(pod: PodView): boolean {
  const phase = pod.status?.phase;
  return !(phase === 'Succeeded' || phase === 'Failed' || !!pod.metadata?.deletionTimestamp);
}

const isPodReady = (pod: PodView): boolean => (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
const isConflict = (e: unknown): boolean => e instanceof ApiError && e.code === 409;
const withResourceVersion = (opts: DeleteOptions, rv: string | undefined): DeleteOptions =>
  ({ ...opts, preconditions: { ...(opts.preconditions ?? {}), resourceVersion: rv } });

/** The Eviction's DeleteOptions and the request's dryRun, reconciled as propagateDryRun does. */
function evictionDeleteOptions(body: ApiObject, query: URLSearchParams): { opts: DeleteOptions; dryRun: boolean } {
  const raw = body.deleteOptions;
  if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) {
    throw errors.badRequest('Eviction in version "v1" cannot be handled as a Eviction: deleteOptions must be an object');
  }
  const given = (raw ?? {}) as Record<string, unknown>;
  const opts = parseDeleteOptions(given, new URLSearchParams());
  const inBody = Array.isArray(given.dryRun) ? given.dryRun.map(String) : [];
  const bad = inBody.filter((v) => v !== 'All');
  if (bad.length) throw errors.invalid('DeleteOptions', 'meta.k8s.io', '', [fieldErrors.notSupported('dryRun', inBody, ['All'])]);
  const inQuery = query.getAll('dryRun').map((v) => v || 'All');
  // Kubernetes answers this mismatch with a plain error (500); it is the client's input: 400 here.
  if (inBody.length && inQuery.length && inBody.join('\0') !== inQuery.join('\0')) {
    throw errors.badRequest(`Non-matching dry-run options in request and content: [${inQuery.join(' ')}] and [${inBody.join(' ')}]`);
  }
  return { opts, dryRun: inBody.length > 0 || inQuery.length > 0 };
}

export interface EvictionDeps {
  stores: StoreIndex;
}

/** The pods/eviction create handler. */
export function evictionHandler(deps: EvictionDeps) {
  const v1 = evictionKind('v1');
  const v1beta1 = evictionKind('v1beta1');
  return async (s: CustomScope): Promise<void> => {
    const namespace = s.info.namespace as string;
    const name = s.info.name as string;
    const query = new URLSearchParams(s.ctx.querystring);
    writeOptionsOf(s.ctx, 'create');
    let eviction = await readBodyAs(s.ctx, v1, namespace, [v1beta1]);
    const pods = deps.stores.get(storeKey('', 'v1', 'pods')) as GenericStore;
    // policy/v1, or v1beta1 where only that is served (--emulated-version before 1.21): the same
    // objects, and eviction reads their selectors alike (an empty one guards nothing).
    const budgets = deps.stores.get(storeKey('policy', 'v1', 'poddisruptionbudgets')) ?? deps.stores.get(storeKey('policy', 'v1beta1', 'poddisruptionbudgets'));
    const ctx = requestStrategyContext(s.ctx, namespace, s.user);
    // Admission sees a CREATE of pods/eviction carrying the Eviction: the mutating phase before
    // the checks (as the create handler runs it), the validating one after the dry run is known.
    const attrs = {
      operation: 'CREATE' as const, resource: pods.def, subresource: 'eviction', namespace, name, object: eviction,
      dryRun: query.getAll('dryRun').length > 0, ctx,
    };
    await pods.deps.admission.admit(attrs);
    eviction = attrs.object;
    if ((eviction.metadata?.name ?? '') !== name) throw errors.badRequest('name in URL does not match name in Eviction object');
    const { opts: original, dryRun } = evictionDeleteOptions(eviction, query);
    await pods.deps.admission.validate({ ...attrs, object: eviction, dryRun });
    const success = () => writeObject(s.ctx, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const userNamedVersion = !!original.preconditions?.resourceVersion;

    // A pod whose budgets do not matter is deleted at once (retried on a conflict unless the client named a version).
    let pod: PodView | undefined;
    for (let step = 0; ; step++) {
      pod = view(await pods.get(namespace, name));
      if (!canIgnoreBudgets(pod)) break;
      const opts = shouldEnforceResourceVersion(pod) && !userNamedVersion ? withResourceVersion(original, pod.metadata?.resourceVersion) : original;
      try {
        await addConditionAndDelete(pods, ctx, name, opts, dryRun);
        success();
        return;
      } catch (e) {
        if (userNamedVersion || !isConflict(e) || step + 1 >= EVICTION_RETRY_STEPS) throw e;
      }
    }

    let budgetName = '';
    let conditional = false;
    if (budgets) {
      const all = (await list(budgets, namespace, { hasSelector: false })).items;
      const selecting = budgetsSelecting(all, pod.metadata?.labels);
      if (selecting.length > 1) {
        writeObject(s.ctx, 500, {
          kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
          message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500,
        });
        return;
      }
      if (selecting.length === 1) {
        const budget = asBudget(selecting[0]);
        budgetName = budget.metadata.name;
        const status = budget.status ?? {};
        if (!isPodReady(pod) && (budget.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow'
          || ((status.currentHealthy ?? 0) >= (status.desiredHealthy ?? 0) && (status.desiredHealthy ?? 0) > 0))) {
          // An unhealthy pod does not count towards the budget: deleted without taking a disruption.
          conditional = true;
        } else {
          await takeDisruption(budgets, { namespace }, name, selecting[0], dryRun);
        }
      }
    }

    const opts = conditional ? withResourceVersion(original, pod.metadata?.resourceVersion) : original;
    try {
      await addConditionAndDelete(pods, ctx, name, opts, dryRun);
    } catch (e) {
      // The unhealthy pod changed since it was judged (it may be Ready now): the client retries.
      if (isConflict(e) && conditional && !userNamedVersion) throw stillBeingProcessed(budgetName);
      throw e;
    }
    success();
  };
}

/**
 * addConditionAndDeletePod: (unless a dry run) the DisruptionTarget condition is written on the
 * pod, checked against the preconditions, whose resourceVersion then moves to the written one;
 * then the pod is deleted with the options.
 */
async function addConditionAndDelete(pods: GenericStore, ctx: StrategyContext, name: string, opts: DeleteOptions, dryRun: boolean): Promise<void> {
  let options = opts;
  if (!dryRun) {
    const updated = await pods.guaranteedUpdate(ctx, name, (current) => {
      const meta = current.metadata ?? {};
      const pre = opts.preconditions;
      if (pre?.uid && pre.uid !== meta.uid) {
        throw errors.conflict(pods.gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid}`);
      }
      if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
        throw errors.conflict(pods.gr, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`);
      }
      const status = { ...((current.status ?? {}) as Record<string, unknown>) };
      const conditions = Array.isArray(status.conditions) ? [...status.conditions as Array<Record<string, unknown>>] : [];
      const wanted = { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' };
      const i = conditions.findIndex((c) => c.type === wanted.type);
      if (i < 0) conditions.push({ ...wanted, lastProbeTime: null, lastTransitionTime: now() });
      else {
        const old = conditions[i];
        if (old.status === wanted.status && old.reason === wanted.reason && old.message === wanted.message) return undefined;
        conditions[i] = { ...old, ...wanted, ...(old.status !== wanted.status ? { lastTransitionTime: now() } : {}) };
      }
      return { ...current, status: { ...status, conditions } };
    }, { dryRun: false, fieldManager: 'kube-apiserver' });
    if (opts.preconditions?.resourceVersion) options = withResourceVersion(opts, updated.metadata?.resourceVersion);
  }
  await deleteObject(pods, ctx, name, options, { dryRun });
}
