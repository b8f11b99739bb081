/**
 * Kubernetes' checks of spec.conversion. Paths are those of its internal type, where the v1
 * `webhook.clientConfig` is `webhookClientConfig` and `webhook.conversionReviewVersions` is
 * `conversionReviewVersions`, both directly under spec.conversion.
 */
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isDns1035Label } from '../../../meta/validation';
import { validateWebhookService, validateWebhookUrl } from '../../admissionregistration/client-config-validation';
import { CrdConversion } from './view';
import { goStrings, invalidRendered } from './go-values';

/** The ConversionReview versions this server (and the one before it) understands. */
export const CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];

function validateReviewVersions(versions: unknown, requireRecognized: boolean, path: string): FieldError[] {
  const list = Array.isArray(versions) ? versions.map((v) => (typeof v === 'string' ? v : '')) : [];
  if (!list.length) return [fieldErrors.required(path)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((v, i) => {
    if (seen.has(v)) { errs.push(fieldErrors.invalid(index(path, i), v, 'duplicate version')); return; }
    seen.add(v);
    for (const problem of isDns1035Label(v)) errs.push(fieldErrors.invalid(index(path, i), v, problem));
  });
  if (requireRecognized && !list.some((v) => CONVERSION_REVIEW_VERSIONS.includes(v))) {
    errs.push(invalidRendered(path, goStrings(list), `must include at least one of ${CONVERSION_REVIEW_VERSIONS.join(', ')}`));
  }
  return errs;
}

/** validateCustomResourceConversion (after defaulting: strategy None when conversion was absent). */
export function validateCrdConversion(conversion: CrdConversion | undefined, requireRecognized: boolean, path: string): FieldError[] {
  if (!conversion || typeof conversion !== 'object') return [];
  const errs: FieldError[] = [];
  const strategy = typeof conversion.strategy === 'string' ? conversion.strategy : '';
  if (!strategy) errs.push(fieldErrors.required(child(path, 'strategy')));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(fieldErrors.notSupported(child(path, 'strategy'), strategy, ['None', 'Webhook']));
  const webhook = conversion.webhook && typeof conversion.webhook === 'object' ? conversion.webhook : undefined;
  const cc = webhook?.clientConfig && typeof webhook.clientConfig === 'object' ? webhook.clientConfig : undefined;
  const reviewVersions = webhook?.conversionReviewVersions;
  const ccPath = child(path, 'webhookClientConfig');
  if (strategy === 'Webhook') {
    if (!cc) {
      errs.push(fieldErrors.required(ccPath, 'required when strategy is set to Webhook'));
    } else {
      const hasUrl = cc.url !== undefined && cc.url !== null;
      const hasService = cc.service !== undefined && cc.service !== null;
      if (hasUrl === hasService) errs.push(fieldErrors.required(ccPath, 'exactly one of url or service is required'));
      else if (hasUrl) errs.push(...validateWebhookUrl(child(ccPath, 'url'), String(cc.url)));
      else errs.push(...validateWebhookService(child(ccPath, 'service'), cc.service as Record<string, unknown>));
    }
    errs.push(...validateReviewVersions(reviewVersions, requireRecognized, child(path, 'conversionReviewVersions')));
  } else {
    if (cc) errs.push(fieldErrors.forbidden(ccPath, 'should not be set when strategy is not set to Webhook'));
    if (Array.isArray(reviewVersions) && reviewVersions.length) {
      errs.push(fieldErrors.forbidden(child(path, 'conversionReviewVersions'), 'should not be set when strategy is not set to Webhook'));
    }
  }
  return errs;
}

/** Whether a stored conversion names a recognized review version (or none): later updates must keep one. */
export function hasRecognizedReviewVersionOrNone(conversion: CrdConversion | undefined): boolean {
  const list = conversion?.webhook?.conversionReviewVersions;
  if (!Array.isArray(list) || !list.length) return true;
  return list.some((v) => CONVERSION_REVIEW_VERSIONS.includes(v));
}
