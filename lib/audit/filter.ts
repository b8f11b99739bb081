/**
 * The audit filters of the handler chain, as kube-apiserver's WithAuditInit, WithAudit and
 * WithFailedAuthenticationAudit: every request gets an Audit-Id; with a policy, each request is
 * given its level (evaluated on the authenticated requestor, before impersonation) and its
 * stages are sent to the backends: RequestReceived, ResponseStarted (long-running requests),
 * ResponseComplete, or Panic for an unexpected error. Bodies are captured by small hooks
 * (readBodyAs, the patch handler, writeObject) only when ctx.state.auditCapture is set.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { auditAnnotationsFor, levelAtLeast } from '../meta/audit-annotations';
import type { AuditEvent, AuditObjectReference, AuditStage } from './types';
import type { AuditAttributes, AuditPolicyEvaluator, RequestAuditConfig } from './policy-evaluator';
import { auditUser, authMethods, dropManagedFields, microTime, safeObject, sourceIPs } from './event-parts';
import type { RequestInfo } from '../api/request-info';
import type { UserInfo } from '../meta/user';
import { writeError } from '../api/response-writer';
import { setHeader } from '../api/response-head';
import { errors, isApiError } from '../meta/api-errors';
import { isStorageError } from '../storage/errors';
import { decodeBody } from '../api/negotiation';

/** Where events go once built (build.ts: the backends and the event counter). */
export interface AuditSink {
  processEvent(event: AuditEvent): void;
  /** Each evaluated request's level (apiserver_audit_level_total). */
  observeLevel(level: string): void;
}

export interface AuditFilterDeps {
  evaluator: AuditPolicyEvaluator;
  sink: AuditSink;
  /** `audit.<domain>/v1`. */
  apiVersion: string;
}

/** What the hooks and the filter share in ctx.state. */
interface AuditState {
  auditID?: string;
  auditReceived?: string;
  /** Set once the policy was evaluated for this request; the level when it is not None. */
  auditConfig?: RequestAuditConfig;
  auditCapture?: string;
  auditRequestObject?: unknown;
  auditRequestPatch?: Buffer;
  auditResponseObject?: unknown;
}

const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);
const MAX_USER_AGENT = 1024;
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function attributesOf(ctx: Context, user: UserInfo | undefined): AuditAttributes {
  const info = ctx.state.requestInfo as RequestInfo;
  return {
    user, verb: info.verb, isResourceRequest: info.isResourceRequest, path: info.path,
    apiGroup: info.group, resource: info.resource, subresource: info.subresource,
    namespace: info.namespace ?? '', name: info.name ?? info.listName ?? '',
  };
}

/**
 * Outermost of the two (before authentication): the Audit-Id (the client's `Audit-ID` header
 * when sent), and with a policy the event of a failed authentication: one ResponseStarted event
 * with no user, as Kubernetes records it.
 */
export function auditInit(deps: AuditFilterDeps | undefined) {
  const identify = (ctx: Context): void => {
    const id = ctx.get('audit-id') || randomUUID();
    (ctx.state as AuditState).auditID = id;
    setHeader(ctx, 'Audit-Id', id);
  };
  // Without a policy only the Audit-Id: no async step of its own per request.
  if (!deps) return (ctx: Context, next: Next): Promise<void> => { identify(ctx); return next(); };
  return async (ctx: Context, next: Next): Promise<void> => {
    const state = ctx.state as AuditState;
    identify(ctx);
    state.auditReceived = microTime();
    try {
      await next();
    } catch (err) {
      if (!state.auditConfig && isApiError(err) && err.code === 401) {
        const config = deps.evaluator.evaluate(attributesOf(ctx, undefined));
        deps.sink.observeLevel(config.level);
        if (config.level !== 'None' && !config.omitStages.has('ResponseStarted')) {
          const ev = baseEvent(ctx, deps, config, 'ResponseStarted', undefined);
          ev.responseStatus = { metadata: {}, message: authMethods(ctx), code: 401 };
          deps.sink.processEvent(ev);
        }
      }
      throw err;
    }
  };
}

/** After authentication, before impersonation: the request's level and its stages. */
export function auditFilter(deps: AuditFilterDeps) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const state = ctx.state as AuditState;
    const config = deps.evaluator.evaluate(attributesOf(ctx, ctx.state.user as UserInfo));
    state.auditConfig = config;
    deps.sink.observeLevel(config.level);
    if (config.level === 'None') return next();
    state.auditCapture = config.level;
    const emit = (stage: AuditStage) => { if (!config.omitStages.has(stage)) deps.sink.processEvent(eventAt(ctx, deps, config, stage)); };
    emit('RequestReceived');
    const info = ctx.state.requestInfo as RequestInfo;
    const longRunning = info.verb === 'watch' || info.verb === 'proxy' || LONG_RUNNING_SUBRESOURCES.has(info.subresource ?? '');
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw errors.notFoundPath();
    } catch (err) {
      writeError(ctx, err);
      if (!isApiError(err) && !isStorageError(err)) {
        emit('Panic');
        return;
      }
    }
    if (!longRunning) {
      emit('ResponseComplete');
      return;
    }
    emit('ResponseStarted');
    // A streamed answer (a watch) is complete when its response closes.
    const res = ctx.res;
    if (ctx.respond !== false || res.writableEnded || res.destroyed) emit('ResponseComplete');
    else res.once('close', () => emit('ResponseComplete'));
  };
}

