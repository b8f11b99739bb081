/**
 * JSON Merge Patch (RFC 7386, `application/merge-patch+json`), as `kubectl label`, `annotate`
 * and `patch --type merge` send it: objects merge member by member, `null` removes a member,
 * anything else (arrays included) replaces the target value.
 */
import { JsonObject, cloneJson, isPlainObject } from './json-value';

/**
 * Applies `patch` to `doc` (RFC 7386 section 2) and returns the result.
 * Never mutates `doc` or `patch`; the result shares no objects with either.
 * A patch that is not an object replaces the whole document (so `null` yields `null`);
 * the caller decides whether that result is an acceptable object. Never throws.
 */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return cloneJson(patch);
  const target: JsonObject = isPlainObject(doc) ? cloneJson(doc) : {};
  return mergeInto(target, patch);
}

/** Merges `patch` into `target`, which the caller owns and which is changed in place. */
function mergeInto(target: JsonObject, patch: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete target[key];
    } else if (isPlainObject(value)) {
      const current = Object.hasOwn(target, key) ? target[key] : undefined;
      // Members new to the target still go through the merge so that their nulls are dropped.
      setKey(target, key, mergeInto(isPlainObject(current) ? current : {}, value));
    } else {
      setKey(target, key, cloneJson(value));
    }
  }
  return target;
}

/** Assignment that keeps a member named "__proto__" an ordinary data member. */
function setKey(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}
