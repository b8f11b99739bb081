/** Schema of admissionregistration's ValidatingWebhookConfiguration (v1 and v1beta1). */
import { Schema, mapList, object } from '../../../scheme/schema';
import { kindSchema } from '../../../scheme/meta-schema';
import { matchConditions, webhookFields } from '../webhook-schema';

/** ValidatingWebhook: the common fields and matchConditions. */
export const validatingWebhook: Schema = object({
  ...webhookFields(),
  matchConditions,
}, { required: ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'], description: 'ValidatingWebhook describes an admission webhook and the resources and operations it applies to.' });

/** ValidatingWebhookConfiguration: webhooks merged by name. */
export const validatingWebhookConfigurationSchema: Schema = kindSchema({
  webhooks: mapList(validatingWebhook, ['name'], 'The webhooks and the resources and operations they apply to.'),
}, 'ValidatingWebhookConfiguration describes the configuration of an admission webhook that accepts or rejects an object without changing it.');
