/**
 * PATCH: JSON patch, merge patch and strategic merge patch change the current object through
 * the shared update pipeline (so a lost race re-applies the patch to a fresh read, unless the
 * patch names a resourceVersion); apply patches go to server-side apply (apply.ts).
 */
import { ResourceScope, writeOptions, strategyContext } from './scope';
import { writeObject } from '../response-writer';
import { contentTypeOf, decodeBody, readRawBody } from '../negotiation';
import { parseBool } from '../query';
import { errors } from '../../meta/api-errors';
import { fieldErrors } from '../../meta/field-errors';
import { ApiObject, ResourceDef } from '../../scheme/types';
import { Schema } from '../../scheme/schema';
import { applyJsonPatch } from '../../fieldmanager/json-patch';
import { applyMergePatch } from '../../fieldmanager/merge-patch';
import { applyStrategicMergePatch, isStrategicMergeSupported } from '../../fieldmanager/strategic-merge-patch';
import { dropUnknownFields, enforceFieldValidation, parseFieldValidation, unknownFields } from '../field-validation';
import { handleApply, APPLY_PATCH_TYPE } from './apply';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';

/** The patch types a kind with this schema accepts (strategic merge needs the kind's patch metadata). */
export function patchTypesForSchema(schema: Schema): string[] {
  const types = [JSON_PATCH, MERGE_PATCH];
  if (isStrategicMergeSupported(schema)) types.push(STRATEGIC_MERGE_PATCH);
  return [...types, APPLY_PATCH_TYPE];
}

/** The patch types a kind accepts: its schema's, without strategic merge when the def refuses it. */
export function patchTypesForDef(def: Pick<ResourceDef, 'schema' | 'strategicMerge'>): string[] {
  const types = patchTypesForSchema(def.schema);
  return def.strategicMerge === false ? types.filter((t) => t !== STRATEGIC_MERGE_PATCH) : types;
}

/** The patch types the scope's kind accepts. */
export function patchTypesFor(s: ResourceScope): string[] {
  return patchTypesForDef(s.store.def);
}

/** The resourceVersion a patch asks for: a precondition, as in Kubernetes. */
export function patchPrecondition(contentType: string, patch: unknown): string | undefined {
  if (contentType === JSON_PATCH) {
    const ops = (patch as unknown[]).filter((o): o is { op?: unknown; path?: unknown; value?: unknown } => !!o && typeof o === 'object');
    const op = ops.find((o) => o.path === '/metadata/resourceVersion' && ['add', 'replace', 'test'].includes(String(o.op)));
    return typeof op?.value === 'string' ? op.value : undefined;
  }
  const rv = (patch as ApiObject).metadata?.resourceVersion;
  return typeof rv === 'string' && rv ? rv : undefined;
}

function mentionsManagedFields(contentType: string, patch: unknown): boolean {
  if (contentType === JSON_PATCH) {
    return (patch as unknown[]).some((o) => !!o && typeof o === 'object' && String((o as { path?: unknown }).path).startsWith('/metadata/managedFields'));
  }
  return (patch as ApiObject).metadata?.managedFields !== undefined;
}

export async function handlePatch(s: ResourceScope): Promise<void> {
  const wopts = writeOptions(s);
  const query = new URLSearchParams(s.ctx.querystring);
  const contentType = contentTypeOf(s.ctx);
  const raw = await readRawBody(s.ctx);
  // The audit event's requestObject at level Request (lib/audit/filter.ts).
  if (s.ctx.state.auditCapture) s.ctx.state.auditRequestPatch = raw;
  if (contentType === APPLY_PATCH_TYPE) return handleApply(s, raw, wopts);
  if (query.has('force')) {
    parseBool(query.get('force') ?? undefined, 'force');
    throw errors.invalid('PatchOptions', 'meta.k8s.io', '', [fieldErrors.forbidden('force', 'may not be specified for non-apply patch')]);
  }
  const accepted = patchTypesFor(s);
  if (!accepted.includes(contentType)) throw errors.unsupportedMediaType(contentType, accepted);
  const patch = decodeBody(raw, 'application/json', ['application/json']);
  if (contentType === JSON_PATCH ? !Array.isArray(patch) : (!patch || typeof patch !== 'object' || Array.isArray(patch))) {
    throw errors.badRequest(contentType === JSON_PATCH ? 'a JSON patch must be a JSON array of operations' : 'a merge patch must be a JSON object');
  }
  const def = s.store.def;
  const fv = parseFieldValidation(query.get('fieldValidation') ?? undefined);
  let checked = false;
  const compute = (current: ApiObject): ApiObject => {
    const patched = contentType === JSON_PATCH ? applyJsonPatch(current, patch)
      : contentType === MERGE_PATCH ? applyMergePatch(current, patch)
        : applyStrategicMergePatch(current, patch, def.schema);
    if (!patched || typeof patched !== 'object' || Array.isArray(patched)) {
      throw errors.badRequest(`the patch did not produce an object of kind ${def.kind}`);
    }
    const obj = patched as ApiObject;
    if (obj.kind !== def.kind || obj.apiVersion !== s.store.apiVersion) {
      throw errors.badRequest(`the patch may not change the kind or apiVersion of the object (${def.kind}, ${s.store.apiVersion})`);
    }
    // Kubernetes decodes the patched JSON into the typed object: a metadata that is no object
    // fails there with 422 on the field `patch` (a null one decodes as empty, as here).
    const meta: unknown = obj.metadata;
    if (meta !== undefined && meta !== null && (typeof meta !== 'object' || Array.isArray(meta))) {
      const type = Array.isArray(meta) ? 'array' : typeof meta === 'boolean' ? 'bool' : typeof meta;
      throw errors.invalid('', '', '', [fieldErrors.invalid('patch', typeof meta === 'string' ? meta.slice(0, 100) : Array.isArray(meta) ? '[...]' : meta,
        `json: cannot unmarshal ${type} into Go struct field ${def.kind}.metadata of type v1.ObjectMeta`)]);
    }
    const problem = def.strategy.checkDecode?.(obj);
    if (problem) throw errors.badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${problem}`);
    if (!checked) {
      // Marked done only once it passed: a retry after a refusal checks again.
      enforceFieldValidation(s.ctx, fv, { unknown: unknownFields(obj, def.schema), duplicate: [] });
      checked = true;
    }
    return dropUnknownFields(obj, def.schema);
  };
  let incoming: unknown;
  const { object } = await s.store.updateWith(strategyContext(s), s.info.name as string, (current) => {
    const obj = compute(current);
    incoming = mentionsManagedFields(contentType, patch) ? obj.metadata?.managedFields : undefined;
    return obj;
  }, {
    ...wopts, subresource: s.info.subresource, precondition: patchPrecondition(contentType, patch),
    get incomingManagedFields() { return incoming; },
    // After a managedFields reset the sender owns every field the (object-shaped) patch names.
    requestBody: contentType === JSON_PATCH ? undefined : patch,
  });
  writeObject(s.ctx, 200, object);
}
