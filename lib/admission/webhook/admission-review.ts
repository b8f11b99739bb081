/**
 * AdmissionReview on the wire (`admission.<domain>` v1 and v1beta1): the request built from the
 * admission attributes for one invocation, and the reply checked as Kubernetes checks it
 * (VerifyAdmissionResponse): same uid (v1), patch and patchType together, none from a validating
 * webhook. Failures are reasons for "received invalid webhook response: ...".
 */
import { randomUUID } from 'node:crypto';
import { AdmissionAttributes, userOf } from '../../registry/admission-attributes';
import { ApiObject } from '../../scheme/types';
import { Naming } from '../../naming';
import { WebhookInvocation, kindOf } from './webhook-matcher';

/** The review versions this server sends, in no particular preference (the webhook's list decides). */
export const SUPPORTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];

export interface BuiltReview {
  uid: string;
  /** `admission.<domain>/v1` or `/v1beta1`. */
  apiVersion: string;
  version: string;
  body: Buffer;
}

/** What a webhook answered, once checked. */
export interface ReviewResponse {
  allowed: boolean;
  /** response.status, as sent (code, message, reason, details...). */
  result?: Record<string, unknown>;
  /** Decoded patch bytes (still to be parsed as a JSON patch). */
  patch?: Buffer;
  patchType?: string;
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

export class InvalidReview extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** The first of the webhook's versions this server speaks; undefined when none. */
export function reviewVersionFor(versions: readonly string[]): string | undefined {
  return versions.find((v) => SUPPORTED_REVIEW_VERSIONS.includes(v));
}

/** The object as the invocation's version sees it: same shape here, with its apiVersion and kind. */
export function versionedObject(obj: ApiObject | undefined, gvk: { group: string; version: string; kind: string }): ApiObject | null {
  if (!obj) return null;
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return { kind: gvk.kind, apiVersion: gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version, ...rest };
}

/** CreateOptions / UpdateOptions / DeleteOptions of the request, as meta/v1 objects. */
function optionsOf(attrs: AdmissionAttributes, naming: Naming): Obj | null {
  const base = (kind: string): Obj => ({ kind, apiVersion: `${naming.metaGroup}/v1` });
  const write = (kind: string): Obj => {
    const o = base(kind);
    if (attrs.dryRun) o.dryRun = ['All'];
    if (attrs.fieldManager) o.fieldManager = attrs.fieldManager;
    return o;
  };
  switch (attrs.operation) {
    case 'CREATE': return write('CreateOptions');
    case 'UPDATE': return write('UpdateOptions');
    case 'DELETE': {
      const o = base('DeleteOptions');
      const d = attrs.deleteOptions ?? {};
      if (d.gracePeriodSeconds !== undefined) o.gracePeriodSeconds = d.gracePeriodSeconds;
      if (d.preconditions && (d.preconditions.uid || d.preconditions.resourceVersion)) o.preconditions = d.preconditions;
      if (d.orphanDependents !== undefined) o.orphanDependents = d.orphanDependents;
      if (d.propagationPolicy) o.propagationPolicy = d.propagationPolicy;
      if (attrs.dryRun) o.dryRun = ['All'];
      return o;
    }
    default: return null;
  }
}

/** The AdmissionReview request for `invocation` in `version`. */
export function buildReview(attrs: AdmissionAttributes, invocation: WebhookInvocation, version: string, naming: Naming,
  object: ApiObject | undefined): BuiltReview {
  const uid = randomUUID();
  const user = userOf(attrs);
  const userInfo: Obj = {};
  if (user.name) userInfo.username = user.name;
  if (user.uid) userInfo.uid = user.uid;
  if (user.groups?.length) userInfo.groups = user.groups;
  if (user.extra && Object.keys(user.extra).length) userInfo.extra = user.extra;
  const requestKind = kindOf(attrs.resource, attrs.subresource);
  const r = attrs.resource;
  const isNamespace = r.group === '' && r.resource === 'namespaces';
  const namespace = isNamespace ? (attrs.operation === 'CREATE' ? '' : attrs.name) : (attrs.namespace ?? '');
  const request: Obj = {
    uid,
    kind: invocation.kind,
    resource: invocation.resource,
  };
  if (invocation.subresource) request.subResource = invocation.subresource;
  request.requestKind = requestKind;
  request.requestResource = { group: r.group, version: r.version, resource: r.resource };
  if (attrs.subresource) request.requestSubResource = attrs.subresource;
  if (attrs.name) request.name = attrs.name;
  if (namespace) request.namespace = namespace;
  request.operation = attrs.operation;
  request.userInfo = userInfo;
  request.object = versionedObject(object, invocation.kind);
  request.oldObject = versionedObject(attrs.oldObject, invocation.kind);
  request.dryRun = attrs.dryRun;
  request.options = optionsOf(attrs, naming);
  const apiVersion = `admission.${naming.domain}/${version}`;
  const body = Buffer.from(JSON.stringify({ kind: 'AdmissionReview', apiVersion, request }));
  return { uid, apiVersion, version, body };
}

/** Go's `GroupVersionKind.String()`. */
const gvkString = (apiVersion: string, kind: string): string => {
  const slash = apiVersion.indexOf('/');
  const [g, v] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  return `${g ? `${g}/` : ''}${v}, Kind=${kind}`;
};

function base64Bytes(v: unknown, field: string): Buffer | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 !== 0) {
    throw new InvalidReview(`illegal base64 data in response.${field}`);
  }
  return Buffer.from(v, 'base64');
}

