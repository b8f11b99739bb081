/**
 * Kube-apiserver's PostStartHook `scheduling/bootstrap-system-priority-classes`: every server
 * replica makes sure the two system PriorityClasses exist, reading each first and creating it
 * when missing (an AlreadyExists from another replica is success), retried every second for up
 * to 30 seconds before the start is given up. A class deleted from etcd by hand is so back at
 * the next start. Its check `poststarthook/scheduling/bootstrap-system-priority-classes` fails
 * until then. Nothing happens on a server that does not serve PriorityClass.
 */
import { GenericStore } from '../registry/store';
import { StoreIndex, storeKey } from '../registry/store-index';
import { HealthChecks } from '../api/health';
import { SYSTEM_PRIORITY_CLASSES, systemPriorityClassObject } from '../registry/scheduling/priority-classes/system-classes';

export interface PriorityClassBootstrapDeps {
  stores: StoreIndex;
  /** The flavor's scheduling group (`scheduling.k8s.io`). */
  group: string;
  log: { info(m: string, meta?: object): void; warn(m: string, meta?: object): void };
  health?: HealthChecks;
  timeoutMs?: number;
  retryIntervalMs?: number;
}

const codeOf = (err: unknown): unknown => (err as { code?: unknown }).code;

/** One pass over the system classes: true when all exist. */
async function ensureOnce(store: GenericStore, group: string, log: PriorityClassBootstrapDeps['log']): Promise<boolean> {
  for (const spc of SYSTEM_PRIORITY_CLASSES) {
    try {
      await store.get(undefined, spc.name);
      continue;
    } catch (err) {
      if (codeOf(err) !== 404) {
        log.warn('unable to get PriorityClass; retrying', { name: spc.name, reason: (err as Error).message });
        return false;
      }
    }
    try {
      await store.create({}, systemPriorityClassObject(spc, `${group}/v1`), { dryRun: false });
      log.info('created PriorityClass', { name: spc.name, value: spc.value });
    } catch (err) {
      if (codeOf(err) === 409) continue;
      log.warn('unable to create PriorityClass; retrying', { name: spc.name, reason: (err as Error).message });
      return false;
    }
  }
  return true;
}

/** Creates the missing system classes; answers false when PriorityClass is not served. */
export async function bootstrapSystemPriorityClasses(deps: PriorityClassBootstrapDeps): Promise<boolean> {
  const store = deps.stores.get(storeKey(deps.group, 'v1', 'priorityclasses')) as GenericStore | undefined;
  if (!store) return false;
  let done = false;
  deps.health?.add('poststarthook/scheduling/bootstrap-system-priority-classes', async () => {
    if (!done) throw new Error('not finished');
  }, { healthz: true, livez: true, readyz: true });
  const deadline = Date.now() + (deps.timeoutMs ?? 30_000);
  while (!(await ensureOnce(store, deps.group, deps.log))) {
    if (Date.now() >= deadline) throw new Error('unable to add default system priority classes: timed out waiting for the condition');
    await new Promise((r) => setTimeout(r, deps.retryIntervalMs ?? 1000));
  }
  deps.log.info('all system priority classes are created successfully or already exist.');
  done = true;
  return true;
}
