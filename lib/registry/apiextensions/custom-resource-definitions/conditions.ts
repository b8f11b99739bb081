/**
 * The conditions of a CustomResourceDefinition's status (NamesAccepted, Established,
 * Terminating), read and written as Kubernetes' apihelpers do: setting a condition replaces the
 * one of its type, and moves lastTransitionTime only when the status changes.
 */
import { ApiObject } from '../../../scheme/types';
import { CrdCondition, CrdStatus } from './view';

export type CrdConditionType = 'NamesAccepted' | 'Established' | 'Terminating' | string;
export type ConditionStatus = 'True' | 'False' | 'Unknown';

const nowTime = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

function conditionsOf(crd: ApiObject): CrdCondition[] {
  const status = crd.status && typeof crd.status === 'object' && !Array.isArray(crd.status) ? crd.status as CrdStatus : undefined;
  return Array.isArray(status?.conditions) ? status.conditions : [];
}

/** The condition of `type`, or undefined. */
export function findCondition(crd: ApiObject, type: CrdConditionType): CrdCondition | undefined {
  return conditionsOf(crd).find((c) => c && c.type === type);
}

/** Whether the condition of `type` is present with status True. */
export function isTrue(crd: ApiObject, type: CrdConditionType): boolean {
  return findCondition(crd, type)?.status === 'True';
}

/**
 * Sets the condition of `cond.type` on `crd` (mutating it): a new condition is appended; an
 * existing one takes the status, reason and message, and a new lastTransitionTime only when its
 * status changes (or it had none). `now` is for tests.
 */
export function setCondition(crd: ApiObject, cond: { type: CrdConditionType; status: ConditionStatus; reason: string; message: string },
  now: string = nowTime()): void {
  if (!crd.status || typeof crd.status !== 'object' || Array.isArray(crd.status)) crd.status = {};
  const status = crd.status as CrdStatus;
  if (!Array.isArray(status.conditions)) status.conditions = [];
  const existing = status.conditions.find((c) => c && c.type === cond.type);
  if (!existing) {
    status.conditions.push({ type: cond.type, status: cond.status, lastTransitionTime: now, reason: cond.reason, message: cond.message });
    return;
  }
  if (existing.status !== cond.status || !existing.lastTransitionTime) existing.lastTransitionTime = now;
  existing.status = cond.status;
  existing.reason = cond.reason;
  existing.message = cond.message;
}

/** Removes the condition of `type` (mutating `crd`). */
export function removeCondition(crd: ApiObject, type: CrdConditionType): void {
  const status = crd.status as CrdStatus | undefined;
  if (status && Array.isArray(status.conditions)) status.conditions = status.conditions.filter((c) => c?.type !== type);
}
