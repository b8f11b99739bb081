/** Schema of admissionregistration's MutatingWebhookConfiguration (v1 and v1beta1). */
import { Schema, mapList, object, str } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { matchConditions, webhookFields } from '../webhook-schema';

/** MutatingWebhook: the common fields, reinvocationPolicy and matchConditions. */
export const mutatingWebhook: Schema = object({
  ...webhookFields(),
  reinvocationPolicy: str('Never or IfNeeded: whether the webhook is called again when a later mutation changed the object.'),
  matchConditions,
}, { required: ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'], description: 'MutatingWebhook describes an admission webhook and the resources and operations it applies to.' });

/** MutatingWebhookConfiguration: webhooks merged by name. */
export const mutatingWebhookConfigurationSchema: Schema = kindSchema({
  webhooks: mapList(mutatingWebhook, ['name'], 'The webhooks and the resources and operations they apply to.'),
}, 'MutatingWebhookConfiguration describes the configuration of an admission webhook that accepts or rejects and may change the object.');
