/**
 * Converting custom resources between the versions of their CRD (issue 18, design 3.6): one
 * Converter per CRD, chosen by spec.conversion.strategy. `None` is synchronous (apiVersion
 * rewritten); `Webhook` asks the CRD's conversion webhook and is asynchronous. Both refuse
 * versions the CRD does not have, and fail with ConversionError (500, Kubernetes' message).
 */
import { ApiObject } from '../../scheme/types';
import { Naming } from '../../naming';
import { WebhookClients } from '../../admission/webhook/webhook-client';
import { CredentialResolver } from '../../admission/webhook/webhook-credentials';
import { crdSpec } from '../../registry/apiextensions/custom-resource-definitions/view';
import { ConversionError } from './conversion-error';
import { conversionInfoOf } from './crd-conversion-info';
import { NoneConverter } from './none-converter';
import { WebhookConverter } from './webhook-converter';
import { ConvertOptions, Converter } from './converter-interface';

/** What converterFor() may use beyond the CRD. */
export interface ConverterDeps {
  /** ConversionReview is `apiextensions.<domain>` of this flavor. */
  naming: Naming;
  /** The clients conversion webhooks are called with (conversionWebhookClients()); needed for `Webhook`. */
  clients?: WebhookClients;
  /** Whole-call timeout of a webhook call; Kubernetes' is 30 s. Tests make it shorter. */
  timeoutSeconds?: number;
}

/**
 * The clients for conversion webhooks. Kubernetes calls them without the admission plugin
 * configuration's kubeconfig credentials (no client certificate or token), so they get a pool of
 * their own; set a service resolver on it as for admission webhooks. Close it on stop.
 */
export function conversionWebhookClients(): WebhookClients {
  return new WebhookClients(new CredentialResolver());
}

/** The CRD's converter (spec.conversion absent: `None`, as defaulting makes it). */
export function converterFor(crd: ApiObject, deps: ConverterDeps): Converter {
  const conversion = crdSpec(crd).conversion;
  const strategy = conversion && typeof conversion === 'object' ? conversion.strategy ?? 'None' : 'None';
  const info = conversionInfoOf(crd);
  if (strategy === 'None') return new NoneConverter(info);
  if (strategy === 'Webhook') {
    if (!deps.clients) throw new Error('converterFor: a Webhook CRD needs deps.clients');
    return new WebhookConverter(crd, info, { naming: deps.naming, clients: deps.clients, timeoutSeconds: deps.timeoutSeconds });
  }
  throw new ConversionError(`unknown conversion strategy ${JSON.stringify(strategy)} for CRD ${info.name}`);
}

/** The result of any converter as a promise (for callers that do not need the synchronous path). */
export async function convertObjects(c: Converter, objects: readonly ApiObject[], toVersion: string, opts?: ConvertOptions): Promise<ApiObject[]> {
  return c.convert(objects, toVersion, opts);
}
