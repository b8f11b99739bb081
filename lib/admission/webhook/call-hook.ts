/**
 * One call of one matched webhook, shared by both phases: the dry-run check against sideEffects,
 * the review in the first version the webhook accepts, the POST, the reply checked, its warnings
 * and audit annotations passed on, and a denial turned into a WebhookRejection. Recording
 * (recordWebhookCall) and failurePolicy are the dispatchers' (they differ in what an error means for the phase).
 */
import { performance } from 'node:perf_hooks';
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { ApiError } from '../../meta/api-errors';
import { ApiObject } from '../../scheme/types';
import { Naming } from '../../naming';
import { AdmissionMetrics } from '../metrics';
import { InvalidReview, ReviewResponse, buildReview, reviewVersionFor, verifyResponse } from './admission-review';
import { WebhookClients } from './webhook-client';
import { CallingWebhookError, denialError, dryRunUnsupported } from './webhook-errors';
import { WebhookInvocation } from './webhook-matcher';

/** The webhook answered `allowed: false`: `status` is what the user gets. */
export class WebhookRejection extends Error {
  constructor(readonly status: ApiError) {
    super(status.message);
  }
}

export interface CallDeps {
  naming: Naming;
  clients: WebhookClients;
  metrics: AdmissionMetrics;
}

/**
 * Calls the webhook with `object` as the request's object. Throws CallingWebhookError (the call
 * failed: failurePolicy applies), WebhookRejection (denied), or ApiError (dry run refused).
 */
export async function callHook(deps: CallDeps, inv: WebhookInvocation, attrs: AdmissionAttributes, object: ApiObject | undefined,
  mutating: boolean): Promise<ReviewResponse> {
  const hook = inv.hook;
  if (attrs.dryRun && hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') throw dryRunUnsupported(hook.name);
  const version = reviewVersionFor(hook.admissionReviewVersions);
  if (!version) {
    throw new CallingWebhookError(hook.name, 'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)', 400);
  }
  const review = buildReview(attrs, inv, version, deps.naming, object);
  const reply = await deps.clients.post(hook, review.body);
  let response: ReviewResponse;
  try {
    response = verifyResponse(reply, review, mutating);
  } catch (err) {
    if (!(err instanceof InvalidReview)) throw err;
    throw new CallingWebhookError(hook.name, `received invalid webhook response: ${err.message}`, 503);
  }
  for (const [k, v] of Object.entries(response.auditAnnotations)) attrs.ctx.annotate?.(`${hook.name}/${k}`, v);
  for (const w of response.warnings) attrs.ctx.warn?.(w);
  if (!response.allowed) throw new WebhookRejection(denialError(hook.name, response.result));
  return response;
}

/**
 * Records one webhook call as Kubernetes does (`type` admit or validating): its duration and
 * request count with the code (200 allowed, the error's code, 0 for an internal error), and a
 * failure as a rejection; a call that failed open is neither rejected nor a rejection.
 * `err` undefined: the webhook allowed. `started`: performance.now() before the call.
 */
export function recordWebhookCall(metrics: AdmissionMetrics, err: unknown, hookName: string, attrs: AdmissionAttributes,
  type: 'admit' | 'validating', failOpen: boolean, started: number): void {
  const seconds = (performance.now() - started) / 1000;
  const op = attrs.operation;
  const base = { name: hookName, operation: op, type };
  if (err === undefined) {
    metrics.observeWebhook(hookName, type, op, false, 200, seconds);
  } else if (err instanceof CallingWebhookError) {
    if (!failOpen) metrics.webhookRejected({ ...base, error_type: 'calling_webhook_error', rejection_code: err.code });
    metrics.observeWebhook(hookName, type, op, !failOpen, err.code, seconds);
  } else if (err instanceof WebhookRejection) {
    metrics.webhookRejected({ ...base, error_type: 'no_error', rejection_code: err.status.code });
    metrics.observeWebhook(hookName, type, op, true, err.status.code, seconds);
  } else {
    metrics.webhookRejected({ ...base, error_type: 'apiserver_internal_error', rejection_code: 0 });
    metrics.observeWebhook(hookName, type, op, true, 0, seconds);
  }
}
