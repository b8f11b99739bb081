/**
 * A mutating webhook's JSON patch applied as kube-apiserver applies it: to the object as the
 * webhook's version sees it, then decoded back into the kind (fields the schema does not know
 * are dropped), the identity and system fields the store already set kept, and the kind's
 * defaults applied again. A patch that cannot be decoded is the webhook's fault (failurePolicy
 * applies); one that cannot be applied is an internal error.
 */
import { omitEmptyMetadata } from '../../registry/system-fields';
import { dropUnknownFields } from '../../api/field-validation';
import { ApiError, errors } from '../../meta/api-errors';
import { applyJsonPatch } from '../../fieldmanager/json-patch';
import { deepEqual, isPlainObject } from '../../fieldmanager/json-value';
import { ApiObject, ObjectMeta, ResourceDef } from '../../scheme/types';
import { CallingWebhookError } from './webhook-errors';
import { versionedObject } from './admission-review';
import { GroupVersionKind } from './webhook-matcher';

/** Metadata a webhook cannot change: set by the server before admission (Kubernetes sets or checks them after). */
const KEPT_METADATA = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields'];

/** The patch's operations, or a CallingWebhookError when they are not a JSON patch. */
export function decodePatch(hookName: string, patch: Buffer): unknown[] {
  let ops: unknown;
  try {
    ops = JSON.parse(patch.toString('utf8'));
  } catch (err) {
    throw new CallingWebhookError(hookName, `received undecodable patch in webhook response: ${(err as Error).message}`, 503);
  }
  if (!Array.isArray(ops)) {
    throw new CallingWebhookError(hookName, 'received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch', 503);
  }
  return ops;
}

/**
 * `current` patched by `ops` (as `gvk`), ready to replace attrs.object, and whether the webhook
 * changed anything.
 */
export function applyWebhookPatch(def: ResourceDef, current: ApiObject, ops: unknown[], gvk: GroupVersionKind): { object: ApiObject; changed: boolean } {
  const versioned = versionedObject(current, gvk) as ApiObject;
  let patched: unknown;
  try {
    patched = applyJsonPatch(versioned, ops);
  } catch (err) {
    throw errors.internal(err instanceof ApiError ? err.message : String(err));
  }
  if (!isPlainObject(patched)) throw errors.internal('the patched object is not a JSON object');
  const decoded = dropUnknownFields(patched as ApiObject, def.schema);
  const changed = !deepEqual(versioned, decoded);
  const out: ApiObject = { ...decoded };
  // Back to the request's own apiVersion and kind (or none, as it came).
  delete out.apiVersion;
  delete out.kind;
  if (current.apiVersion !== undefined) out.apiVersion = current.apiVersion;
  if (current.kind !== undefined) out.kind = current.kind;
  const meta: ObjectMeta = isPlainObject(out.metadata) ? { ...(out.metadata as ObjectMeta) } : {};
  const before = current.metadata ?? {};
  for (const field of KEPT_METADATA) {
    if (before[field] === undefined) delete meta[field];
    else meta[field] = before[field];
  }
  out.metadata = meta;
  // Decoded as kube-apiserver decodes it: a webhook's `annotations: {}` is no annotation.
  omitEmptyMetadata(out);
  def.strategy.default?.(out);
  return { object: out, changed };
}
