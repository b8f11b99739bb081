/**
 * HTTP handlers of a custom resource's `/scale` (get, update, patch), registered as custom
 * handlers: a Scale is read from the CR, and a written Scale's `spec.replicas` goes into the CR
 * at specReplicasPath through the CR store's update pipeline (the CR strategy validates it, the
 * main resource's rules apply: generation moves, status is kept). Unconditional unless the Scale
 * names a resourceVersion. Patches: JSON patch and merge patch of the Scale.
 */
import { CustomHandlers, CustomScope, customKey } from '../../api/resource-handler';
import { requestStrategyContext, writeOptionsOf } from '../../api/handlers/scope';
import { writeObject } from '../../api/response-writer';
import { JSON_PATCH, MERGE_PATCH } from '../../api/handlers/patch';
import { patchedScale, readScaleBody, readScalePatch } from '../../api/handlers/scale';
import { errors } from '../../meta/api-errors';
import { ApiObject } from '../../scheme/types';
import { CrdScale } from '../../registry/apiextensions/custom-resource-definitions/view';
import { GenericStore } from '../../registry/store';
import { UNSET_SPEC_REPLICAS, scaleFromCustomResource, withSpecReplicas } from './cr-scale';

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
      const body = await readScaleBody(s);
      await updateScale(s, scale, () => body, body.metadata?.resourceVersion || undefined);
    }],
    [key('patch'), async (s: CustomScope) => {
      const { contentType, patch } = await readScalePatch(s, [JSON_PATCH, MERGE_PATCH]);
      await updateScale(s, scale, (old) => patchedScale(old, contentType, patch));
    }],
  ]);
}
