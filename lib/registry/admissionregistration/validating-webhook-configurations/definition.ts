/** ValidatingWebhookConfiguration (admissionregistration v1 and v1beta1, cluster-scoped): webhooks that accept or refuse the object. */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { validatingWebhookConfigurationSchema } from './schema';
import { WebhookVersion } from '../webhook-defaults';
import { webhookConfigurationResource } from '../webhook-configuration-kind';

/** The ValidatingWebhookConfiguration kind at `version` of the flavor's admissionregistration group. */
export function validatingWebhookConfigurationResource(naming: Naming, version: WebhookVersion): ResourceDef {
  return webhookConfigurationResource(naming, version, { kind: 'ValidatingWebhookConfiguration', schema: validatingWebhookConfigurationSchema, mutating: false });
}
