/** Options the REST layer hands to the generic store, already parsed and validated. */
import { LabelSelector } from '../meta/label-selector';
import { FieldSelector } from '../meta/field-selector';

export interface ListOptions {
  labelSelector?: LabelSelector;
  fieldSelector?: FieldSelector;
  /** Whether the request carried a (non-empty) selector: remainingItemCount is then omitted. */
  hasSelector: boolean;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  orphanDependents?: boolean;
}

export interface WriteOptions {
  dryRun: boolean;
  /** The manager recorded in managedFields (default: from the User-Agent). */
  fieldManager?: string;
  /** false: the caller sets managedFields itself (server-side apply). */
  trackFields?: boolean;
}

export interface UpdateOptions extends WriteOptions {
  /** Write through this subresource: only what it owns changes. */
  subresource?: string;
}
