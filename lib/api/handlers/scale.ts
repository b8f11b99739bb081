/**
 * The `/scale` subresource of built-in kinds (Deployment, ReplicaSet, StatefulSet,
 * ReplicationController): an autoscaling/v1 Scale read from the object and written back into it,
 * as Kubernetes' ScaleREST of each of those kinds does. The kind says how its object maps to a
 * Scale (`ScaleMapping` on its `scale` subresource, lib/scheme/types.ts); everything else is here:
 *
 * - GET answers the Scale: the object's name, namespace, uid, resourceVersion and
 *   creationTimestamp, spec.replicas, status.replicas and status.selector (a label selector string).
 * - PUT and PATCH (JSON patch, merge patch, strategic merge patch: a Scale has no lists, so the
 *   last is a merge) compute the new Scale from the current one, validate it (ValidateScale:
 *   spec.replicas >= 0, answered as an Invalid Scale), and write its replicas into the object
 *   through the kind's update pipeline: the kind's validation, admission and generation apply.
 *   A resourceVersion in the Scale is a precondition (409 Conflict when stale); without one the
 *   write is unconditional, retried on a lost race.
 *
 * The Scale body kind (`scaleKind`) is shared with custom resources' `/scale`
 * (lib/apiextensions/serving/cr-scale-handlers.ts).
 */
import { CustomHandlers, CustomScope, customKey } from '../resource-handler';
import { readBodyAs, requestStrategyContext, writeOptionsOf } from './scope';
import { writeObject } from '../response-writer';
import { contentTypeOf, decodeBody, readRawBody } from '../negotiation';
import { JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, patchPrecondition } from './patch';
import { applyJsonPatch } from '../../fieldmanager/json-patch';
import { applyMergePatch } from '../../fieldmanager/merge-patch';
import { errors } from '../../meta/api-errors';
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { validateObjectMeta } from '../../meta/validation';
import { objectMeta } from '../../scheme/meta-schema';
import { Schema, int32, object, str, stringMap } from '../../scheme/schema';
import { goType } from '../../scheme/type-names';
import { ApiObject, ResourceDef, ScaleMapping, apiVersionOf } from '../../scheme/types';
import { GenericStore } from '../../registry/store';

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

/** autoscaling/v1 Scale, as Kubernetes' OpenAPI names and describes it. */
export const scaleSchema: Schema = goType('io.k8s.api.autoscaling.v1.Scale', object({
  apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
  kind: str('Kind is a string value representing the REST resource this object represents.'),
  metadata: objectMeta,
  spec: goType('io.k8s.api.autoscaling.v1.ScaleSpec', object({
    replicas: int32('replicas is the desired number of instances for the scaled object.'),
  }, { description: 'ScaleSpec describes the attributes of a scale subresource.' })),
  status: goType('io.k8s.api.autoscaling.v1.ScaleStatus', object({
    replicas: int32('replicas is the actual number of observed instances of the scaled object.'),
    selector: str('selector is the label query over pods that should match the replicas count. This is same as the label selector but in the string format to avoid introspection by clients. The string will be in the same format as the query-param syntax. More info about label selectors: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/'),
  }, { required: ['replicas'], description: 'ScaleStatus represents the current status of a scale subresource.' })),
}, { description: 'Scale represents a scaling request for a resource.' }));

/** autoscaling/v1 Scale as a body kind (decoding, field validation). */
export const scaleKind: ResourceDef = {
  group: 'autoscaling', version: 'v1', kind: 'Scale', listKind: 'ScaleList', resource: 'scale', singular: 'scale',
  namespaced: true, shortNames: [], categories: [], verbs: [], subresources: [], deleteReturnsStatus: false,
  nameValidation: 'dns-subdomain', virtual: true,
  schema: scaleSchema,
  strategy: {
    checkDecode: (obj) => {
      const spec = obj.spec as { replicas?: unknown } | undefined;
      const status = obj.status as { replicas?: unknown } | undefined;
      return int32Problem(spec?.replicas, 'spec.replicas') ?? int32Problem(status?.replicas, 'status.replicas');
    },
  },
};

/**
 * The Scale of the removed workload versions (apps/v1beta1, apps/v1beta2, extensions/v1beta1):
 * autoscaling/v1's, but status.selector is a map (the selector's labels, when it has nothing
 * else) and status.targetSelector the selector string.
 */
