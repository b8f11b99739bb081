/**
 * The disruption-budget half of pods/eviction (Kubernetes' EvictionREST in
 * pkg/registry/core/pod/storage/eviction.go, 1.32): which PodDisruptionBudgets guard a pod, and
 * checkAndDecrement, which takes one allowed disruption from a budget and records the pod in its
 * status.disruptedPods with a compare-and-swap write of the budget's status, retried on a
 * conflict with a fresh read (a bounded number of times) as Kubernetes retries.
 */
import { ApiError, errors } from '../../meta/api-errors';
import { isEmpty, labelSelectorFromObject, matchesLabels } from '../../meta/label-selector';
import { MetaCondition } from '../../meta/conditions';
import { GenericStore } from '../../registry/store';
import { now } from '../../registry/system-fields';
import { ApiObject, StrategyContext } from '../../scheme/types';

/** Kubernetes' MaxDisruptedPodSize: more unconfirmed evictions than this refuse further ones. */
export const MAX_DISRUPTED_POD_SIZE = 2000;
/** Kubernetes' EvictionsRetry has 20 steps (500ms apart there; shorter here, with the same jitter). */
export const EVICTION_RETRY_STEPS = 20;
const RETRY_DELAY_MS = 50;

const TOO_MANY = "Cannot evict pod as it would violate the pod's disruption budget.";

interface Budget {
  metadata: { name: string; generation?: number; resourceVersion?: string };
  spec?: { selector?: unknown; unhealthyPodEvictionPolicy?: string | null };
  status?: {
    observedGeneration?: number; disruptedPods?: Record<string, string> | null; disruptionsAllowed?: number;
    currentHealthy?: number; desiredHealthy?: number; expectedPods?: number; conditions?: MetaCondition[] | null;
  };
}

export const asBudget = (obj: ApiObject): Budget => obj as unknown as Budget;

/** A 429 TooManyRequests with the DisruptionBudget cause (Retry-After only when positive, as Go writes it). */
function tooManyRequests(cause: string, retryAfterSeconds: number): ApiError {
  const details = { causes: [{ reason: 'DisruptionBudget', message: cause }], ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}) };
  return new ApiError(429, 'TooManyRequests', TOO_MANY, details, retryAfterSeconds > 0 ? { 'Retry-After': String(retryAfterSeconds) } : {});
}

/** createTooManyRequestsError: the budget has not been processed since its last change. */
export const stillBeingProcessed = (name: string): ApiError => tooManyRequests(`The disruption budget ${name} is still being processed by the server.`, 10);

/**
 * getPodDisruptionBudgets: the budgets of the pod's namespace whose selector selects the pod's
 * labels. An invalid, absent or empty selector matches nothing here ("it should match nothing,
 * not everything"), whatever the budget's own version says about empty selectors.
 */
export function budgetsSelecting(budgets: ApiObject[], podLabels: Record<string, string> | undefined): ApiObject[] {
  return budgets.filter((b) => {
    const selector = asBudget(b).spec?.selector;
    if (selector === undefined || selector === null) return false;
    const parsed = labelSelectorFromObject(selector).selector;
    return !!parsed && !isEmpty(parsed) && matchesLabels(parsed, podLabels ?? {});
  });
}

/** pdbhelper.UpdateDisruptionAllowedCondition with apimeta.SetStatusCondition's rules. */
function updateDisruptionAllowedCondition(status: NonNullable<Budget['status']>): void {
  const allowed = (status.disruptionsAllowed ?? 0) > 0;
  const wanted = allowed
    ? { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods' }
    : { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' };
  const conditions = [...(status.conditions ?? [])];
  const i = conditions.findIndex((c) => c.type === wanted.type);
  if (i < 0) {
    conditions.push({ ...wanted, message: '', lastTransitionTime: now() } as MetaCondition);
  } else {
    const old = conditions[i];
    const changed = old.status !== wanted.status;
    const next: MetaCondition = { ...old, status: wanted.status, reason: wanted.reason, message: '' } as MetaCondition;
    if (changed) next.lastTransitionTime = now();
    delete (next as { observedGeneration?: number }).observedGeneration;
    conditions[i] = next;
  }
  status.conditions = conditions;
}

/**
 * checkAndDecrement: refuses when the budget is stale, negative, overfull or exhausted; else
 * takes one disruption and (unless a dry run) writes the status with the pod in disruptedPods,
 * conditional on the budget's resourceVersion (a Conflict ApiError when it lost the race).
 */
async function checkAndDecrement(store: GenericStore, ctx: StrategyContext, podName: string, obj: ApiObject, dryRun: boolean): Promise<void> {
  const pdb = asBudget(obj);
  const name = pdb.metadata.name;
  const status = { ...(pdb.status ?? {}) };
  const gr = { group: 'policy', resource: 'poddisruptionbudget' };
  if ((status.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0)) throw stillBeingProcessed(name);
  const allowed = status.disruptionsAllowed ?? 0;
  if (allowed < 0) throw errors.forbidden(gr, name, 'pdb disruptions allowed is negative');
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_POD_SIZE) {
    throw errors.forbidden(gr, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  }
  if (allowed === 0) {
    throw tooManyRequests(`The disruption budget ${name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`, 0);
  }
  status.disruptionsAllowed = allowed - 1;
  if (status.disruptionsAllowed === 0) updateDisruptionAllowedCondition(status);
  if (dryRun) return;
  status.disruptedPods = { ...(status.disruptedPods ?? {}), [podName]: now() };
  await store.update(ctx, name, { ...obj, status }, { dryRun: false, subresource: 'status', fieldManager: 'kube-apiserver' });
}

const isConflict = (e: unknown): boolean => e instanceof ApiError && e.code === 409;
const pause = () => new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * (1 + Math.random() * 0.1)));

/**
 * The retried verify-and-decrement of one budget: a conflict reads the budget again and checks
 * it afresh (so a budget exhausted meanwhile answers 429). Steps exhausted: 504, as Kubernetes'
 * "couldn't update PodDisruptionBudget %q due to conflicts".
 */
export async function takeDisruption(store: GenericStore, ctx: StrategyContext, podName: string, budget: ApiObject, dryRun: boolean): Promise<void> {
  let current = budget;
  const name = asBudget(budget).metadata.name;
  for (let step = 0; step < EVICTION_RETRY_STEPS; step++) {
    try {
      await checkAndDecrement(store, ctx, podName, current, dryRun);
      return;
    } catch (e) {
      if (!isConflict(e)) throw e;
    }
    await pause();
    current = await store.get(ctx.namespace, name);
  }
  throw errors.timeout(`couldn't update PodDisruptionBudget "${name}" due to conflicts`, 10);
}