/** The reply body checked against the request (see the module comment). */
export function verifyResponse(body: Buffer, sent: BuiltReview, mutating: boolean): ReviewResponse {
  let review: unknown;
  try {
    review = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new InvalidReview(`the reply is not JSON: ${(err as Error).message}`);
  }
  if (!isObj(review)) throw new InvalidReview('the reply is not a JSON object');
  const response = review.response;
  if (!isObj(response)) throw new InvalidReview('webhook response was absent');
  const patch = base64Bytes(response.patch, 'patch');
  const hasPatchType = response.patchType !== undefined && response.patchType !== null;
  let patchType = hasPatchType ? String(response.patchType) : '';
  if (sent.version === 'v1') {
    const gotUid = typeof response.uid === 'string' ? response.uid : '';
    if (gotUid !== sent.uid) throw new InvalidReview(`expected response.uid=${JSON.stringify(sent.uid)}, got ${JSON.stringify(gotUid)}`);
    const got = gvkString(String(review.apiVersion ?? ''), String(review.kind ?? ''));
    const want = gvkString(sent.apiVersion, 'AdmissionReview');
    if (got !== want) throw new InvalidReview(`expected webhook response of ${want}, got ${got}`);
    if (mutating) {
      if (patch?.length && !hasPatchType) throw new InvalidReview('webhook returned response.patch but not response.patchType');
      if (!patch?.length && hasPatchType) throw new InvalidReview('webhook returned response.patchType but not response.patch');
      if (hasPatchType && !patchType) throw new InvalidReview(`webhook returned invalid response.patchType of ""`);
    } else {
      if (patch?.length) throw new InvalidReview('validating webhook may not return response.patch');
      if (hasPatchType) throw new InvalidReview('validating webhook may not return response.patchType');
    }
  } else {
    // v1beta1 replies were never checked for uid or patchType: a patch is a JSON patch.
    patchType = mutating && patch?.length ? 'JSONPatch' : '';
  }
  const warnings = Array.isArray(response.warnings) ? response.warnings.filter((w): w is string => typeof w === 'string') : [];
  const auditAnnotations: Record<string, string> = {};
  if (isObj(response.auditAnnotations)) {
    for (const [k, v] of Object.entries(response.auditAnnotations)) if (typeof v === 'string') auditAnnotations[k] = v;
  }
  return {
    allowed: response.allowed === true,
    result: isObj(response.status) ? response.status : undefined,
    patch: mutating ? patch : undefined,
    patchType: mutating ? patchType : undefined,
    warnings, auditAnnotations,
  };
}
