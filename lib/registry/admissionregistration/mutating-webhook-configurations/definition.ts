/** MutatingWebhookConfiguration (admissionregistration v1 and v1beta1, cluster-scoped): webhooks that may change the object. */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { mutatingWebhookConfigurationSchema } from './schema';
import { WebhookVersion } from '../webhook-defaults';
import { webhookConfigurationResource } from '../webhook-configuration-kind';

/** The MutatingWebhookConfiguration kind at `version` of the flavor's admissionregistration group. */
export function mutatingWebhookConfigurationResource(naming: Naming, version: WebhookVersion): ResourceDef {
  return webhookConfigurationResource(naming, version, { kind: 'MutatingWebhookConfiguration', schema: mutatingWebhookConfigurationSchema, mutating: true });
}
