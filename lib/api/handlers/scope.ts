/**
 * What every resource handler works with: the Koa context, the parsed request info, the
 * resource's store, and helpers to decode and check a body against the request.
 */
import type { Context } from 'koa';
import { RequestInfo } from '../request-info';
import { GenericStore } from '../../registry/store';
import { ApiObject, ResourceDef, StrategyContext, apiVersionOf } from '../../scheme/types';
import { errors } from '../../meta/api-errors';
import { fieldErrors } from '../../meta/field-errors';
import { contentTypeOf, readRawBody } from '../negotiation';
import { decodeRequestBody } from '../protobuf-body';
import { parseDryRun } from '../query';
import { addWarnings, dropUnknownFields, duplicateJsonFields, enforceFieldValidation, parseFieldValidation, unknownFields } from '../field-validation';
import { WriteOptions } from '../../registry/options';
import { UserInfo } from '../../meta/user';
import { addAuditAnnotation } from '../../meta/audit-annotations';


export interface ResourceScope {
  ctx: Context;
  info: RequestInfo;
  store: GenericStore;
  user?: UserInfo;
  limits: { minRequestTimeoutSeconds: number };
  /** The BOOKMARK annotation that ends a watch's initial events (`k8s.io/initial-events-end`). */
  initialEventsAnnotation: string;
}

export function strategyContext(s: ResourceScope): StrategyContext {
  return requestStrategyContext(s.ctx, s.info.namespace, s.user);
}

/**
 * The StrategyContext of a request: admission's warnings become `Warning` headers at once (they
 * stay on an error response too), and its audit annotations collect in ctx.state.auditAnnotations.
 */
export function requestStrategyContext(ctx: Context, namespace: string | undefined, user: UserInfo | undefined): StrategyContext {
  return {
    namespace, user,
    warn: (message) => addWarnings(ctx, [message]),
    annotate: (key, value, level) => addAuditAnnotation(ctx.state, key, value, level),
  };
}

/** The meta.k8s.io options kind a verb's query parameters are validated as. */
const optionsKindByVerb: Record<string, string> = {
  create: 'CreateOptions', update: 'UpdateOptions', patch: 'PatchOptions', delete: 'DeleteOptions', deletecollection: 'DeleteOptions',
};

/** The default field manager: the User-Agent up to its first '/', as Kubernetes derives it. */
export function managerFromUserAgent(userAgent: string): string {
  const prefix = userAgent.split('/')[0].trim();
  return (prefix || 'unknown').slice(0, 128);
}

export function writeOptions(s: ResourceScope): WriteOptions {
  return writeOptionsOf(s.ctx, s.info.verb);
}

/** The write options of a request (dryRun, fieldManager) for `verb`'s options kind. */
export function writeOptionsOf(ctx: Context, verb: string): WriteOptions {
  const query = new URLSearchParams(ctx.querystring);
  const optionsKind = optionsKindByVerb[verb] ?? 'CreateOptions';
  const dryRun = parseDryRun(query, optionsKind);
  const manager = query.get('fieldManager');
  if (manager !== null) {
    const why = manager.length > 128 ? 'must be no more than 128 characters'
      : /[^\x20-\x7e]/.test(manager) ? 'must only contain printable characters' : undefined;
    if (why) throw errors.invalid(optionsKind, 'meta.k8s.io', '', [fieldErrors.invalid('fieldManager', manager, why)]);
  }
  return { dryRun, fieldManager: manager || managerFromUserAgent(ctx.get('user-agent')) };
}

/**
 * Reads the body as an object of the resource's kind: JSON or YAML, kind and apiVersion
 * (when given) matching the request, and the kind's decode-time type checks.
 */
export function readObject(s: ResourceScope): Promise<ApiObject> {
  return readBodyAs(s.ctx, s.store.def, s.info.namespace);
}

/**
 * Reads the body as an object of `preferred`'s kind (a resource's, or a subresource's own kind such as
 * TokenRequest), sent to a request in `namespace`. A body whose apiVersion is one of
 * `otherVersions`' is read as that def (the same kind at another version).
 */
export async function readBodyAs(ctx: Context, preferred: ResourceDef, namespace: string | undefined,
  otherVersions: ResourceDef[] = []): Promise<ApiObject> {
  const raw = await readRawBody(ctx);
  const contentType = contentTypeOf(ctx);
  const body = decodeRequestBody(raw, contentType, { apiVersion: apiVersionOf(preferred), kind: preferred.kind });
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw errors.badRequest(`the request body must be a JSON object of kind ${preferred.kind}`);
  }
  const obj = body as ApiObject;
  // A subresource that accepts its kind at several versions (pods/eviction: policy/v1 and v1beta1).
  const def = otherVersions.find((d) => obj.apiVersion === apiVersionOf(d)) ?? preferred;
  const want = apiVersionOf(def);
  if (obj.kind !== undefined && obj.kind !== def.kind) {
    throw errors.badRequest(`the kind ${JSON.stringify(obj.kind)} of the body does not match the kind "${def.kind}" of the resource ${def.resource}`);
  }
  if (obj.apiVersion !== undefined && obj.apiVersion !== want) {
    throw errors.badRequest(`the apiVersion ${JSON.stringify(obj.apiVersion)} of the body does not match "${want}" of the request URL`);
  }
  if (obj.metadata !== undefined && (obj.metadata === null || typeof obj.metadata !== 'object' || Array.isArray(obj.metadata))) {
    throw errors.badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: metadata must be an object`);
  }
  const fv = ctx.query.fieldValidation;
  const mode = parseFieldValidation(typeof fv === 'string' ? fv : undefined);
  const unknown = unknownFields(obj, def.schema);
  if (mode !== 'Ignore') {
    enforceFieldValidation(ctx, mode, {
      unknown,
      duplicate: contentType === 'application/json' ? duplicateJsonFields(raw.toString('utf8')) : [],
    }, `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: `);
  }
  const problem = def.strategy.checkDecode?.(obj);
  if (problem) throw errors.badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${problem}`);
  const ns = obj.metadata?.namespace;
  if (def.namespaced && ns && ns !== namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const decoded = { ...dropUnknownFields(obj, def.schema, unknown), apiVersion: want, kind: def.kind };
  // The audit event's requestObject (lib/audit/filter.ts), kept only when the request is audited.
  if (ctx.state.auditCapture) ctx.state.auditRequestObject = decoded;
  return decoded;
}

/** The item list of a collection response. */
export function listBody(s: ResourceScope, items: ApiObject[], metadata: Record<string, unknown>): ApiObject {
  return { kind: s.store.def.listKind, apiVersion: apiVersionOf(s.store.def), metadata, items };
}