function legacyScaleSchema(group: string, version: string): Schema {
  const pkg = `io.k8s.api.${group}.${version}`;
  return goType(`${pkg}.Scale`, object({
    apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
    kind: str('Kind is a string value representing the REST resource this object represents.'),
    metadata: objectMeta,
    spec: goType(`${pkg}.ScaleSpec`, object({
      replicas: int32('desired number of instances for the scaled object.'),
    }, { description: 'describes the attributes of a scale subresource' })),
    status: goType(`${pkg}.ScaleStatus`, object({
      replicas: int32('actual number of observed instances of the scaled object.'),
      selector: stringMap('label query over pods that should match the replicas count. More info: http://kubernetes.io/docs/user-guide/labels#label-selectors'),
      targetSelector: str('label selector for pods that should match the replicas count. This is a serializated version of both map-based and more expressive set-based selectors. This is done to avoid introspection in the clients. The string will be in the same format as the query-param syntax. If the target type only supports map-based selectors, both this field and map-based selector field are populated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors'),
    }, { required: ['replicas'], description: 'represents the current status of a scale subresource.' })),
  }, { description: 'Scale represents a scaling request for a resource.' }));
}

const scaleKinds = new Map<string, ResourceDef>([['autoscaling/v1', scaleKind]]);

/** The Scale body kind of a group version: autoscaling/v1's, or a removed version's own. */
export function scaleKindAt(group: string, version: string): ResourceDef {
  const key = `${group}/${version}`;
  let kind = scaleKinds.get(key);
  if (!kind) scaleKinds.set(key, kind = { ...scaleKind, group, version, schema: legacyScaleSchema(group, version) });
  return kind;
}

/** An autoscaling/v1 Scale as the Scale of `kind`'s group version (Convert_autoscaling_ScaleStatus_To_v1beta1_ScaleStatus). */
function scaleAs(scale: ApiObject, kind: ResourceDef, labelSelector: unknown): ApiObject {
  if (kind === scaleKind) return scale;
  const { selector, ...status } = scale.status as { replicas: number; selector?: string };
  const sel = (labelSelector ?? {}) as { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
  const labels = !sel.matchExpressions?.length && sel.matchLabels && Object.keys(sel.matchLabels).length ? { selector: { ...sel.matchLabels } } : {};
  return { ...scale, apiVersion: apiVersionOf(kind), status: { ...status, ...labels, ...(selector ? { targetSelector: selector } : {}) } };
}

/** The Scale of a built-in object. */
export function scaleOf(obj: ApiObject, mapping: ScaleMapping): ApiObject {
  const meta = obj.metadata ?? {};
  const metadata: Record<string, unknown> = {};
  for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp'] as const) {
    if (meta[k] !== undefined && meta[k] !== '') metadata[k] = meta[k];
  }
  const selector = mapping.selector(obj);
  return {
    kind: 'Scale', apiVersion: 'autoscaling/v1', metadata,
    spec: { replicas: mapping.specReplicas(obj) },
    status: { replicas: mapping.statusReplicas(obj), ...(selector ? { selector } : {}) },
  };
}

/** Kubernetes' ValidateScale: the Scale's metadata (namespaced, DNS subdomain name) and spec.replicas >= 0. */
export function validateScale(scale: ApiObject): FieldError[] {
  const errs = validateObjectMeta(scale.metadata, { namespaced: true, nameValidation: 'dns-subdomain' });
  const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas;
  if (typeof replicas === 'number' && replicas < 0) errs.push(fieldErrors.invalid('spec.replicas', replicas, 'must be greater than or equal to 0'));
  return errs;
}

/** Reads a PATCH body of the types a Scale accepts, as the patch it is. */
export async function readScalePatch(s: CustomScope, accepted: string[]): Promise<{ contentType: string; patch: unknown }> {
  const contentType = contentTypeOf(s.ctx);
  if (!accepted.includes(contentType)) throw errors.unsupportedMediaType(contentType, accepted);
  const patch = decodeBody(await readRawBody(s.ctx), 'application/json', ['application/json']);
  if (contentType === JSON_PATCH ? !Array.isArray(patch) : (!patch || typeof patch !== 'object' || Array.isArray(patch))) {
    throw errors.badRequest(contentType === JSON_PATCH ? 'a JSON patch must be a JSON array of operations' : 'a merge patch must be a JSON object');
  }
  return { contentType, patch };
}

