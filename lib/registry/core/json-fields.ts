/**
 * Readers for the plain-JSON objects validators walk. Bodies have passed the decode type check
 * (Strategy.checkDecode) before validation, so a field is either absent/null or of its schema
 * type; these readers turn absent into the Go zero value and never throw.
 */

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Absent (undefined or null), as a Go nil pointer. */
export const absent = (v: unknown): boolean => v === undefined || v === null;

/** A string field; '' when absent. */
export const text = (o: Json, key: string): string => (typeof o[key] === 'string' ? (o[key] as string) : '');

/** An integer field; undefined when absent (a nil pointer). */
export const integer = (o: Json, key: string): number | undefined => (typeof o[key] === 'number' ? (o[key] as number) : undefined);

/** An object field; undefined when absent. */
export const record = (o: Json, key: string): Json | undefined => (isObject(o[key]) ? (o[key] as Json) : undefined);

/** A list field; [] when absent. */
export const items = (o: Json, key: string): unknown[] => (Array.isArray(o[key]) ? (o[key] as unknown[]) : []);

/** The object entries of a list field (non-objects, already rejected at decode, become {}). */
export const records = (o: Json, key: string): Json[] => items(o, key).map((v) => (isObject(v) ? v : {}));

/** Sets `key` to `value` when it is absent (Kubernetes' SetDefaults_* for one field). */
export function setDefault(o: Json, key: string, value: unknown): void {
  if (absent(o[key])) o[key] = value;
}
