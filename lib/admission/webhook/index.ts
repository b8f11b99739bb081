/** The admission plugins of lib/admission/webhook, by name (listed by ../registry.ts). */
import type { PluginFactories } from '../plugin-factory';
import { MutatingWebhookPlugin } from './mutating-webhook';
import { ValidatingWebhookPlugin } from './validating-webhook';

export { MutatingWebhookPlugin, ValidatingWebhookPlugin };
export type { ServiceResolver } from './webhook-client';

export const webhookPlugins: PluginFactories = {
  MutatingAdmissionWebhook: (deps) => new MutatingWebhookPlugin(deps),
  ValidatingAdmissionWebhook: (deps) => new ValidatingWebhookPlugin(deps),
};
