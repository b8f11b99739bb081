/**
 * Kubernetes' quota evaluator (plugin/pkg/admission/resourcequota/controller.go): requests are
 * queued per namespace and one worker per namespace takes all that wait, checks them in order
 * against the namespace's quotas (check.ts), and writes each changed quota's status.used once,
 * with a compare on its resourceVersion, before any of the batch's objects is written. A quota
 * whose write lost the race is read again from etcd and the requests admitted so far are checked
 * again against it (up to ten rounds; Kubernetes stops at three); so concurrent creates, from any number
 * of servers on one etcd, never take a quota past its hard limits. A dry run is checked, never
 * charged.
 */
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { ApiObject } from '../../scheme/types';
import { errors } from '../../meta/api-errors';
import { admissionForbidden } from '../resources/admission-forbidden';
import { CheckInput, QuotaState, checkRequest, quotaState } from './check';
import { Evaluator } from './evaluators/types';
import { LimitedResource } from './config';
import { InFlightCharge } from './in-flight';
import { QuotaStore } from './quota-store';
import { toJson } from './resource-list';
import { quotaTestHooks } from './test-hooks';

interface Pending {
  attrs: AdmissionAttributes;
  input: CheckInput;
  evaluator: Evaluator;
  resolve(): void;
  reject(err: unknown): void;
  /** Why it is refused, once checked. */
  refused?: string;
  /** Its charge kept losing the race for a quota: answered 409 Conflict, to be retried. */
  gaveUp?: boolean;
  /** Whether its last check added to a quota. */
  charges?: boolean;
  /** Open from before its charge is written until its object's write is done (in-flight.ts). */
  inFlight?: InFlightCharge;
}

// Kubernetes gives up after 3; two replicas racing for one quota lose more often than that.
const MAX_ROUNDS = 10;

const copyStates = (states: QuotaState[]): QuotaState[] => states.map((s) => ({ ...s, used: new Map(s.used) }));

export class QuotaEvaluator {
  private readonly queues = new Map<string, Pending[]>();
  private readonly running = new Set<string>();

  constructor(private readonly quotas: QuotaStore, private readonly limited: () => LimitedResource[]) {}

  /** Resolves when the request is admitted (and charged), rejects with 403 when it is not. */
  evaluate(attrs: AdmissionAttributes, input: CheckInput, evaluator: Evaluator): Promise<void> {
    const namespace = attrs.namespace ?? '';
    return new Promise<void>((resolve, reject) => {
      const queue = this.queues.get(namespace) ?? [];
      queue.push({ attrs, input, evaluator, resolve, reject });
      this.queues.set(namespace, queue);
      void this.drain(namespace);
    });
  }

  private async drain(namespace: string): Promise<void> {
    if (this.running.has(namespace)) return;
    this.running.add(namespace);
    try {
      for (let batch = this.take(namespace); batch.length; batch = this.take(namespace)) {
        try {
          await this.runBatch(namespace, batch);
        } catch (err) {
          for (const p of batch) {
            p.inFlight?.close();
            p.reject(err);
          }
        }
      }
    } finally {
      this.running.delete(namespace);
    }
  }

  private take(namespace: string): Pending[] {
    const queue = this.queues.get(namespace) ?? [];
    this.queues.delete(namespace);
    return queue;
  }

  private async runBatch(namespace: string, batch: Pending[]): Promise<void> {
    const limited = this.limited();
    const inFlight = this.quotas.inFlight;
    for (const p of batch) if (!p.attrs.dryRun) p.inFlight = inFlight?.open(namespace);
    let states = (await this.quotas.list(namespace)).map(quotaState);
    let pending = batch;
    for (let round = 0; ; round++) {
      const dirty = new Set<number>();
      for (const p of pending) {
        // A dry run is checked against a copy: it charges nothing.
        const against = p.attrs.dryRun ? copyStates(states) : states;
        const result = checkRequest(against, p.input, p.evaluator, limited);
        if (!result.ok) p.refused = result.reason;
        else if (!p.attrs.dryRun) {
          p.charges = result.changed.length > 0;
          for (const i of result.changed) dirty.add(i);
        }
      }
      const lost: ApiObject[] = [];
      await Promise.all([...dirty].map(async (i) => {
        const written = await this.quotas.writeUsed(states[i].quota, toJson(states[i].used));
        if (!written) lost.push(states[i].quota);
      }));
      if (!lost.length) break;
      if (round + 1 >= MAX_ROUNDS) {
        for (const p of pending) if (!p.refused) p.gaveUp = true;
        break;
      }
      // Check the requests admitted so far again, against fresh copies of the quotas that lost.
      const names = new Set(lost.map((q) => q.metadata?.name));
      states = (await this.quotas.list(namespace, true)).filter((q) => names.has(q.metadata?.name)).map(quotaState);
      pending = pending.filter((p) => !p.refused);
    }
    const charged = quotaTestHooks.charged;
    if (charged) await Promise.all(batch.filter((p) => !p.refused && !p.gaveUp).map((p) => charged(p.attrs)));
    for (const p of batch) {
      // Admitted with a charge: open until the store has written the object (or failed to).
      if (p.inFlight && p.charges && !p.refused && !p.gaveUp && p.attrs.afterWrite) p.attrs.afterWrite.push(p.inFlight.close);
      else p.inFlight?.close();
      if (p.gaveUp) p.reject(errors.conflict({ group: '', resource: 'resourcequotas' }, '', 'the quota is being changed too often; please retry'));
      else if (p.refused) p.reject(admissionForbidden(p.attrs, p.refused));
      else p.resolve();
    }
  }
}
