/**
 * HTTP handlers of a custom resource's `/scale` (get, update, patch), registered as custom
 * handlers: a Scale is read from the CR, and a written Scale's `spec.replicas` goes into the CR
 * at specReplicasPath through the CR store's update pipeline (the CR strategy validates it, the
 * main resource's rules apply: generation moves, status is kept). Unconditional unless the Scale
 * names a resourceVersion. Patches: JSON patch and merge patch of the Scale.
 */
import { CustomHandlers, CustomScope, customKey } from '../../api/resource-handler';
import { readBodyAs, requestStrategyContext, writeOptionsOf } from '../../api/handlers/scope';
import { writeObject } from '../../api/response-writer';
import { contentTypeOf, decodeBody, readRawBody } from '../../api/negotiation';
import { JSON_PATCH, MERGE_PATCH } from '../../api/handlers/patch';
import { applyJsonPatch } from '../../fieldmanager/json-patch';
import { applyMergePatch } from '../../fieldmanager/merge-patch';
import { errors } from '../../meta/api-errors';
import { objectMeta } from '../../scheme/meta-schema';
import { ApiObject, ResourceDef } from '../../scheme/types';
import { CrdScale } from '../../registry/apiextensions/custom-resource-definitions/view';
import { GenericStore } from '../../registry/store';
import { UNSET_SPEC_REPLICAS, scaleFromCustomResource, withSpecReplicas } from './cr-scale';

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

// The Go decoder's complaint when a Scale field does not fit its int32.
function int32Problem(v: unknown, field: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX) return undefined;
  const what = typeof v === 'number' ? `number ${v}` : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v;
  const struct = field.startsWith('spec') ? 'ScaleSpec' : 'ScaleStatus';
  return `json: cannot unmarshal ${what} into Go struct field ${struct}.${field} of type int32`;
}

/** autoscaling/v1 Scale as a body kind (decoding, field validation). */
export const scaleKind: ResourceDef = {
  group: 'autoscaling', version: 'v1', kind: 'Scale', listKind: 'ScaleList', resource: 'scale', singular: 'scale',
  namespaced: true, shortNames: [], categories: [], verbs: [], subresources: [], deleteReturnsStatus: false,
  nameValidation: 'dns-subdomain', virtual: true,
  schema: {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: objectMeta,
      spec: { type: 'object', properties: { replicas: { type: 'integer', format: 'int32' } } },
      status: { type: 'object', required: ['replicas'], properties: { replicas: { type: 'integer', format: 'int32' }, selector: { type: 'string' } } },
    },
  },
  strategy: {
    checkDecode: (obj) => {
      const spec = obj.spec as { replicas?: unknown } | undefined;
      const status = obj.status as { replicas?: unknown } | undefined;
      return int32Problem(spec?.replicas, 'spec.replicas') ?? int32Problem(status?.replicas, 'status.replicas');
    },
  },
};

function scaleOrThrow(cr: ApiObject, scale: CrdScale, requireReplicas: boolean): { scale: ApiObject; replicasFound: boolean } {
  const res = scaleFromCustomResource(cr, scale);
  if (res.error) throw errors.internal(res.error);
  if (requireReplicas && !res.replicasFound) throw errors.internal(`the spec replicas field ${JSON.stringify(scale.specReplicasPath)} does not exist`);
  return { scale: res.scale as ApiObject, replicasFound: res.replicasFound };
}

/** Writes `next(oldScale)`'s replicas into the CR, as ScaleREST.Update does. */
async function updateScale(s: CustomScope, scale: CrdScale, next: (old: ApiObject) => ApiObject, precondition?: string): Promise<void> {
  const store = s.store as GenericStore;
  const name = s.info.name as string;
  const wopts = writeOptionsOf(s.ctx, s.info.verb);
  const ctx = requestStrategyContext(s.ctx, s.info.namespace, s.user);
  const { object } = await store.updateWith(ctx, name, (current) => {
    const old = scaleOrThrow(current, scale, false);
    if (!old.replicasFound) (old.scale.spec as { replicas: number }).replicas = UNSET_SPEC_REPLICAS;
    const wanted = next(old.scale);
    const replicas = (wanted.spec as { replicas?: number } | undefined)?.replicas ?? 0;
    if (replicas === UNSET_SPEC_REPLICAS) throw errors.badRequest(`the spec replicas field ${JSON.stringify(scale.specReplicasPath)} cannot be empty`);
    const rv = wanted.metadata?.resourceVersion;
    if (rv && rv !== current.metadata?.resourceVersion) throw errors.modified(store.gr, name);
    return withSpecReplicas(current, scale, replicas);
  }, { ...wopts, subresource: 'scale', precondition });
  writeObject(s.ctx, 200, scaleOrThrow(object, scale, false).scale);
}

/** The custom handlers of `/scale` for one served version of a CR resource. */
export function crScaleHandlers(group: string, version: string, plural: string, scale: CrdScale): CustomHandlers {
  const key = (verb: string) => customKey(group, version, plural, 'scale', verb);
  return new Map([
    [key('get'), async (s: CustomScope) => {
      const rv = new URLSearchParams(s.ctx.querystring).get('resourceVersion') || undefined;
      const cr = await (s.store as GenericStore).get(s.info.namespace, s.info.name as string, rv);
      writeObject(s.ctx, 200, scaleOrThrow(cr, scale, true).scale);
    }],
    [key('update'), async (s: CustomScope) => {
      const body = await readBodyAs(s.ctx, scaleKind, s.info.namespace);
      const bodyName = body.metadata?.name;
      if (!bodyName) throw errors.badRequest('name is required in the body of an update (metadata.name)');
      if (bodyName !== s.info.name) {
        throw errors.badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${s.info.name})`);
      }
      await updateScale(s, scale, () => body, body.metadata?.resourceVersion || undefined);
    }],
    [key('patch'), async (s: CustomScope) => {
      const contentType = contentTypeOf(s.ctx);
      const accepted = [JSON_PATCH, MERGE_PATCH];
      if (!accepted.includes(contentType)) throw errors.unsupportedMediaType(contentType, accepted);
      const patch = decodeBody(await readRawBody(s.ctx), 'application/json', ['application/json']);
      if (contentType === JSON_PATCH ? !Array.isArray(patch) : (!patch || typeof patch !== 'object' || Array.isArray(patch))) {
        throw errors.badRequest(contentType === JSON_PATCH ? 'a JSON patch must be a JSON array of operations' : 'a merge patch must be a JSON object');
      }
      await updateScale(s, scale, (old) => {
        const patched = contentType === JSON_PATCH ? applyJsonPatch(old, patch) : applyMergePatch(old, patch);
        if (!patched || typeof patched !== 'object' || Array.isArray(patched)) throw errors.badRequest('the patch did not produce an object of kind Scale');
        const problem = scaleKind.strategy.checkDecode?.(patched as ApiObject);
        if (problem) throw errors.badRequest(`Scale in version "v1" cannot be handled as a Scale: ${problem}`);
        return patched as ApiObject;
      });
    }],
  ]);
}
