/**
 * The two ways a webhook call ends badly, as Kubernetes tells them apart: the call failed
 * (CallingWebhookError: failurePolicy decides; Fail answers `Internal error occurred: failed
 * calling webhook "x": ...`), or the webhook denied the request (its status, the message
 * prefixed `admission webhook "x" denied the request`, the code at least 400).
 */
import { ApiError, Status, StatusDetails, StatusReason, errors } from '../../meta/api-errors';

/**
 * The call did not produce a usable answer; `code` is the status Kubernetes counts it under.
 * `detail` is client-go's own error text (`Post "<url>": ...`, a reply's Status message), which
 * conversion webhooks report without the admission wording around it.
 */
export class CallingWebhookError extends Error {
  readonly detail: string;

  constructor(readonly webhookName: string, readonly reason: string, readonly code: number, detail?: string) {
    super(`failed calling webhook ${JSON.stringify(webhookName)}: ${reason}`);
    this.detail = detail ?? reason;
  }
}

/** A Status a webhook sent back: passed on as it is (an empty reason stays absent, details kept). */
export class WebhookStatusError extends ApiError {
  constructor(code: number, reason: string, message: string, details: StatusDetails | undefined) {
    super(code, reason as StatusReason, message, details);
  }

  toStatus(): Status {
    const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message, code: this.code };
    if (this.reason) s.reason = this.reason;
    if (this.details) s.details = this.details;
    return s;
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** Kubernetes' ToStatusErr: the webhook's status, with `admission webhook "x" denied the request` leading the message. */
export function denialError(webhookName: string, result: Obj | undefined): WebhookStatusError {
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  const r = result ?? {};
  const rawCode = typeof r.code === 'number' && Number.isInteger(r.code) ? r.code : 0;
  const code = rawCode < 400 ? 400 : rawCode;
  const message = typeof r.message === 'string' && r.message ? `${deniedBy}: ${r.message}`
    : typeof r.reason === 'string' && r.reason ? `${deniedBy}: ${r.reason}` : `${deniedBy} without explanation`;
  const reason = typeof r.reason === 'string' ? r.reason : '';
  return new WebhookStatusError(code, reason, message, isObj(r.details) ? r.details as StatusDetails : undefined);
}

/** A request in dry run reaching a webhook that may have side effects. */
export function dryRunUnsupported(webhookName: string): ApiError {
  return errors.badRequest(`admission webhook ${JSON.stringify(webhookName)} does not support dry run`);
}

/** failurePolicy Fail: the call error becomes a 500 InternalError. */
export function failClosed(err: CallingWebhookError): ApiError {
  return errors.internal(err.message);
}
