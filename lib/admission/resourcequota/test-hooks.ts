/**
 * Seams a test sets to order the quota plugin's and the quota controller's steps against each
 * other (a charge and a recalculation interleaved at a chosen point, without timing). Unset in a
 * server: each is one property read on its path.
 */
import type { AdmissionAttributes } from '../../registry/admission-attributes';
import type { ApiObject } from '../../scheme/types';

export const quotaTestHooks: {
  /** After a request's charge is written, before the request goes on to its write. */
  charged?: (attrs: AdmissionAttributes) => Promise<void>;
  /** After the controller read a quota, before it counts the objects. */
  quotaRead?: (quota: ApiObject) => Promise<void>;
  /** After the controller's recalculation of a quota finished (written or not), by namespace/name. */
  synced?: (key: string) => void;
} = {};
