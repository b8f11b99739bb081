/** ConfigMap fixtures and small drivers for the field-manager tests (pure functions, no storage). */
import { applyConfig } from '../../../lib/fieldmanager/apply';
import { FieldSet } from '../../../lib/fieldmanager/field-set';
import { ManagedFieldsEntry, setManagedFields, updateManagedFields } from '../../../lib/fieldmanager/managed-fields';
import { ApiObject } from '../../../lib/scheme/types';
import { configMapSchema } from '../../../lib/registry/core/configmaps/schema';

/** 2024-01-01T00:00:<s>Z (s may exceed 59). */
export const at = (s: number): string => new Date(Date.UTC(2024, 0, 1, 0, 0, s)).toISOString().replace('.000Z', 'Z');

export function cm(data?: Record<string, string>, meta: Record<string, unknown> = {}): ApiObject {
  const o: ApiObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'default', ...meta } };
  if (data) o.data = data;
  return o;
}

/** The stored object after a create (POST) by `manager`. */
export function created(obj: ApiObject, manager: string, time = at(0), extra: Partial<Parameters<typeof updateManagedFields>[0]> = {}): ApiObject {
  const next = structuredClone(obj);
  setManagedFields(next, updateManagedFields({ schema: configMapSchema, next, manager, apiVersion: 'v1', now: time, ...extra }));
  return next;
}

/**
 * The stored object after `manager` replaced `live` by `next` (PUT or non-apply patch). Like the
 * store, the live managedFields travel with the new object unless `next` brings its own.
 */
export function updated(live: ApiObject, next: ApiObject, manager: string, time: string, extra: Partial<Parameters<typeof updateManagedFields>[0]> = {}): ApiObject {
  const n = structuredClone(next);
  if (n.metadata && n.metadata.managedFields === undefined && live.metadata?.managedFields) n.metadata.managedFields = live.metadata.managedFields;
  setManagedFields(n, updateManagedFields({ schema: configMapSchema, live, next: n, manager, apiVersion: 'v1', now: time, ...extra }));
  return n;
}

export function applied(live: ApiObject | undefined, config: ApiObject, manager: string, time: string, force = false, extra: Partial<Parameters<typeof applyConfig>[0]> = {}): ApiObject {
  return applyConfig({ schema: configMapSchema, live, config, manager, apiVersion: 'v1', kind: 'ConfigMap', force, now: time, ...extra });
}

export function entries(obj: ApiObject): ManagedFieldsEntry[] {
  return (obj.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
}

export function entry(obj: ApiObject, manager: string, operation?: 'Apply' | 'Update'): ManagedFieldsEntry | undefined {
  return entries(obj).find((e) => e.manager === manager && (!operation || e.operation === operation));
}

/** `manager/operation` of every entry that owns `path` (serialized keys), sorted. */
export function owners(obj: ApiObject, path: string[]): string[] {
  return entries(obj).filter((e) => FieldSet.fromFieldsV1(e.fieldsV1).has(path)).map((e) => `${e.manager}/${e.operation}`).sort();
}

export const DATA = (key: string) => ['f:data', `f:${key}`];
