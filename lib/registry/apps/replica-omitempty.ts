/**
 * Go's `omitempty` on the Deployment and ReplicaSet fields that are plain values: a zero
 * (`paused: false`, `minReadySeconds: 0`, a status count of 0, an empty condition reason) is not
 * written by Kubernetes, so it reads back absent, and does not count as a spec change. Applied as
 * the objects are prepared (before the generation is decided) and again before they are stored.
 */
import { Json, isObject } from '../core/json-fields';

/** Deletes each of `fields` of `o` that holds Go's zero value (0, false, '', an empty list). */
export function omitGoZeros(o: unknown, fields: readonly string[]): void {
  if (!isObject(o)) return;
  for (const f of fields) {
    const v = o[f];
    if (v === 0 || v === false || v === '' || v === null || (Array.isArray(v) && v.length === 0)) delete o[f];
  }
}

/** The same, for each object of the list `o[key]` (conditions). */
export function omitGoZerosInList(o: unknown, key: string, fields: readonly string[]): void {
  if (!isObject(o) || !Array.isArray(o[key])) return;
  for (const item of o[key] as unknown[]) omitGoZeros(item as Json, fields);
}
