/**
 * Server-owned metadata: filled on create, carried over on update. Clients cannot set these.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ApiObject, ObjectMeta } from '../scheme/types';

/** RFC 3339 with second precision, as Kubernetes serialises metav1.Time. */
export function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const alphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** Kubernetes' generateName suffix: 5 characters from an alphabet without vowels and confusables. */
export function generateSuffix(): string {
  const bytes = randomBytes(5);
  let s = '';
  for (const b of bytes) s += alphabet[b % alphabet.length];
  return s;
}

/** The name generated from `generateName`, truncating the prefix so the result fits 63 characters. */
export function generateNameFrom(prefix: string): string {
  const max = 63 - 5;
  return `${prefix.length > max ? prefix.slice(0, max) : prefix}${generateSuffix()}`;
}

export function fillCreateFields(obj: ApiObject, tracksGeneration: boolean): void {
  const meta = obj.metadata as ObjectMeta;
  meta.uid = randomUUID();
  meta.creationTimestamp = now();
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.resourceVersion;
  if (tracksGeneration) meta.generation = 1;
  else delete meta.generation;
}

/** Copy fields only the server changes from the stored object onto the incoming one. */
export function carryOverUpdateFields(obj: ApiObject, old: ApiObject): void {
  const meta = obj.metadata as ObjectMeta;
  const oldMeta = old.metadata as ObjectMeta;
  meta.uid = oldMeta.uid;
  meta.creationTimestamp = oldMeta.creationTimestamp;
  if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
  else delete meta.deletionTimestamp;
  if (oldMeta.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
  else delete meta.deletionGracePeriodSeconds;
  if (oldMeta.generation !== undefined) meta.generation = oldMeta.generation;
  else delete meta.generation;
  if (meta.managedFields === undefined && oldMeta.managedFields !== undefined) meta.managedFields = oldMeta.managedFields;
}

/** Deep copy of a JSON object. */
export function clone<T>(v: T): T {
  return structuredClone(v);
}
