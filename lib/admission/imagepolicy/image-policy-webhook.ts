/**
 * ImagePolicyWebhook, as Kubernetes' plugin: in the validating phase, each pod create or update
 * (the pod itself, or its ephemeralcontainers subresource; other subresources and kinds pass)
 * is judged by a backend that answers an ImageReview. Answers are cached by the review's
 * content, allowed ones for allowTTL and refused ones for denyTTL. A refusal is 403
 * `pods "x" is forbidden: image policy webhook backend denied one or more images: <reason>`.
 * When the backend cannot be asked (down, non-2xx after retries, an unusable reply), defaultAllow
 * decides: refused with the failure, or allowed with the pod annotated
 * `alpha.image-policy.<domain>/failed-open: "true"` and the audit annotation
 * `imagepolicywebhook.image-policy.<domain>/failed-open`. The backend's status.auditAnnotations
 * become audit annotations under that same prefix. Dry runs ask too (the call has no side effects).
 */
import type { Logger } from 'winston';
import { AdmissionPlugin } from '../interfaces';
import { AdmissionAttributes } from '../../registry/admission-attributes';
import { errors } from '../../meta/api-errors';
import { ApiObject } from '../../scheme/types';
import { TokenCache } from '../../authn/token-cache';
import { Backoff, DEFAULT_TIMEOUT_MS, WebhookCallFailed, WebhookPoster, callWebhook } from '../../authn/webhook-call';
import { ImagePolicyConfig } from './config';
import { ImageReviewSpec, ImageReviewStatus, imageReviewSpec, reviewCacheKey, reviewStatusOf } from './image-review';

export interface ImagePolicyWebhookOptions {
  /** The backend (a KubeconfigClient; a fake in unit tests). */
  client: WebhookPoster;
  /** `imagepolicy.<domain>/v1alpha1`: what is sent, and what a reply naming a version must carry. */
  apiVersion: string;
  /** `orch.io` or `k8s.io`: the annotation names' domain. */
  domain: string;
  config: ImagePolicyConfig;
  log?: Logger;
  /** Bound on one review, retries included (kube's webhook client timeout: 30 s). */
  timeoutMs?: number;
}

/** Kubernetes' cache size for review answers. */
const CACHE_ENTRIES = 1024;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The plugin asking `opts.client`. */
export function imagePolicyWebhook(opts: ImagePolicyWebhookOptions): AdmissionPlugin {
  const { client, config, domain } = opts;
  const cache = new TokenCache<ImageReviewStatus>(CACHE_ENTRIES);
  // kube's webhook backoff with the configured first delay: x1.5, 20% jitter, 5 attempts.
  const backoff: Backoff = { initialMs: config.retryBackoffMs, factor: 1.5, jitter: 0.2, steps: 5 };
  const auditPrefix = `imagepolicywebhook.image-policy.${domain}/`;
  const failedOpenAnnotation = `alpha.image-policy.${domain}/failed-open`;

  const forbidden = (attrs: AdmissionAttributes, pod: ApiObject, why: string) =>
    errors.forbiddenRequest({ group: '', resource: 'pods' }, attrs.name || String(pod.metadata?.name ?? ''), why);

  const accept = (body: Buffer): ImageReviewStatus => {
    let reply: unknown;
    try {
      reply = JSON.parse(body.toString('utf8'));
    } catch {
      throw new WebhookCallFailed('the reply is not JSON');
    }
    if (!isObject(reply)) throw new WebhookCallFailed('the reply is not a JSON object');
    // A reply without apiVersion and kind is read as the ImageReview asked for, as kube's decoder does.
    if ((reply.apiVersion !== undefined && reply.apiVersion !== opts.apiVersion) || (reply.kind !== undefined && reply.kind !== 'ImageReview')) {
      throw new WebhookCallFailed(`the reply is ${JSON.stringify(reply.apiVersion ?? '')} ${JSON.stringify(reply.kind ?? '')}, not a ${opts.apiVersion} ImageReview`);
    }
    const status = reviewStatusOf(reply);
    if (typeof status === 'string') throw new WebhookCallFailed(status);
    return status;
  };

  const ask = (spec: ImageReviewSpec): Promise<ImageReviewStatus> => {
    const body = Buffer.from(JSON.stringify({
      apiVersion: opts.apiVersion, kind: 'ImageReview', metadata: { creationTimestamp: null }, spec, status: { allowed: false },
    }));
    return callWebhook(client, body, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, backoff, accept);
  };

  const backendFailed = (attrs: AdmissionAttributes, pod: ApiObject, err: unknown): void => {
    const failure = `Post ${JSON.stringify(client.url)}: ${(err as Error).message}`;
    opts.log?.warn('image policy webhook backend failed', { error: failure, defaultAllow: config.defaultAllow });
    if (!config.defaultAllow) throw forbidden(attrs, pod, failure);
    attrs.ctx.annotate?.(`${auditPrefix}failed-open`, 'true');
    const meta = (pod.metadata ??= {});
    meta.annotations = { ...(isObject(meta.annotations) ? meta.annotations as Record<string, string> : {}), [failedOpenAnnotation]: 'true' };
  };

  return {
    name: 'ImagePolicyWebhook',
    async validate(attrs) {
      if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
      if (attrs.resource.group !== '' || attrs.resource.resource !== 'pods') return;
      if (attrs.subresource && attrs.subresource !== 'ephemeralcontainers') return;
      const pod = attrs.object;
      if (!isObject(pod)) throw errors.badRequest('Resource was marked with kind Pod but was unable to be converted');
      const spec = imageReviewSpec(pod, attrs.subresource, attrs.namespace, domain);
      const key = reviewCacheKey(spec);
      let status = cache.get(key);
      if (!status) {
        try {
          status = await ask(spec);
        } catch (err) {
          backendFailed(attrs, pod, err);
          return;
        }
        cache.set(key, status, status.allowed ? config.allowTtlMs : config.denyTtlMs);
      }
      for (const [k, v] of Object.entries(status.auditAnnotations ?? {})) attrs.ctx.annotate?.(`${auditPrefix}${k}`, v);
      if (!status.allowed) {
        throw forbidden(attrs, pod, status.reason
          ? `image policy webhook backend denied one or more images: ${status.reason}`
          : 'one or more images rejected by webhook backend');
      }
    },
    stop() {
      client.close();
    },
  };
}
