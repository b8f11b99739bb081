/**
 * ApiError is the one error type that crosses layers. Every failure a client sees is the
 * Status body of an ApiError (the response writer turns anything else into InternalError).
 * Reasons, codes and message patterns are Kubernetes' own, so clients branch on them unchanged.
 */
import { FieldError, formatFieldError } from './field-errors';

export type StatusReason =
  | 'BadRequest' | 'Unauthorized' | 'Forbidden' | 'NotFound' | 'AlreadyExists' | 'Conflict'
  | 'Gone' | 'Expired' | 'Invalid' | 'MethodNotAllowed' | 'NotAcceptable' | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge' | 'Timeout' | 'ServerTimeout' | 'TooManyRequests' | 'ServiceUnavailable'
  | 'InternalError' | 'Unknown';

export interface StatusCause { reason?: string; message?: string; field?: string }

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** The group/resource pair that Kubernetes names in error messages (`configmaps`, `csidrivers.storage.orch.io`). */
export interface GroupResource { group: string; resource: string }

export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export class ApiError extends Error {
  readonly code: number;
  readonly reason: StatusReason;
  readonly details?: StatusDetails;
  /** Extra response headers, e.g. Retry-After. */
  readonly headers: Record<string, string>;
  /** Status metadata (e.g. a fresh continue token on a 410). */
  readonly statusMetadata: Status['metadata'];

  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails,
    headers: Record<string, string> = {}, statusMetadata: Status['metadata'] = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.headers = headers;
    this.statusMetadata = statusMetadata;
  }

  toStatus(): Status {
    const s: Status = {
      kind: 'Status', apiVersion: 'v1', metadata: { ...this.statusMetadata }, status: 'Failure',
      message: this.message, reason: this.reason, code: this.code,
    };
    if (this.details) s.details = this.details;
    return s;
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

const gd = (gr: GroupResource, name: string): StatusDetails => {
  const d: StatusDetails = { name, kind: gr.resource };
  if (gr.group) d.group = gr.group;
  return d;
};

export const errors = {
  notFound: (gr: GroupResource, name: string) =>
    new ApiError(404, 'NotFound', `${qualifiedResource(gr)} "${name}" not found`, gd(gr, name)),
  alreadyExists: (gr: GroupResource, name: string) =>
    new ApiError(409, 'AlreadyExists', `${qualifiedResource(gr)} "${name}" already exists`, gd(gr, name)),
  conflict: (gr: GroupResource, name: string, why: string) =>
    new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`, gd(gr, name)),
  /** The optimistic-concurrency conflict of a stale resourceVersion. */
  modified: (gr: GroupResource, name: string) => errors.conflict(gr, name,
    'the object has been modified; please apply your changes to the latest version and try again'),
  invalid: (kind: string, group: string, name: string, causes: FieldError[]) => {
    const qualifiedKind = group ? `${kind}.${group}` : kind;
    const list = causes.map(formatFieldError);
    const body = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
    const details: StatusDetails = { name, kind, causes: causes.map((c) => ({ reason: c.type, message: c.message, field: c.field })) };
    if (group) details.group = group;
    return new ApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${body}`, details);
  },
  badRequest: (message: string) => new ApiError(400, 'BadRequest', message),
  unauthorized: (message = 'Unauthorized') => new ApiError(401, 'Unauthorized', message),
  forbidden: (gr: GroupResource, name: string, why: string) =>
    new ApiError(403, 'Forbidden', `${qualifiedResource(gr)} "${name}" is forbidden: ${why}`, gd(gr, name)),
  /**
   * Authorization's refusal (Kubernetes' responsewriters.Forbidden): `sentence` says who cannot
   * do what (lib/authz/attributes.ts); a non-resource request has no group/resource.
   */
  forbiddenRequest: (gr: GroupResource, name: string, sentence: string) => {
    if (!gr.resource) return new ApiError(403, 'Forbidden', `forbidden: ${sentence}`, {});
    if (!name) return new ApiError(403, 'Forbidden', `${qualifiedResource(gr)} is forbidden: ${sentence}`, { ...(gr.group ? { group: gr.group } : {}), kind: gr.resource });
    return new ApiError(403, 'Forbidden', `${qualifiedResource(gr)} "${name}" is forbidden: ${sentence}`, gd(gr, name));
  },
  methodNotSupported: (gr: GroupResource, action: string) =>
    new ApiError(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${qualifiedResource(gr)}"`, { kind: gr.resource, group: gr.group || undefined }),
  methodNotAllowed: () => new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'),
  notAcceptable: (accepted: string[]) =>
    new ApiError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`),
  unsupportedMediaType: (contentType: string, accepted: string[]) =>
    new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
      contentType ? { causes: [{ reason: 'UnexpectedHeader', message: `unsupported media type "${contentType}"`, field: 'Content-Type' }] } : undefined),
  tooLarge: (message = 'the request entity is too large') => new ApiError(413, 'RequestEntityTooLarge', message),
  gone: (message: string) => new ApiError(410, 'Gone', message),
  expired: (message: string, continueToken?: string) =>
    new ApiError(410, 'Expired', message, undefined, {}, continueToken ? { continue: continueToken } : {}),
  timeout: (message: string, retryAfterSeconds: number) =>
    new ApiError(504, 'Timeout', message, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) }),
  serviceUnavailable: (message: string, retryAfterSeconds = 1) =>
    new ApiError(503, 'ServiceUnavailable', message, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) }),
  /** Kubernetes' NewTooManyRequests: 429 with Retry-After (the in-flight limits' refusal). */
  tooManyRequests: (message: string, retryAfterSeconds: number) =>
    new ApiError(429, 'TooManyRequests', message, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) }),
  internal: (message: string) =>
    new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }),
  notFoundPath: () => new ApiError(404, 'NotFound', 'the server could not find the requested resource', { causes: [{ reason: 'UnexpectedServerResponse', message: '404 page not found' }] }),
};
