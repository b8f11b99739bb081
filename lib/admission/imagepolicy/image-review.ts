/**
 * The ImageReview a pod is judged by, as Kubernetes' ImagePolicyWebhook builds it: the images of
 * the pod's containers then init containers (an ephemeralcontainers update: its ephemeral
 * containers only), the pod's annotations whose key contains `.image-policy.<domain>/`
 * (user-supplied, passed on unvalidated), and the namespace. Pods are read by Kubernetes' field
 * names and defensively: whatever is not a list of objects counts as no containers.
 */
import { ApiObject } from '../../scheme/types';

/** imagepolicy/v1alpha1 ImageReviewSpec (Go field order; empty fields omitted). */
export interface ImageReviewSpec {
  containers?: Array<{ image?: string }>;
  annotations?: Record<string, string>;
  namespace?: string;
}

/** imagepolicy/v1alpha1 ImageReviewStatus. */
export interface ImageReviewStatus {
  allowed: boolean;
  reason?: string;
  auditAnnotations?: Record<string, string>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function images(list: unknown): Array<{ image?: string }> {
  if (!Array.isArray(list)) return [];
  return list.map((c) => (isObject(c) && typeof c.image === 'string' && c.image ? { image: c.image } : {}));
}

/** The annotations the backend is shown: keys holding `.image-policy.<domain>/`. */
export function policyAnnotations(annotations: unknown, domain: string): Record<string, string> {
  const marker = `.image-policy.${domain}/`;
  const out: Record<string, string> = {};
  if (!isObject(annotations)) return out;
  for (const [k, v] of Object.entries(annotations)) {
    if (k.includes(marker) && typeof v === 'string') out[k] = v;
  }
  return out;
}

/** The spec sent for `pod` (subresource `ephemeralcontainers` or none) in `namespace`. */
export function imageReviewSpec(pod: ApiObject, subresource: string | undefined, namespace: string | undefined, domain: string): ImageReviewSpec {
  const podSpec = isObject(pod.spec) ? pod.spec : {};
  const containers = subresource === 'ephemeralcontainers'
    ? images(podSpec.ephemeralContainers)
    : [...images(podSpec.containers), ...images(podSpec.initContainers)];
  const annotations = policyAnnotations(pod.metadata?.annotations, domain);
  const spec: ImageReviewSpec = {};
  if (containers.length) spec.containers = containers;
  if (Object.keys(annotations).length) spec.annotations = annotations;
  if (namespace) spec.namespace = namespace;
  return spec;
}

/** The cache key of a spec: its JSON with annotation keys sorted (as Go marshals a map). */
export function reviewCacheKey(spec: ImageReviewSpec): string {
  const annotations = spec.annotations
    ? Object.fromEntries(Object.keys(spec.annotations).sort().map((k) => [k, spec.annotations![k]]))
    : undefined;
  return JSON.stringify({ containers: spec.containers, annotations, namespace: spec.namespace });
}

/** The status of a backend's reply, or a reason it cannot be used (wrong shapes are never guessed at). */
export function reviewStatusOf(reply: Record<string, unknown>): ImageReviewStatus | string {
  const status = reply.status ?? {};
  if (!isObject(status)) return 'the reply\'s status is not an object';
  const allowed = status.allowed ?? false;
  if (typeof allowed !== 'boolean') return 'the reply\'s status.allowed is not a boolean';
  const out: ImageReviewStatus = { allowed };
  if (status.reason !== undefined && status.reason !== null) {
    if (typeof status.reason !== 'string') return 'the reply\'s status.reason is not a string';
    if (status.reason) out.reason = status.reason;
  }
  const audit = status.auditAnnotations;
  if (audit !== undefined && audit !== null) {
    if (!isObject(audit) || !Object.values(audit).every((v) => typeof v === 'string')) {
      return 'the reply\'s status.auditAnnotations is not a map of strings';
    }
    if (Object.keys(audit).length) out.auditAnnotations = audit as Record<string, string>;
  }
  return out;
}
