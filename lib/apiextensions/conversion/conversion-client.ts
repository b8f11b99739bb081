/**
 * A CRD's conversion webhook as a target of the admission webhook client (webhookClientConfigForCRD):
 * spec.conversion.webhook.clientConfig's url, or service (port 443 unless given, its path), and
 * caBundle (base64 in the API; a whitespace-only bundle counts as none: the system roots),
 * named `conversion_webhook_for_<crd name>`, with the whole call within the timeout.
 */
import { ApiObject } from '../../scheme/types';
import { WebhookClientConfig } from '../../admission/webhook/compiled-webhook';
import { WebhookTarget } from '../../admission/webhook/webhook-client';
import { crdSpec } from '../../registry/apiextensions/custom-resource-definitions/view';

/** Kubernetes' timeout of a conversion webhook call (the webhook client's default). */
export const CONVERSION_TIMEOUT_SECONDS = 30;

/** The target the CRD's conversion webhook is called at. */
export function conversionTarget(crd: ApiObject, timeoutSeconds = CONVERSION_TIMEOUT_SECONDS): WebhookTarget {
  const cc = crdSpec(crd).conversion?.webhook?.clientConfig ?? {};
  const clientConfig: WebhookClientConfig = {};
  if (typeof cc.url === 'string' && cc.url) clientConfig.url = cc.url;
  const svc = cc.service;
  if (svc && typeof svc === 'object') {
    clientConfig.service = {
      namespace: String(svc.namespace ?? ''), name: String(svc.name ?? ''),
      path: typeof svc.path === 'string' ? svc.path : undefined,
      port: typeof svc.port === 'number' ? svc.port : 443,
    };
  }
  if (typeof cc.caBundle === 'string' && cc.caBundle) {
    const pem = Buffer.from(cc.caBundle, 'base64').toString('utf8');
    if (pem.trim()) clientConfig.caBundle = pem;
  }
  return { name: `conversion_webhook_for_${String(crd.metadata?.name ?? '')}`, timeoutSeconds, clientConfig };
}