function baseEvent(ctx: Context, deps: AuditFilterDeps, config: RequestAuditConfig, stage: AuditStage, user: UserInfo | undefined): AuditEvent {
  const state = ctx.state as AuditState;
  const info = ctx.state.requestInfo as RequestInfo;
  let ua = ctx.get('user-agent');
  if (ua.length > MAX_USER_AGENT) ua = `${ua.slice(0, MAX_USER_AGENT)}...TRUNCATED`;
  const ev: AuditEvent = {
    kind: 'Event', apiVersion: deps.apiVersion, level: config.level, auditID: state.auditID!, stage,
    requestURI: ctx.originalUrl, verb: info.verb, user: auditUser(user), sourceIPs: sourceIPs(ctx), userAgent: ua,
    requestReceivedTimestamp: state.auditReceived!, stageTimestamp: microTime(),
  };
  if (!ua) delete ev.userAgent;
  if (info.isResourceRequest) {
    const ref: AuditObjectReference = { resource: info.resource };
    if (info.namespace) ref.namespace = info.namespace;
    if (info.name ?? info.listName) ref.name = info.name ?? info.listName;
    if (info.group) ref.apiGroup = info.group;
    if (info.version) ref.apiVersion = info.version;
    if (info.subresource) ref.subresource = info.subresource;
    ev.objectRef = ref;
  }
  return ev;
}

function eventAt(ctx: Context, deps: AuditFilterDeps, config: RequestAuditConfig, stage: AuditStage): AuditEvent {
  const state = ctx.state as AuditState;
  const impersonator = ctx.state.impersonator as UserInfo | undefined;
  // As Kubernetes: `user` is who authenticated, `impersonatedUser` whom they acted as.
  const ev = baseEvent(ctx, deps, config, stage, impersonator ?? (ctx.state.user as UserInfo));
  if (impersonator) ev.impersonatedUser = auditUser(ctx.state.user as UserInfo);
  const level = config.level;
  const reqObj = state.auditRequestObject;
  if (ev.objectRef && isObj(reqObj) && isObj(reqObj.metadata)) {
    const m = reqObj.metadata;
    const ref = ev.objectRef;
    if (!ref.namespace && typeof m.namespace === 'string' && m.namespace) ref.namespace = m.namespace;
    if (!ref.name && typeof m.name === 'string' && m.name) ref.name = m.name;
    if (typeof m.uid === 'string' && m.uid) ref.uid = m.uid;
    if (typeof m.resourceVersion === 'string' && m.resourceVersion) ref.resourceVersion = m.resourceVersion;
  }
  if (stage !== 'RequestReceived') {
    const resp = state.auditResponseObject;
    if (isObj(resp) && resp.kind === 'Status') {
      const s: NonNullable<AuditEvent['responseStatus']> = { metadata: {}, code: typeof resp.code === 'number' ? resp.code : ctx.status };
      if (typeof resp.status === 'string') s.status = resp.status;
      if (typeof resp.message === 'string' && resp.message) s.message = resp.message;
      if (typeof resp.reason === 'string' && resp.reason) s.reason = resp.reason;
      ev.responseStatus = s;
    } else ev.responseStatus = { metadata: {}, code: ctx.status };
  }
  if (levelAtLeast(level, 'Request')) {
    const body = reqObj !== undefined ? reqObj : patchObject(state.auditRequestPatch, ev.objectRef, ctx.get('content-type'));
    if (body !== undefined) ev.requestObject = objectFor(body, config);
  }
  if (level === 'RequestResponse' && stage !== 'RequestReceived') {
    const resp = state.auditResponseObject !== undefined ? state.auditResponseObject : bodyObject(ctx);
    if (resp !== undefined) ev.responseObject = objectFor(resp, config);
  }
  const annotations = auditAnnotationsFor(ctx.state, level);
  if (annotations) ev.annotations = annotations;
  return ev;
}

function objectFor(obj: unknown, config: RequestAuditConfig): unknown {
  const safe = safeObject(obj, config.level);
  return config.omitManagedFields ? dropManagedFields(safe) : safe;
}

/**
 * A patch as sent (JSON, or YAML for an apply sent as YAML); a Secret's patch is left out below
 * RequestResponse; one that does not decode is kept as text. Only a YAML content type is read
 * as YAML: a broken JSON patch is not YAML either, and yaml's error recovery on a large one is
 * slow.
 */
function patchObject(raw: Buffer | undefined, ref: AuditObjectReference | undefined, contentType: string): unknown {
  if (!raw) return undefined;
  if (ref?.resource === 'secrets' && !ref.apiGroup) return undefined;
  // Decoded under the same nesting limits as the handlers (lib/api/decode-limits.ts): a body
  // too deep for them would overflow the stack here, or abort the process in yaml's Composer.
  try {
    return decodeBody(raw, 'application/json');
  } catch {
    if (!contentType.includes('yaml')) return raw.toString('utf8');
    try { return decodeBody(raw, 'application/yaml'); } catch { return raw.toString('utf8'); }
  }
}

/** Answers written without writeObject (a get or list served from stored JSON bytes). */
function bodyObject(ctx: Context): unknown {
  const b = ctx.body;
  if ((typeof b !== 'string' && !Buffer.isBuffer(b)) || !/json/.test(ctx.type)) return undefined;
  try { return JSON.parse(b.toString()); } catch { return undefined; }
}