/** The Scale a patch makes of `old`, or 400 when it is not one. */
export function patchedScale(old: ApiObject, contentType: string, patch: unknown): ApiObject {
  const patched = contentType === JSON_PATCH ? applyJsonPatch(old, patch) : applyMergePatch(old, patch);
  if (!patched || typeof patched !== 'object' || Array.isArray(patched)) throw errors.badRequest('the patch did not produce an object of kind Scale');
  const problem = scaleKind.strategy.checkDecode?.(patched as ApiObject);
  if (problem) throw errors.badRequest(`Scale in version "v1" cannot be handled as a Scale: ${problem}`);
  return patched as ApiObject;
}

/** A Scale body sent with PUT: named as the URL names it. */
export async function readScaleBody(s: CustomScope, kind: ResourceDef = scaleKind): Promise<ApiObject> {
  const body = await readBodyAs(s.ctx, kind, s.info.namespace);
  const bodyName = body.metadata?.name;
  if (!bodyName) throw errors.badRequest('name is required in the body of an update (metadata.name)');
  if (bodyName !== s.info.name) {
    throw errors.badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${s.info.name})`);
  }
  return body;
}

/** How one resource's `/scale` reads and writes its objects, and the Scale kind it answers. */
interface ScaleView { mapping: ScaleMapping; kind: ResourceDef; out(obj: ApiObject): ApiObject }

async function updateScale(s: CustomScope, view: ScaleView, next: (old: ApiObject) => ApiObject, precondition: string | undefined): Promise<void> {
  const { mapping } = view;
  const store = s.store as GenericStore;
  const name = s.info.name as string;
  const ctx = requestStrategyContext(s.ctx, s.info.namespace, s.user);
  const { object } = await store.updateWith(ctx, name, (current) => {
    const wanted = next(view.out(current));
    const errs = validateScale({ ...wanted, metadata: { ...wanted.metadata, namespace: s.info.namespace } });
    if (errs.length) throw errors.invalid('Scale', 'autoscaling', name, errs);
    const rv = wanted.metadata?.resourceVersion;
    if (rv && rv !== current.metadata?.resourceVersion) throw errors.modified(store.gr, name);
    return mapping.withReplicas(current, (wanted.spec as { replicas?: number } | undefined)?.replicas ?? 0);
  }, { ...writeOptionsOf(s.ctx, s.info.verb), subresource: 'scale', precondition });
  writeObject(s.ctx, 200, view.out(object));
}

/** The custom handlers of `/scale` (get, update, patch) of one built-in resource. */
export function scaleHandlers(def: ResourceDef, mapping: ScaleMapping): CustomHandlers {
  const sub = def.subresources.find((r) => r.name === 'scale');
  const kind = scaleKindAt(sub?.group ?? 'autoscaling', sub?.version ?? 'v1');
  const view: ScaleView = { mapping, kind, out: (obj) => scaleAs(scaleOf(obj, mapping), kind, (obj.spec as { selector?: unknown } | undefined)?.selector) };
  const key = (verb: string) => customKey(def.group, def.version, def.resource, 'scale', verb);
  return new Map([
    [key('get'), async (s: CustomScope) => {
      const rv = new URLSearchParams(s.ctx.querystring).get('resourceVersion') || undefined;
      const obj = await (s.store as GenericStore).get(s.info.namespace, s.info.name as string, rv);
      writeObject(s.ctx, 200, view.out(obj));
    }],
    [key('update'), async (s: CustomScope) => {
      const body = await readScaleBody(s, kind);
      await updateScale(s, view, () => body, body.metadata?.resourceVersion || undefined);
    }],
    [key('patch'), async (s: CustomScope) => {
      const { contentType, patch } = await readScalePatch(s, [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH]);
      await updateScale(s, view, (old) => patchedScale(old, contentType, patch), patchPrecondition(contentType, patch));
    }],
  ]);
}

/** The `/scale` handlers of every def of `defs` whose `scale` subresource has a mapping. */
export function builtinScaleHandlers(defs: readonly ResourceDef[]): CustomHandlers {
  const out: CustomHandlers = new Map();
  for (const def of defs) {
    const mapping = def.subresources.find((sub) => sub.name === 'scale')?.scale;
    if (mapping) for (const [k, h] of scaleHandlers(def, mapping)) out.set(k, h);
  }
  return out;
}
