/**
 * Server-owned metadata: filled on create, carried over on update. Clients cannot set these.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ApiObject, ObjectMeta } from '../scheme/types';

let lastSecond = -1;
let lastText = '';

/** The time at `ms` (since the epoch) in RFC 3339 with second precision, as Kubernetes serialises metav1.Time. */
export function timestampAt(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The current time as timestampAt formats it (formatted once per second). */
export function now(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastText = timestampAt(second * 1000);
  }
  return lastText;
}

const alphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** Kubernetes' generateName suffix: 5 characters from an alphabet without vowels and confusables. */
export function generateSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += alphabet[randomByte() % alphabet.length];
  return s;
}

/** Random bytes drawn 4 KiB at a time (randomUUID pools its entropy the same way): one call to the CSPRNG per ~800 names, not per name. */
let pool = Buffer.alloc(0);
let poolAt = 0;
function randomByte(): number {
  if (poolAt >= pool.length) {
    pool = randomBytes(4096);
    poolAt = 0;
  }
  return pool[poolAt++];
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

/** ObjectMeta's fields Go writes only when not empty (`omitempty` on a value, or a nil pointer). */
const OMITTED_WHEN_EMPTY = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation',
  'labels', 'annotations', 'ownerReferences', 'finalizers'] as const;
/** Pointers (`*Time`, `*int64`): left out when null, kept when zero. `creationTimestamp` is a Time value written as null when zero: the server always sets it. */
const OMITTED_WHEN_NULL = ['creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const;

const isEmptyValue = (v: unknown): boolean => v === null || v === '' || v === 0
  || (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v as object).length === 0);

/**
 * In place, `obj.metadata` as kube-apiserver has it once decoded into ObjectMeta: empty labels,
 * annotations, finalizers and owner references, empty strings, a zero generation and nulls are
 * absent. (A client's `annotations: {}` would otherwise be stored, and `kubectl diff` would show
 * it as a change the server does not make.) managedFields is the field manager's: an empty list
 * there is a request to reset it.
 */
export function omitEmptyMetadata(obj: ApiObject): void {
  const meta = obj.metadata as Record<string, unknown> | undefined;
  if (!meta || typeof meta !== 'object' || Array.isArray(meta)) return;
  for (const k of OMITTED_WHEN_EMPTY) if (k in meta && isEmptyValue(meta[k])) delete meta[k];
  for (const k of OMITTED_WHEN_NULL) if (meta[k] === null) delete meta[k];
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

/**
 * Deep copy of a JSON value (what JSON.parse or a YAML decode gives: plain objects, arrays,
 * strings, numbers, booleans, null; undefined members are kept). A plain walk: several times
 * faster than structuredClone, which serialises.
 */
export function clone<T>(v: T): T {
  return copyJson(v) as T;
}

function copyJson(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copyJson(v[i]);
    return out;
  }
  if (v instanceof Date) return new Date(v.getTime());
  const out: Record<string, unknown> = {};
  for (const k in v) {
    if (Object.prototype.hasOwnProperty.call(v, k)) out[k] = copyJson((v as Record<string, unknown>)[k]);
  }
  return out;
}
