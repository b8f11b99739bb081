/**
 * Graceful deletion, as Kubernetes' rest.BeforeDelete: for a kind whose strategy has a
 * `gracePeriod` hook, a first delete sets deletionTimestamp to now plus the period and
 * deletionGracePeriodSeconds to the period; a later delete may only shorten it (the timestamp
 * moves back by the difference); an equal or longer one, or one naming no period, leaves the
 * object as it is.
 */
import { ApiObject, ObjectMeta, Strategy } from '../scheme/types';
import { DeleteOptions } from './options';
import { timestampAt } from './system-fields';

/** A deletion mark to write: the object's new deletionTimestamp and deletionGracePeriodSeconds. */
export interface GraceMark {
  deletionTimestamp: string;
  deletionGracePeriodSeconds: number;
  /** The first delete request on the object (its generation, when tracked, goes up). */
  first: boolean;
}

/**
 * What a delete does to the object's grace: `immediate` (not graceful: removal, or the plain
 * finalizer path), `pending` (a graceful deletion at least as short is under way: nothing
 * changes), or the mark to write.
 */
export type GraceOutcome = 'immediate' | 'pending' | GraceMark;

export function gracefulDeletion(strategy: Strategy, obj: ApiObject, opts: DeleteOptions): GraceOutcome {
  if (!strategy.gracePeriod) return 'immediate';
  const meta = obj.metadata as ObjectMeta;
  if (meta.deletionTimestamp) {
    const current = meta.deletionGracePeriodSeconds;
    // A deletion already at grace 0 (or without one) is finished at once.
    if (!current) return 'immediate';
    const requested = opts.gracePeriodSeconds;
    if (requested === undefined || requested >= current) return 'pending';
    const start = Date.parse(meta.deletionTimestamp) - current * 1000;
    return { deletionTimestamp: timestampAt(start + requested * 1000), deletionGracePeriodSeconds: requested, first: false };
  }
  const period = strategy.gracePeriod(obj, opts.gracePeriodSeconds);
  if (period <= 0) return 'immediate';
  return { deletionTimestamp: timestampAt(Date.now() + period * 1000), deletionGracePeriodSeconds: period, first: true };
}
