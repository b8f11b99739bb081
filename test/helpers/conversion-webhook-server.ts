/**
 * A CRD conversion webhook a test serves itself: the admission test webhook server (HTTPS on
 * loopback with its own CA, every call recorded with its review) answering ConversionReviews.
 * By default every path converts by rewriting apiVersion (Kubernetes' noop test converter);
 * `handlers` answer by path with the helpers below (converted objects, a Failure result, raw
 * bytes, a status code, a delay, or no answer at all).
 */
import { AdmissionWebhookServer, HookAnswer, HookReply, ReviewCall, startAdmissionWebhookServer } from './admission-webhook-server';

export type { HookAnswer, HookReply, ReviewCall };

type Obj = Record<string, any>;

export interface ConversionWebhookServer extends AdmissionWebhookServer {
  /** spec.conversion.webhook.clientConfig reaching `p` (url and caBundle). */
  clientConfig(p: string): { url: string; caBundle: string };
}

/** The objects a call asked to convert. */
export const requestedObjects = (call: ReviewCall): Obj[] => call.review?.request?.objects ?? [];

/** A Success answer whose objects are `convert(object, desiredAPIVersion)` of each requested one. */
export function convertWith(call: ReviewCall, convert: (obj: Obj, desiredAPIVersion: string) => unknown, extra: Obj = {}): HookReply {
  const desired = call.review?.request?.desiredAPIVersion;
  const convertedObjects = requestedObjects(call).map((o) => convert(structuredClone(o), desired));
  return { response: { uid: call.review?.request?.uid, convertedObjects, result: { status: 'Success' }, ...extra } };
}

/** Kubernetes' noop test converter: apiVersion rewritten, nothing else. */
export function relabel(call: ReviewCall): HookReply {
  return convertWith(call, (o, desired) => ({ ...o, apiVersion: desired }));
}

/** A Failure result with `message`. */
export function failure(call: ReviewCall, message?: string): HookReply {
  const result: Obj = { status: 'Failure' };
  if (message !== undefined) result.message = message;
  return { response: { uid: call.review?.request?.uid, convertedObjects: [], result } };
}

export async function startConversionWebhookServer(opts: { serviceNames?: string[] } = {}): Promise<ConversionWebhookServer> {
  const base = await startAdmissionWebhookServer({ ...opts, reviewKind: 'ConversionReview', defaultAnswer: relabel });
  return Object.assign(base, {
    clientConfig: (p: string) => ({ url: base.url(p), caBundle: base.caBundle }),
  });
}

/** A v1 CRD (`<plural>.<group>`, namespaced) with `versions` (the first stored) and the given conversion. */
export function conversionCrd(conversion: Obj | undefined, opts: { group?: string; plural?: string; kind?: string; versions?: string[]; apiGroup?: string } = {}): Obj {
  const group = opts.group ?? 'stable.example.com';
  const plural = opts.plural ?? 'crontabs';
  const kind = opts.kind ?? 'CronTab';
  const versions = opts.versions ?? ['v1', 'v2'];
  return {
    apiVersion: `${opts.apiGroup ?? 'apiextensions.orch.io'}/v1`, kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, uid: 'crd-uid' },
    spec: {
      group, scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: versions.map((name, i) => ({ name, served: true, storage: i === 0, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } })),
      ...(conversion ? { conversion } : {}),
    },
  };
}
