/**
 * Per-request reinvocation bookkeeping of the mutating webhooks (Kubernetes' webhook reinvoke
 * context): which IfNeeded webhooks have been called since the object last changed, which must be
 * called again in the reinvocation round, and the object as the webhooks last left it (to notice
 * a change made by the plugins that run before them in that round).
 */
import { ApiObject } from '../../scheme/types';
import { cloneJson, deepEqual } from '../../fieldmanager/json-value';

export class ReinvocationState {
  private lastOutput?: ApiObject;
  private previouslyInvoked = new Set<string>();
  private readonly reinvoke = new Set<string>();

  shouldReinvoke(uid: string): boolean {
    return this.reinvoke.has(uid);
  }

  /** An IfNeeded webhook was called: a later change will call it again. */
  invoked(uid: string): void {
    this.previouslyInvoked.add(uid);
  }

  /** The object changed: every IfNeeded webhook called before the change gets another turn. */
  objectChanged(): void {
    for (const uid of this.previouslyInvoked) this.reinvoke.add(uid);
    this.previouslyInvoked = new Set();
  }

  /** Start of the reinvocation round: has anyone changed the object since the webhooks last saw it? */
  changedSinceLastRound(obj: ApiObject | undefined): boolean {
    return !deepEqual(this.lastOutput ?? null, obj ?? null);
  }

  /** End of a round: what the webhooks left (only worth a copy when someone may be called again). */
  recordOutput(obj: ApiObject | undefined): void {
    this.lastOutput = this.previouslyInvoked.size && obj ? cloneJson(obj) : undefined;
  }
}
